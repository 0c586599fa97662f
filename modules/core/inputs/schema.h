// One declaration per profile field: name, kind, unit, default, description.
//
// The same declaration drives YAML parsing, validation, `cnuas describe` and the
// generated model reference, so a field cannot be documented one way and parsed
// another.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/inputs/units.h"
#include "core/kernel/errors.h"
#include "core/kernel/work.h"

namespace cnuas {

enum class FieldKind { Integer, Quantity, Text, Boolean, Choice };

struct FieldSpec {
  std::string name;
  FieldKind kind = FieldKind::Integer;
  Dimension dimension = Dimension::Count;  // for Quantity
  bool required = false;
  std::string default_text;  // parsed like user text, so docs show exactly what applies
  std::string description;
  std::vector<std::string> choices;  // for Choice
  std::uint64_t min_integer = 0;
  std::uint64_t max_integer = UINT64_MAX;
  bool positive = false;  // Quantity must be > 0 (a rate or a clock)

  std::string type_text() const;  // "time (ps, ns, ...)", "integer 1..1024", ...
};

// Marks a schema for a kind of profile that configures a model but is not a
// placeable element (a GPU architecture): it has none of the element fields.
struct ProfileKind {};

class Schema {
 public:
  // Every type starts with the fields all elements share (power, rack, log, trace).
  Schema(std::string type, std::string summary);
  // A profile kind: only the fields it declares.
  Schema(std::string type, std::string summary, ProfileKind);

  // Builders; each returns *this for chaining in a model's static declaration.
  // A dotted name (`sm.pipes.int.latency`) is a field inside nested maps of a
  // profile (`sm: {pipes: {int: {latency: 4}}}`); see read_field_values.
  Schema& integer(const std::string& name, std::optional<std::uint64_t> default_value,
                  const std::string& description, std::uint64_t min = 0,
                  std::uint64_t max = UINT64_MAX);
  Schema& quantity(const std::string& name, Dimension d, std::optional<std::string> default_text,
                   const std::string& description, bool positive = false);
  Schema& text(const std::string& name, std::optional<std::string> default_text,
               const std::string& description);
  Schema& boolean(const std::string& name, bool default_value, const std::string& description);
  Schema& choice(const std::string& name, std::vector<std::string> choices,
                 std::optional<std::string> default_text, const std::string& description);
  // Work dimensions every operation crossing this element must give.
  Schema& needs(std::vector<WorkDim> dims);
  // At least one of these dimensions must be given (a GPU takes flops, bytes or both).
  Schema& needs_one_of(std::vector<WorkDim> dims);
  // The element is a power shelf: workload supply events may target it.
  Schema& supplies_power() {
    supplies_power_ = true;
    return *this;
  }
  bool is_power_supply() const { return supplies_power_; }
  // Operations crossing this element must name one of these `request:` kinds.
  Schema& serves_requests(std::vector<std::string> kinds);
  // The element sends requests that time out: fields `response_timeout` and
  // `retries` (Element::set_response_timeout), with these defaults.
  Schema& times_out_requests(const std::string& timeout, std::uint64_t retries);
  // How a stage becomes time on this element: its lanes, which figures are
  // occupancy (they hold a lane) and which latency (the lane serves others
  // meanwhile). Rendered by describe and in docs/models.
  Schema& timing(std::string text) {
    timing_ = std::move(text);
    return *this;
  }
  const std::string& timing() const { return timing_; }

  const std::string& type() const { return type_; }
  const std::string& summary() const { return summary_; }
  const std::vector<FieldSpec>& fields() const { return fields_; }
  const std::vector<WorkDim>& needed_dims() const { return needs_; }
  const std::vector<WorkDim>& needed_one_of() const { return needs_one_of_; }
  const std::vector<std::string>& request_kinds() const { return request_kinds_; }
  const FieldSpec* find(const std::string& name) const;
  std::vector<std::string> field_names() const;
  // Whether some dotted field lies under `prefix` (`sm.`, `sm.pipes.`).
  bool has_section(const std::string& prefix) const;
  // The keys one level below `prefix` ("" for the top): field names and
  // section names, once each, in declaration order.
  std::vector<std::string> keys_under(const std::string& prefix) const;

  // Human-readable and Markdown renderings of the declaration.
  std::string describe_text() const;
  std::string describe_markdown() const;

 private:
  std::string type_;
  std::string summary_;
  std::vector<FieldSpec> fields_;
  std::vector<WorkDim> needs_;
  std::vector<WorkDim> needs_one_of_;
  std::vector<std::string> request_kinds_;
  std::string timing_;
  bool supplies_power_ = false;
};

struct FieldValue {
  FieldKind kind = FieldKind::Integer;
  std::uint64_t integer = 0;
  Quantity quantity;
  std::string text;  // as written (also the value of Text and Choice)
  bool boolean = false;
  SourceLocation where;  // where the value was written ("default" when it was not)
};

// Parses one value for `spec`; `where` goes into the error message.
FieldValue parse_field_value(const FieldSpec& spec, const std::string& text,
                             const SourceLocation& where, const std::string& owner);

// The resolved, validated parameters of one element instance.
class ParamSet {
 public:
  ParamSet() = default;
  ParamSet(const Schema* schema) : schema_(schema) {}  // NOLINT

  const Schema* schema() const { return schema_; }
  void set(const std::string& name, FieldValue value) { values_[name] = std::move(value); }
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  const FieldValue& get(const std::string& name) const;

  std::uint64_t integer(const std::string& name) const { return get(name).integer; }
  const Rational& quantity(const std::string& name) const { return get(name).quantity.value; }
  // A data-size field as a whole number of bytes; a fraction of a byte is an
  // InputError naming `owner` and where the value was written.
  std::uint64_t whole_bytes(const std::string& name, const std::string& owner) const;
  // A time field in integer picoseconds, rounded up.
  std::uint64_t time_ps(const std::string& name) const { return quantity(name).ceil_u64(); }
  const std::string& text(const std::string& name) const { return get(name).text; }
  bool boolean(const std::string& name) const { return get(name).boolean; }
  const std::map<std::string, FieldValue>& values() const { return values_; }

  // Fills defaults and checks required fields; `owner` names the element.
  void finalize(const std::string& owner, const SourceLocation& where);

 private:
  const Schema* schema_ = nullptr;
  std::map<std::string, FieldValue> values_;
};

}  // namespace cnuas
