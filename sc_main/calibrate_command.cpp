// cnuas calibrate fit | validate
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include <fmt/format.h>
#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "calibration/analytic.h"
#include "calibration/calibration_file.h"
#include "calibration/observations.h"
#include "calibration/plots.h"
#include "command_line.h"
#include "commands.h"
#include "core/outputs/wording.h"

namespace po = boost::program_options;

namespace cnuas::cli {
namespace {

using namespace calibration;

void check_rows(const ObservationSet& set, const std::string& component,
                const std::string& target) {
  for (const Observation& o : set.rows)
    if (o.component != component || o.target != target)
      throw InputError(SourceLocation{set.file, o.line, 1},
                       fmt::format("row is for {} on '{}', but this calibration is for {} on '{}'",
                                   o.component, o.target, component, target));
}

std::vector<double> analytic_times(AnalyticProbe& probe, const ObservationSet& set) {
  std::vector<double> out;
  for (const Observation& o : set.rows) {
    try {
      out.push_back(probe.analytic_s(o.dims));
    } catch (const InputError& e) {
      throw InputError(SourceLocation{set.file, o.line, 1}, e.what());
    }
  }
  return out;
}

std::vector<double> measured_times(const ObservationSet& set) {
  std::vector<double> out;
  for (const Observation& o : set.rows) out.push_back(o.measured_s);
  return out;
}

int fit(const std::vector<std::string>& args) {
  std::string component, target, observations, profile, out_path;
  po::options_description opts(
      "cnuas calibrate fit --component TYPE --target NAME --profile P.yaml "
      "--observations TRAIN.csv --out FILE.yaml");
  opts.add_options()("help,h", "show this help")("component", po::value(&component)->required(),
                                                 "element type")(
      "target", po::value(&target)->required(), "the measured system this calibration is for")(
      "profile", po::value(&profile)->required(),
      "the component's profile (gives the analytic times)")(
      "observations", po::value(&observations)->required(), "training observations (CSV)")(
      "out", po::value(&out_path)->required(), "calibration file to write");
  if (std::find(args.begin(), args.end(), "--help") != args.end()) {
    std::cout << opts;
    return 0;
  }
  parse_command_line(args, opts);
  AnalyticProbe probe(profile);
  if (probe.type() != component)
    throw InputError(
        SourceLocation{profile},
        fmt::format("profile is for {}, but --component is {}", probe.type(), component));
  const ObservationSet train = read_observations(observations);
  check_rows(train, component, target);
  const std::vector<double> x = analytic_times(probe, train), y = measured_times(train);
  CalibrationFile c;
  c.component = component;
  c.target = target;
  c.profile = profile;
  c.profile_hash = probe.profile_hash();
  try {
    c.affine = fit_affine(x, y);
  } catch (const std::invalid_argument& e) {
    throw InputError(SourceLocation{observations}, e.what());
  }
  std::vector<double> predicted;
  for (double t : x) predicted.push_back(c.affine.predict(t));
  c.training = score(predicted, y);
  c.training_file = observations;
  c.training_hash = hex(train.hash);
  c.training_rows = train.rows.size();
  for (const Observation& o : train.rows) c.training_identities.push_back(hex(o.identity));
  write_calibration(out_path, c);
  std::cout << fmt::format(
      "{} on '{}': a = {:.6g}, b = {} from {}\n  training error (not a prediction "
      "error): MAPE {:.3g} %, "
      "MAE {}\n  not validated yet: run cnuas calibrate validate with held-out "
      "observations\n",
      component, target, c.affine.a, readable_seconds(c.affine.b),
      counted(train.rows.size(), "row"), c.training.mape,
      readable_seconds(c.training.mean_absolute_error_s));
  return 0;
}

int validate(const std::vector<std::string>& args) {
  std::string calibration_path, observations, report_path, plots_dir;
  po::options_description opts(
      "cnuas calibrate validate --calibration FILE.yaml --observations HELDOUT.csv [--report "
      "R.json] [--plots DIR]");
  opts.add_options()("help,h", "show this help")("calibration",
                                                 po::value(&calibration_path)->required(),
                                                 "calibration file from cnuas calibrate fit")(
      "observations", po::value(&observations)->required(),
      "held-out observations (CSV), none of them trained on")(
      "report", po::value(&report_path), "write the scores and residuals as JSON")(
      "plots", po::value(&plots_dir), "folder for the SVG plots (default: beside the calibration)");
  if (std::find(args.begin(), args.end(), "--help") != args.end()) {
    std::cout << opts;
    return 0;
  }
  parse_command_line(args, opts);
  CalibrationFile c = read_calibration(calibration_path);
  AnalyticProbe probe(c.profile);
  if (probe.profile_hash() != c.profile_hash)
    throw InputError(
        SourceLocation{calibration_path},
        fmt::format("profile '{}' changed since the fit (hash {} now, {} then): fit again",
                    c.profile, probe.profile_hash(), c.profile_hash));
  const ObservationSet heldout = read_observations(observations);
  check_rows(heldout, c.component, c.target);
  const std::set<std::string> trained(c.training_identities.begin(), c.training_identities.end());
  for (const Observation& o : heldout.rows)
    if (trained.count(hex(o.identity)))
      throw InputError(
          SourceLocation{heldout.file, o.line, 1},
          "this row was in the training set: held-out scores must come from unseen observations");
  const std::vector<double> x = analytic_times(probe, heldout), y = measured_times(heldout);
  std::vector<double> predicted, residual, relative;
  for (std::size_t i = 0; i < x.size(); ++i) {
    predicted.push_back(c.affine.predict(x[i]));
    residual.push_back(predicted.back() - y[i]);
    relative.push_back(residual.back() / y[i]);
  }
  Validation v;
  v.file = observations;
  v.hash = hex(heldout.hash);
  v.rows = heldout.rows.size();
  v.heldout = score(predicted, y);
  // Trends of the relative residual: measurement noise that grows with the time
  // is not a flaw of the affine form; a residual that drifts with a variable is.
  v.trends.push_back(residual_trend("analytic_time_s", x, relative));
  for (const auto& info : work_dim_table()) {
    std::vector<double> dim;
    for (const Observation& o : heldout.rows)
      if (o.dims.has(info.id)) dim.push_back(static_cast<double>(o.dims.get(info.id)));
    if (dim.size() == heldout.rows.size())
      v.trends.push_back(residual_trend(info.name, dim, relative));
  }
  v.lack_of_fit = lack_of_fit(x, relative);
  const auto trend =
      std::find_if(v.trends.begin(), v.trends.end(), [](const Trend& t) { return t.systematic; });
  const bool curved = v.lack_of_fit && v.lack_of_fit->systematic;
  v.adequate = trend == v.trends.end() && !curved;
  if (v.adequate)
    v.verdict = "affine form adequate: no systematic residual trend";
  else if (trend != v.trends.end())
    v.verdict = "affine form inadequate: residuals trend with " + trend->variable;
  else
    v.verdict = fmt::format(
        "affine form inadequate: residuals bend (lack-of-fit F = {:.3g}, p = {:.2g}, against the "
        "spread of repeated measurements)",
        v.lack_of_fit->f, v.lack_of_fit->p_value);
  c.validation = v;
  write_calibration(calibration_path, c);

  // Pictures: training points too, when the training file is still there.
  std::vector<Point> train_points, heldout_points, residual_points, relative_points;
  if (std::filesystem::exists(c.training_file)) {
    const ObservationSet train = read_observations(c.training_file);
    const std::vector<double> tx = analytic_times(probe, train);
    for (std::size_t i = 0; i < tx.size(); ++i)
      train_points.push_back({train.rows[i].measured_s * 1e6, c.affine.predict(tx[i]) * 1e6});
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    heldout_points.push_back({y[i] * 1e6, predicted[i] * 1e6});
    residual_points.push_back({x[i] * 1e6, residual[i] * 1e6});
    relative_points.push_back({x[i] * 1e6, relative[i] * 100});
  }
  if (plots_dir.empty()) plots_dir = std::filesystem::path(calibration_path).parent_path().string();
  if (plots_dir.empty()) plots_dir = ".";
  std::filesystem::create_directories(plots_dir);
  const std::string stem = std::filesystem::path(calibration_path).stem().string();
  const std::string fit_svg = plots_dir + "/" + stem + ".predicted-vs-measured.svg";
  const std::string residual_svg = plots_dir + "/" + stem + ".residuals.svg";
  const std::string relative_svg = plots_dir + "/" + stem + ".relative-residuals.svg";
  std::ofstream(fit_svg) << scatter_svg(
      fmt::format("{} on {}: calibrated prediction vs measurement", c.component, c.target),
      {"measured (us)"}, {"predicted (us)"},
      {{"training", "#1f77b4", train_points}, {"held-out", "#d62728", heldout_points}}, true,
      false);
  std::ofstream(residual_svg) << scatter_svg(
      fmt::format("held-out residuals (predicted - measured), MAPE {:.3g} %", v.heldout.mape),
      {"analytic time (us)"}, {"residual (us)", Scale::Linear},
      {{"held-out", "#d62728", residual_points}}, false, true);
  std::ofstream(relative_svg) << scatter_svg(
      fmt::format("held-out relative residuals (judged by the adequacy test): {}",
                  v.adequate ? "affine form adequate" : "affine form inadequate"),
      {"analytic time (us)"}, {"(predicted - measured) / measured (%)", Scale::Linear},
      {{"held-out", "#d62728", relative_points}}, false, true);
  if (!report_path.empty()) {
    nlohmann::ordered_json report = {
        {"component", c.component},
        {"target", c.target},
        {"a", c.affine.a},
        {"b_s", c.affine.b},
        {"heldout",
         {{"rows", v.rows},
          {"mean_absolute_error_s", v.heldout.mean_absolute_error_s},
          {"mape_percent", v.heldout.mape},
          {"max_absolute_percentage_error", v.heldout.max_absolute_percentage},
          {"bias_s", v.heldout.bias_s}}},
        {"training_error_not_prediction_error", {{"mape_percent", c.training.mape}}},
        {"affine_adequate", v.adequate},
        {"verdict", v.verdict}};
    nlohmann::ordered_json trends = nlohmann::ordered_json::array();
    for (const Trend& t : v.trends)
      trends.push_back({{"against", t.variable},
                        {"slope", t.slope},
                        {"correlation", t.correlation},
                        {"systematic", t.systematic}});
    report["residual_trends"] = trends;
    if (v.lack_of_fit)
      report["lack_of_fit"] = {
          {"groups", v.lack_of_fit->groups},   {"lack_df", v.lack_of_fit->lack_df},
          {"pure_df", v.lack_of_fit->pure_df}, {"f", v.lack_of_fit->f},
          {"p_value", v.lack_of_fit->p_value}, {"systematic", v.lack_of_fit->systematic}};
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < x.size(); ++i)
      rows.push_back({{"line", heldout.rows[i].line},
                      {"analytic_s", x[i]},
                      {"predicted_s", predicted[i]},
                      {"measured_s", y[i]},
                      {"residual_s", residual[i]}});
    report["rows"] = rows;
    std::ofstream(report_path) << report.dump(2) << "\n";
  }
  std::cout << fmt::format(
      "{} on '{}': held-out error over {}: MAPE {:.3g} %, max {:.3g} %, MAE {}, bias "
      "{}\n  {}\n"
      "  plots: {} {}\n",
      c.component, c.target, counted(v.rows, "row"), v.heldout.mape,
      v.heldout.max_absolute_percentage, readable_seconds(v.heldout.mean_absolute_error_s),
      readable_seconds(v.heldout.bias_s), v.verdict, fit_svg, residual_svg);
  return 0;
}

}  // namespace

int calibrate_command(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout
        << "usage: cnuas calibrate fit ... | cnuas calibrate validate ...  (--help on each)\n";
    return args.empty() ? 2 : 0;
  }
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "fit") return fit(rest);
  if (args[0] == "validate") return validate(rest);
  throw InputError("unknown calibrate command '" + args[0] + "'; accepted: fit, validate");
}

}  // namespace cnuas::cli
