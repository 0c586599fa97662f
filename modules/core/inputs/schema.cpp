#include "core/inputs/schema.h"

#include <fmt/format.h>

#include <algorithm>

namespace cnuas {

std::string FieldSpec::type_text() const {
  switch (kind) {
    case FieldKind::Integer:
      if (max_integer == UINT64_MAX) return fmt::format("integer >= {}", min_integer);
      return fmt::format("integer {}..{}", min_integer, max_integer);
    case FieldKind::Quantity:
      return fmt::format("{} ({})", dimension_name(dimension), accepted_units(dimension));
    case FieldKind::Text:
      return "text";
    case FieldKind::Boolean:
      return "true or false";
    case FieldKind::Choice:
      return "one of: " + join_names(choices);
  }
  return "";
}

namespace {

// What one element's field may hold: beyond these, a run's exact integer
// figures (microwatts, picoseconds) summed over a platform would overflow,
// and no real part comes near them.
std::optional<std::pair<Rational, const char*>> largest_field_value(Dimension d) {
  switch (d) {
    case Dimension::Power:
      return std::make_pair(Rational(10'000'000), "10 MW");
    case Dimension::Time:
      return std::make_pair(Rational(86'400) * Rational(1'000'000'000'000ULL), "1 day (86400 s)");
    case Dimension::Energy:
      return std::make_pair(Rational(1'000'000'000'000ULL), "1 TJ");
    default:
      return std::nullopt;
  }
}

}  // namespace

Schema::Schema(std::string type, std::string summary)
    : type_(std::move(type)), summary_(std::move(summary)) {
  quantity("idle_power", Dimension::Power, "0 W", "power drawn whether busy or not");
  quantity("active_power", Dimension::Power, "0 W",
           "power drawn on top of idle_power for each main lane a stage holds (engines and ingress "
           "ports draw none)");
  text("rack", "", "the rack whose power shelf feeds this element (empty: none)");
  choice("log", {"inherit", "quiet", "warning", "info", "debug"}, "inherit",
         "messages from this element: inherit (the run's --log level), quiet, warning, info (also "
         "back-pressure holds) or debug (also every booked stage)");
  boolean("trace", true,
          "write this element's stages to the trace (false: left out of the trace files; stats, "
          "power and waveforms still count them)");
  choice("on_outage", {"wait", "fail"}, "wait",
         "a stage that meets an outage of this element (element_down, flap, power loss): wait "
         "for it to come back up, or fail its operation there (the operations after it are "
         "cancelled)");
}

Schema::Schema(std::string type, std::string summary, ProfileKind)
    : type_(std::move(type)), summary_(std::move(summary)) {}

Schema& Schema::integer(const std::string& name, std::optional<std::uint64_t> default_value,
                        const std::string& description, std::uint64_t min, std::uint64_t max) {
  FieldSpec f;
  f.name = name;
  f.kind = FieldKind::Integer;
  f.required = !default_value;
  if (default_value) f.default_text = std::to_string(*default_value);
  f.description = description;
  f.min_integer = min;
  f.max_integer = max;
  fields_.push_back(f);
  return *this;
}

Schema& Schema::quantity(const std::string& name, Dimension d,
                         std::optional<std::string> default_text, const std::string& description,
                         bool positive) {
  FieldSpec f;
  f.name = name;
  f.kind = FieldKind::Quantity;
  f.dimension = d;
  f.required = !default_text;
  if (default_text) f.default_text = *default_text;
  f.description = description;
  f.positive = positive;
  fields_.push_back(f);
  return *this;
}

Schema& Schema::text(const std::string& name, std::optional<std::string> default_text,
                     const std::string& description) {
  FieldSpec f;
  f.name = name;
  f.kind = FieldKind::Text;
  f.required = !default_text;
  if (default_text) f.default_text = *default_text;
  f.description = description;
  fields_.push_back(f);
  return *this;
}

Schema& Schema::boolean(const std::string& name, bool default_value,
                        const std::string& description) {
  FieldSpec f;
  f.name = name;
  f.kind = FieldKind::Boolean;
  f.default_text = default_value ? "true" : "false";
  f.description = description;
  fields_.push_back(f);
  return *this;
}

Schema& Schema::choice(const std::string& name, std::vector<std::string> choices,
                       std::optional<std::string> default_text, const std::string& description) {
  FieldSpec f;
  f.name = name;
  f.kind = FieldKind::Choice;
  f.choices = std::move(choices);
  f.required = !default_text;
  if (default_text) f.default_text = *default_text;
  f.description = description;
  fields_.push_back(f);
  return *this;
}

Schema& Schema::needs(std::vector<WorkDim> dims) {
  needs_ = std::move(dims);
  return *this;
}

Schema& Schema::times_out_requests(const std::string& timeout, std::uint64_t retries) {
  quantity("response_timeout", Dimension::Time, timeout,
           "how long a request sent while the device it goes to is down (element_down, flap) "
           "waits for an answer before it is sent again; 0 s: it waits for the device to come "
           "back");
  return integer("retries", retries,
                 "requests sent again after a timeout; then the operation fails", 0, 1000);
}

Schema& Schema::serves_requests(std::vector<std::string> kinds) {
  request_kinds_ = std::move(kinds);
  return *this;
}

Schema& Schema::needs_one_of(std::vector<WorkDim> dims) {
  needs_one_of_ = std::move(dims);
  return *this;
}

const FieldSpec* Schema::find(const std::string& name) const {
  for (const auto& f : fields_)
    if (f.name == name) return &f;
  return nullptr;
}

std::vector<std::string> Schema::field_names() const {
  std::vector<std::string> names;
  for (const auto& f : fields_) names.push_back(f.name);
  return names;
}

bool Schema::has_section(const std::string& prefix) const {
  for (const auto& f : fields_)
    if (f.name.size() > prefix.size() && f.name.compare(0, prefix.size(), prefix) == 0) return true;
  return false;
}

std::vector<std::string> Schema::keys_under(const std::string& prefix) const {
  std::vector<std::string> keys;
  for (const auto& f : fields_) {
    if (f.name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = f.name.substr(prefix.size());
    const std::string key = rest.substr(0, rest.find('.'));
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  return keys;
}

std::string Schema::describe_text() const {
  std::string out = fmt::format("{}: {}\n", type_, summary_);
  if (!needs_.empty()) {
    std::vector<std::string> names;
    for (auto d : needs_) names.emplace_back(work_dim_name(d));
    out += fmt::format("  operations must give: {}\n", join_names(names));
  }
  if (!needs_one_of_.empty()) {
    std::vector<std::string> names;
    for (auto d : needs_one_of_) names.emplace_back(work_dim_name(d));
    out += fmt::format("  operations must give at least one of: {}\n", join_names(names));
  }
  if (!request_kinds_.empty())
    out += fmt::format("  operations must give request: {}\n", join_names(request_kinds_, " | "));
  if (!timing_.empty()) out += fmt::format("  timing: {}\n", timing_);
  out += "  fields:\n";
  std::size_t width = 18;  // wider only for long (dotted) names
  for (const auto& f : fields_) width = std::max(width, f.name.size());
  for (const auto& f : fields_) {
    out += fmt::format("    {:<{}} {}\n", f.name, width, f.type_text());
    out += fmt::format("    {:<{}} {}\n", "", width,
                       f.required ? "required" : "default: " + f.default_text);
    out += fmt::format("    {:<{}} {}\n", "", width, f.description);
  }
  return out;
}

std::string Schema::describe_markdown() const {
  std::string out = fmt::format("# `{}`\n\n{}\n\n", type_, summary_);
  if (!needs_.empty()) {
    std::vector<std::string> names;
    for (auto d : needs_) names.push_back(std::string("`") + work_dim_name(d) + "`");
    out += fmt::format("Operations crossing this element must give: {}.\n\n", join_names(names));
  }
  if (!needs_one_of_.empty()) {
    std::vector<std::string> names;
    for (auto d : needs_one_of_) names.push_back(std::string("`") + work_dim_name(d) + "`");
    out += fmt::format("Operations crossing this element must give at least one of: {}.\n\n",
                       join_names(names));
  }
  if (!request_kinds_.empty())
    out += fmt::format("Operations crossing this element must give `request:` as one of: {}.\n\n",
                       join_names(request_kinds_));
  if (!timing_.empty()) out += fmt::format("**Timing.** {}\n\n", timing_);
  out += "| field | type | default | description |\n|---|---|---|---|\n";
  for (const auto& f : fields_) {
    out += fmt::format("| `{}` | {} | {} | {} |\n", f.name, f.type_text(),
                       f.required ? "required" : "`" + f.default_text + "`", f.description);
  }
  return out;
}

FieldValue parse_field_value(const FieldSpec& spec, const std::string& text,
                             const SourceLocation& where, const std::string& owner) {
  FieldValue v;
  v.kind = spec.kind;
  v.text = text;
  v.where = where;
  auto fail = [&](const std::string& why) {
    throw InputError(where, fmt::format("{}: field '{}': {}", owner, spec.name, why));
  };
  try {
    switch (spec.kind) {
      case FieldKind::Integer: {
        Rational r;
        try {
          r = parse_decimal(text);
        } catch (const UnitError& e) {
          fail(fmt::format("{}; expected {}", e.message, spec.type_text()));
        }
        if (!r.is_integer())
          fail(fmt::format("'{}' is not a whole number; expected {}", text, spec.type_text()));
        v.integer = r.floor_u64();
        if (v.integer < spec.min_integer || v.integer > spec.max_integer)
          fail(fmt::format("{} is out of range; expected {}", v.integer, spec.type_text()));
        break;
      }
      case FieldKind::Quantity:
        v.quantity = parse_quantity(text, spec.dimension);
        if (spec.positive && v.quantity.value.is_zero())
          fail(fmt::format("must be greater than zero, got '{}'", text));
        if (const auto most = largest_field_value(spec.dimension);
            most && most->first < v.quantity.value)
          fail(fmt::format("'{}' is more than one element's {} may be: at most {}", text,
                           dimension_name(spec.dimension), most->second));
        break;
      case FieldKind::Text:
        break;
      case FieldKind::Boolean:
        if (text == "true")
          v.boolean = true;
        else if (text == "false")
          v.boolean = false;
        else
          fail(fmt::format("'{}' is not true or false", text));
        break;
      case FieldKind::Choice: {
        bool ok = false;
        for (const auto& c : spec.choices) ok = ok || c == text;
        if (!ok) {
          std::string hint = nearest_name(text, spec.choices);
          fail(fmt::format("'{}' is not accepted; expected one of: {}{}", text,
                           join_names(spec.choices),
                           hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
        }
        break;
      }
    }
  } catch (const UnitError& e) {
    fail(e.message);
  } catch (const OverflowError& e) {
    fail(e.what());
  }
  return v;
}

const FieldValue& ParamSet::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end())
    throw std::logic_error("model read undeclared or unset field '" + name + "'");
  return it->second;
}

std::uint64_t ParamSet::whole_bytes(const std::string& name, const std::string& owner) const {
  const Rational bytes = quantity(name) / Rational(8);
  if (!bytes.is_integer())
    throw InputError(get(name).where,
                     fmt::format("{}: {} must be a whole number of bytes", owner, name));
  return bytes.floor_u64();
}

void ParamSet::finalize(const std::string& owner, const SourceLocation& where) {
  for (const auto& f : schema_->fields()) {
    if (values_.count(f.name)) continue;
    if (f.required)
      throw InputError(where, fmt::format("{} ({}): required field '{}' is missing ({}: {})", owner,
                                          schema_->type(), f.name, f.type_text(), f.description));
    values_[f.name] = parse_field_value(f, f.default_text, SourceLocation{"default"}, owner);
  }
}

}  // namespace cnuas
