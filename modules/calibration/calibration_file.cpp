#include "calibration/calibration_file.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "core/inputs/yaml_source.h"
#include "core/kernel/errors.h"

namespace cnuas::calibration {
namespace {

void emit_metrics(YAML::Emitter& out, const ErrorMetrics& m) {
  out << YAML::BeginMap << YAML::Key << "rows" << YAML::Value << m.count << YAML::Key
      << "mean_absolute_error_s" << YAML::Value << m.mean_absolute_error_s << YAML::Key
      << "mape_percent" << YAML::Value << m.mape << YAML::Key << "max_absolute_percentage_error"
      << YAML::Value << m.max_absolute_percentage << YAML::Key << "bias_s" << YAML::Value
      << m.bias_s << YAML::EndMap;
}

// A strict reader: every key declared, every required key present, numbers
// finite and in range, each error at its file:line:col.
class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  const YAML::Node& map(const YAML::Node& n, const std::string& what,
                        const std::vector<std::string>& keys) const {
    require_map(n, path_, what);
    check_keys(n, path_, keys, what);
    return n;
  }
  YAML::Node need(const YAML::Node& parent, const std::string& key, const std::string& in) const {
    if (YAML::Node n = parent[key]) return n;
    throw InputError(location_of(parent, path_), fmt::format("{} has no '{}:'", in, key));
  }
  std::string text(const YAML::Node& parent, const std::string& key, const std::string& in) const {
    return scalar_text(need(parent, key, in), path_, key);
  }
  // A finite number in [lo, hi]; `unit` says what it counts.
  double number(const YAML::Node& parent, const std::string& key, const std::string& in, double lo,
                double hi, bool infinity_allowed = false) const {
    const YAML::Node n = need(parent, key, in);
    const std::string t = scalar_text(n, path_, key);
    if (infinity_allowed && t == ".inf") return std::numeric_limits<double>::infinity();
    double v = 0;
    std::size_t used = 0;
    try {
      v = std::stod(t, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != t.size() || !std::isfinite(v) || v < lo || v > hi)
      throw InputError(location_of(n, path_),
                       fmt::format("'{}: {}' in {} must be a finite number from {} to {}", key,
                                   t.substr(0, 40), in, lo, hi));
    return v;
  }
  std::size_t count(const YAML::Node& parent, const std::string& key, const std::string& in) const {
    return static_cast<std::size_t>(number(parent, key, in, 0, 1e12));
  }
  bool flag(const YAML::Node& parent, const std::string& key, const std::string& in) const {
    const YAML::Node n = need(parent, key, in);
    const std::string t = scalar_text(n, path_, key);
    if (t != "true" && t != "false")
      throw InputError(location_of(n, path_), fmt::format("'{}: {}' in {} must be true or false",
                                                          key, t.substr(0, 40), in));
    return t == "true";
  }
  ErrorMetrics metrics(const YAML::Node& parent, const std::string& key) const {
    const YAML::Node n = map(need(parent, key, key), key,
                             {"rows", "mean_absolute_error_s", "mape_percent",
                              "max_absolute_percentage_error", "bias_s"});
    ErrorMetrics m;
    m.count = count(n, "rows", key);
    m.mean_absolute_error_s = number(n, "mean_absolute_error_s", key, 0, kMaxSeconds);
    m.mape = number(n, "mape_percent", key, 0, 1e12);
    m.max_absolute_percentage = number(n, "max_absolute_percentage_error", key, 0, 1e12);
    m.bias_s = number(n, "bias_s", key, -kMaxSeconds, kMaxSeconds);
    return m;
  }

  // Times in seconds a calibration may speak of: a day, far beyond any stage.
  static constexpr double kMaxSeconds = 86400;

 private:
  std::string path_;
};

}  // namespace

void write_calibration(const std::string& path, const CalibrationFile& c) {
  YAML::Emitter out;
  out.SetDoublePrecision(12);
  out << YAML::Comment(
      "Cnuas calibration: t = max(0, a * t_analytic + b). Written by cnuas calibrate.");
  out << YAML::BeginMap;
  out << YAML::Key << "format" << YAML::Value << "cnuas-calibration" << YAML::Key << "version"
      << YAML::Value << 1;
  out << YAML::Key << "component" << YAML::Value << c.component << YAML::Key << "target"
      << YAML::Value << c.target;
  out << YAML::Key << "profile" << YAML::Value << c.profile << YAML::Key << "profile_hash"
      << YAML::Value << c.profile_hash;
  out << YAML::Key << "a" << YAML::Value << c.affine.a << YAML::Key << "b_s" << YAML::Value
      << c.affine.b;
  out << YAML::Key << "training" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "file" << YAML::Value << c.training_file << YAML::Key << "hash" << YAML::Value
      << c.training_hash << YAML::Key << "rows" << YAML::Value << c.training_rows;
  out << YAML::Key << "training_error"
      << YAML::Comment("on the fitted rows: not a prediction error") << YAML::Value;
  emit_metrics(out, c.training);
  out << YAML::Key << "row_identities" << YAML::Value << YAML::Flow << c.training_identities;
  out << YAML::EndMap;
  if (c.validation) {
    const Validation& v = *c.validation;
    out << YAML::Key << "validation" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "file" << YAML::Value << v.file << YAML::Key << "hash" << YAML::Value
        << v.hash;
    out << YAML::Key << "heldout_error" << YAML::Value;
    emit_metrics(out, v.heldout);
    out << YAML::Key << "residual_trends" << YAML::Value << YAML::BeginSeq;
    for (const Trend& t : v.trends)
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "against" << YAML::Value << t.variable
          << YAML::Key << "slope" << YAML::Value << t.slope << YAML::Key << "correlation"
          << YAML::Value << t.correlation << YAML::Key << "systematic" << YAML::Value
          << t.systematic << YAML::EndMap;
    out << YAML::EndSeq;
    if (v.lack_of_fit) {
      const LackOfFit& l = *v.lack_of_fit;
      out << YAML::Key << "lack_of_fit" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
          << "groups" << YAML::Value << l.groups << YAML::Key << "lack_df" << YAML::Value
          << l.lack_df << YAML::Key << "pure_df" << YAML::Value << l.pure_df << YAML::Key << "f"
          << YAML::Value << l.f << YAML::Key << "p_value" << YAML::Value << l.p_value << YAML::Key
          << "systematic" << YAML::Value << l.systematic << YAML::EndMap;
    }
    out << YAML::Key << "affine_adequate" << YAML::Value << v.adequate << YAML::Key << "verdict"
        << YAML::Value << v.verdict;
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  // Like any output path: the folder is made when missing.
  std::error_code ignored;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ignored);
  std::ofstream file(path);
  if (!file) throw InputError(fmt::format("cannot write calibration '{}'", path));
  file << out.c_str() << "\n";
}

CalibrationFile read_calibration(const std::string& path) {
  const YamlSource src = load_yaml_file(path);
  const Reader r(path);
  try {
    const YAML::Node& n = src.root;
    if (!n.IsMap() || !n["format"] || !n["format"].IsScalar() ||
        n["format"].Scalar() != "cnuas-calibration")
      throw InputError(SourceLocation{path, 1, 1},
                       "not a Cnuas calibration file (format: cnuas-calibration)");
    const std::string top = "the calibration";
    r.map(n, top,
          {"format", "version", "component", "target", "profile", "profile_hash", "a", "b_s",
           "training", "validation"});
    if (r.text(n, "version", top) != "1")
      throw InputError(location_of(n["version"], path),
                       "calibration format version " + r.text(n, "version", top).substr(0, 20) +
                           " is not known; version 1 is accepted");
    CalibrationFile c;
    c.component = r.text(n, "component", top);
    c.target = r.text(n, "target", top);
    c.profile = r.text(n, "profile", top);
    c.profile_hash = r.text(n, "profile_hash", top);
    // t = max(0, a t_analytic + b): a slope that scales an analytic time up or
    // down by at most a million, an offset of at most a day either way.
    c.affine.a = r.number(n, "a", top, -1e6, 1e6);
    c.affine.b = r.number(n, "b_s", top, -Reader::kMaxSeconds, Reader::kMaxSeconds);
    const YAML::Node t = r.map(r.need(n, "training", top), "training",
                               {"file", "hash", "rows", "training_error", "row_identities"});
    c.training_file = r.text(t, "file", "training");
    c.training_hash = r.text(t, "hash", "training");
    c.training_rows = r.count(t, "rows", "training");
    c.training = r.metrics(t, "training_error");
    const YAML::Node ids = r.need(t, "row_identities", "training");
    require_sequence(ids, path, "row_identities");
    for (const YAML::Node& id : ids)
      c.training_identities.push_back(scalar_text(id, path, "a row"));
    if (const YAML::Node v = n["validation"]) {
      const std::string in = "validation";
      r.map(v, in,
            {"file", "hash", "heldout_error", "residual_trends", "lack_of_fit", "affine_adequate",
             "verdict"});
      Validation val;
      val.file = r.text(v, "file", in);
      val.hash = r.text(v, "hash", in);
      val.heldout = r.metrics(v, "heldout_error");
      val.rows = val.heldout.count;
      const YAML::Node trends = r.need(v, "residual_trends", in);
      require_sequence(trends, path, "residual_trends");
      for (const YAML::Node& tr : trends) {
        r.map(tr, "a residual trend", {"against", "slope", "correlation", "systematic"});
        val.trends.push_back({r.text(tr, "against", "a residual trend"),
                              r.number(tr, "slope", "a residual trend", -1e300, 1e300),
                              r.number(tr, "correlation", "a residual trend", -1, 1),
                              r.flag(tr, "systematic", "a residual trend")});
      }
      // F is .inf when exact replicates leave no pure error and the line misses.
      if (const YAML::Node l = v["lack_of_fit"]) {
        const std::string lf = "lack_of_fit";
        r.map(l, lf, {"groups", "lack_df", "pure_df", "f", "p_value", "systematic"});
        val.lack_of_fit =
            LackOfFit{r.count(l, "groups", lf),         r.count(l, "lack_df", lf),
                      r.count(l, "pure_df", lf),        r.number(l, "f", lf, 0, 1e300, true),
                      r.number(l, "p_value", lf, 0, 1), r.flag(l, "systematic", lf)};
      }
      val.adequate = r.flag(v, "affine_adequate", in);
      val.verdict = r.text(v, "verdict", in);
      c.validation = val;
    }
    return c;
  } catch (const YAML::Exception& e) {
    throw InputError(SourceLocation{path, e.mark.line + 1, e.mark.column + 1},
                     "malformed calibration file: " + e.msg);
  }
}

}  // namespace cnuas::calibration
