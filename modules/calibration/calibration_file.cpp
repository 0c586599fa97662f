#include "calibration/calibration_file.h"

#include <filesystem>
#include <fstream>

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

ErrorMetrics read_metrics(const YAML::Node& n) {
  ErrorMetrics m;
  m.count = n["rows"].as<std::size_t>();
  m.mean_absolute_error_s = n["mean_absolute_error_s"].as<double>();
  m.mape = n["mape_percent"].as<double>();
  m.max_absolute_percentage = n["max_absolute_percentage_error"].as<double>();
  m.bias_s = n["bias_s"].as<double>();
  return m;
}

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
  try {
    const YAML::Node& n = src.root;
    if (!n.IsMap() || !n["format"] || n["format"].as<std::string>() != "cnuas-calibration")
      throw InputError(SourceLocation{path, 1, 1},
                       "not a Cnuas calibration file (format: cnuas-calibration)");
    CalibrationFile c;
    c.component = n["component"].as<std::string>();
    c.target = n["target"].as<std::string>();
    c.profile = n["profile"].as<std::string>();
    c.profile_hash = n["profile_hash"].as<std::string>();
    c.affine.a = n["a"].as<double>();
    c.affine.b = n["b_s"].as<double>();
    const YAML::Node t = n["training"];
    c.training_file = t["file"].as<std::string>();
    c.training_hash = t["hash"].as<std::string>();
    c.training_rows = t["rows"].as<std::size_t>();
    c.training = read_metrics(t["training_error"]);
    c.training_identities = t["row_identities"].as<std::vector<std::string>>();
    if (const YAML::Node v = n["validation"]) {
      Validation val;
      val.file = v["file"].as<std::string>();
      val.hash = v["hash"].as<std::string>();
      val.heldout = read_metrics(v["heldout_error"]);
      val.rows = val.heldout.count;
      for (const auto& tr : v["residual_trends"])
        val.trends.push_back({tr["against"].as<std::string>(), tr["slope"].as<double>(),
                              tr["correlation"].as<double>(), tr["systematic"].as<bool>()});
      if (const YAML::Node l = v["lack_of_fit"])
        val.lack_of_fit = LackOfFit{l["groups"].as<std::size_t>(),  l["lack_df"].as<std::size_t>(),
                                    l["pure_df"].as<std::size_t>(), l["f"].as<double>(),
                                    l["p_value"].as<double>(),      l["systematic"].as<bool>()};
      val.adequate = v["affine_adequate"].as<bool>();
      val.verdict = v["verdict"].as<std::string>();
      c.validation = val;
    }
    return c;
  } catch (const YAML::Exception& e) {
    throw InputError(SourceLocation{path, e.mark.line + 1, e.mark.column + 1},
                     "malformed calibration file: " + e.msg);
  }
}

}  // namespace cnuas::calibration
