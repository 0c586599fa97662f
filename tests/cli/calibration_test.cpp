// cnuas calibrate fit / validate and run --calibration, end to end.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "cli/cli_harness.h"

namespace cnuas {
using namespace testing_support;
using nlohmann::json;

// cnuas.pipe with 1 GB/s and 1 us: analytic t = 1 us + bytes x 1 ns.
static const char* kProfile = "type: cnuas.pipe\nbandwidth: 1 GB/s\nlatency: 1 us\n";

// Measured = 2 x analytic + 3 us, exactly: the fit must find a = 2, b = 3 us.
static std::string observations(const std::vector<std::uint64_t>& sizes, int first_rep) {
  std::string csv = "component,target,bytes,time,unit,repetition\n";
  int rep = first_rep;
  for (std::uint64_t b : sizes) {
    const double measured_us = 2 * (1 + b / 1000.0) + 3;
    csv += "cnuas.pipe,lab-link," + std::to_string(b) + "," + std::to_string(measured_us) + ",us," +
           std::to_string(rep++) + "\n";
  }
  return csv;
}

struct Calibrated {
  std::string dir = scratch_dir() + "/cal";
  std::string profile = write_file("cal/link.yaml", kProfile);
  std::string train = write_file("cal/train.csv", observations({1000, 2000, 4000, 8000, 16000}, 0));
  std::string heldout =
      write_file("cal/heldout.csv", observations({3000, 6000, 12000, 24000, 48000}, 100));
  std::string file = dir + "/link-cal.yaml";

  CommandResult fit() {
    return run_cnuas("calibrate fit --component cnuas.pipe --target lab-link --profile " + profile +
                     " --observations " + train + " --out " + file);
  }
  CommandResult validate(const std::string& csv, const std::string& extra = "") {
    return run_cnuas("calibrate validate --calibration " + file + " --observations " + csv + " " +
                     extra);
  }
};

TEST(Calibration, FitRecoversAAndBAndValidationScoresHeldOut) {
  Calibrated c;
  CommandResult r = c.fit();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("training error (not a prediction error)"), std::string::npos);
  EXPECT_NE(r.out.find("a = 2,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("b = 3 us"), std::string::npos) << r.out;
  const std::string report = c.dir + "/report.json";
  r = c.validate(c.heldout, "--report " + report);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(read_file(report));
  EXPECT_EQ(j["heldout"]["rows"], 5);
  EXPECT_LT(j["heldout"]["mape_percent"].get<double>(), 1e-6);  // the data is exactly affine
  EXPECT_TRUE(j["affine_adequate"].get<bool>());
  EXPECT_TRUE(std::filesystem::exists(c.dir + "/link-cal.predicted-vs-measured.svg"));
  EXPECT_TRUE(std::filesystem::exists(c.dir + "/link-cal.residuals.svg"));
  // The relative residuals the adequacy test judges, with its verdict in the title.
  const std::string relative = read_file(c.dir + "/link-cal.relative-residuals.svg");
  EXPECT_NE(relative.find("(predicted - measured) / measured (%)"), std::string::npos);
  EXPECT_NE(relative.find("affine form adequate"), std::string::npos);
  EXPECT_NE(read_file(c.file).find("heldout_error"), std::string::npos);
}

TEST(Calibration, RunReportsCalibratedPredictionsWithHeldOutError) {
  Calibrated c;
  ASSERT_EQ(c.fit().exit_code, 0);
  ASSERT_EQ(c.validate(c.heldout).exit_code, 0);
  const std::string platform =
      write_file("cal/p.yaml",
                 "platform: calp\nelements:\n  - {name: link, profile: link.yaml}\n"
                 "workload:\n  operations:\n    - {name: x, path: [link], dims: {bytes: 5000}}\n");
  const std::string trace = c.dir + "/t.jsonl";
  const std::string metadata = c.dir + "/m.json";
  CommandResult r = run_cnuas("run " + platform + " --calibration " + c.file + " --trace " + trace +
                              " --metadata " + metadata);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = read_jsonl(trace);
  EXPECT_EQ(json::parse(read_file(metadata))["trace_header"]["class"], "analytic+calibrated");
  // analytic 6 us -> 2 x 6 + 3 = 15 us.
  EXPECT_EQ(lines[0]["end_ps"].get<std::uint64_t>(), 15'000'000u);
  EXPECT_EQ(lines[0]["class"], "calibrated");
  EXPECT_EQ(lines[0]["target"], "lab-link");
  EXPECT_TRUE(lines[0].contains("heldout_mape_percent"));
}

TEST(Calibration, RefusalsAreClearAndExitTwo) {
  Calibrated c;
  ASSERT_EQ(c.fit().exit_code, 0);
  const std::string platform =
      write_file("cal/p2.yaml",
                 "platform: calp\nelements:\n  - {name: link, profile: link.yaml}\n"
                 "workload:\n  operations:\n    - {name: x, path: [link], dims: {bytes: 5000}}\n");
  // Never validated: no prediction.
  CommandResult r = run_cnuas("run " + platform + " --calibration " + c.file);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("never validated"), std::string::npos) << r.err;
  // Training rows are not held-out rows.
  r = c.validate(c.train);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("train.csv:2:1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("training set"), std::string::npos) << r.err;
  // Malformed CSV names its line.
  const std::string bad = write_file("cal/bad.csv",
                                     "component,target,bytes,time,unit\ncnuas.pipe,lab-link,10,"
                                     "fast,us\n");
  r = c.validate(bad);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.csv:2:1"), std::string::npos) << r.err;
  // Unknown component.
  r = run_cnuas("calibrate fit --component cnuas.pipes --target t --profile " + c.profile +
                " --observations " + c.train + " --out " + c.dir + "/x.yaml");
  EXPECT_EQ(r.exit_code, 2);
  // The profile changed after the fit: validation and prediction are refused.
  ASSERT_EQ(c.validate(c.heldout).exit_code, 0);
  write_file("cal/link.yaml", "type: cnuas.pipe\nbandwidth: 2 GB/s\nlatency: 1 us\n");
  r = c.validate(c.heldout);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("changed since the fit"), std::string::npos) << r.err;
  r = run_cnuas("run " + platform + " --calibration " + c.file);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("matches none"), std::string::npos) << r.err;
}

// Calibration files are strict (fuzzing found .inf, .nan and 1e300 applied:
// 1 MiB copies in 0 ps, a bare inf in the JSON trace): each bad edit of a
// validated file is refused by validate and by run, exit 2, at its line.
TEST(Calibration, HostileFilesAreRefusedAtTheirLine) {
  Calibrated c;
  ASSERT_EQ(c.fit().exit_code, 0);
  ASSERT_EQ(c.validate(c.heldout).exit_code, 0);
  const std::string good = read_file(c.file);
  const std::string platform =
      write_file("cal/p3.yaml",
                 "platform: calp\nelements:\n  - {name: link, profile: link.yaml}\n"
                 "workload:\n  operations:\n    - {name: x, path: [link], dims: {bytes: 5000}}\n");
  // The line of `key:` at the top level of the good file, 1-based.
  auto line_of = [&](const std::string& key) {
    const std::size_t at = good.find("\n" + key + ":");
    return 2 + std::count(good.begin(), good.begin() + static_cast<long>(at), '\n');
  };
  auto replace_value = [&](const std::string& key, const std::string& value) {
    const std::size_t at = good.find("\n" + key + ":") + 1;
    const std::size_t end = good.find('\n', at);
    return good.substr(0, at) + key + ": " + value + good.substr(end);
  };
  struct Case {
    std::string text, expect;
  };
  const Case cases[] = {
      {replace_value("a", ".inf"), ":" + std::to_string(line_of("a")) + ":4: 'a: .inf'"},
      {replace_value("a", ".nan"), "'a: .nan' in the calibration must be a finite number"},
      {replace_value("a", "1e300"), "'a: 1e300' in the calibration must be a finite number from"},
      {replace_value("b_s", "-inf"), "'b_s: -inf'"},
      {good + "surprise: 1\n", "surprise"},
      {replace_value("version", "7"), "version 7 is not known"},
  };
  for (const Case& k : cases) {
    write_file("cal/link-cal.yaml", k.text);
    CommandResult r = c.validate(c.heldout);
    EXPECT_EQ(r.exit_code, 2) << k.expect;
    EXPECT_NE(r.err.find(k.expect), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("link-cal.yaml:"), std::string::npos) << r.err;
    r = run_cnuas("run " + platform + " --calibration " + c.file);
    EXPECT_EQ(r.exit_code, 2) << k.expect;
    EXPECT_NE(r.err.find(k.expect), std::string::npos) << r.err;
  }
}

// The public measurement sets shipped in calibration/observations, fitted on
// their training halves and scored on their held-out halves.
static json fit_and_validate_public(const std::string& component, const std::string& target,
                                    const std::string& profile) {
  const std::string dir = scratch_dir() + "/public";
  const std::string obs = source_path("calibration/observations/" + target);
  const std::string file = dir + "/" + target + ".yaml", report = dir + "/" + target + ".json";
  CommandResult r =
      run_cnuas("calibrate fit --component " + component + " --target " + target + " --profile " +
                source_path(profile) + " --observations " + obs + ".train.csv --out " + file);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = run_cnuas("calibrate validate --calibration " + file + " --observations " + obs +
                ".heldout.csv --report " + report);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(read_file(report));
}

// SHOC pinned device-to-host copies on PCIe 3.0 x16: time is affine in the
// analytic time (fixed launch overhead + bytes over the link).
TEST(PublicObservations, PcieCopyTimesAreAffineAndPredictedWithinTwoPercent) {
  const json r = fit_and_validate_public("cnuas.pcie_root", "rocm-pcie3-d2h-pinned",
                                         "profiles/pcie/gen3-x16.yaml");
  EXPECT_LT(r["heldout"]["mape_percent"].get<double>(), 2.0);
  EXPECT_TRUE(r["affine_adequate"].get<bool>());
  EXPECT_EQ(r["heldout"]["rows"].get<int>(), 6);
}

// ib_send_lat on ConnectX-4: small sends are inlined, larger ones fetched from
// host memory, so latency bends with size; the replicates across MTUs expose it.
TEST(PublicObservations, NicLatencyBendsAndTheLackOfFitTestSaysSo) {
  const json r = fit_and_validate_public("cnuas.nic", "connectx4-100g-rc-send",
                                         "profiles/nic/connectx4-100g-ib.yaml");
  EXPECT_FALSE(r["affine_adequate"].get<bool>());
  EXPECT_TRUE(r["lack_of_fit"]["systematic"].get<bool>());
  EXPECT_EQ(r["lack_of_fit"]["groups"].get<int>(), 4);
  EXPECT_GT(r["heldout"]["max_absolute_percentage_error"].get<double>(), 30.0);
}

}  // namespace cnuas

namespace cnuas {
using namespace testing_support;

// The shipped PCIe 3.0 observations fitted on the bare gen3 profile: a
// platform that adds `upstream: host` (wiring) still matches; one whose root
// is Gen5 is refused naming the field that differs, as written on each side.
TEST(Calibration, WiringIsNoPartOfTheIdentityAndMismatchesNameTheirFields) {
  const std::string dir = scratch_dir() + "/pcie3";
  std::filesystem::create_directories(dir);
  const std::string cal = dir + "/d2h.yaml";
  const std::string data = source_path("calibration/observations/rocm-pcie3-d2h-pinned");
  CommandResult r = run_cnuas(
      "calibrate fit --component cnuas.pcie_root --target rocm-pcie3-d2h-pinned --profile " +
      source_path("profiles/pcie/gen3-x16.yaml") + " --observations " + data + ".train.csv --out " +
      cal);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_cnuas("calibrate validate --calibration " + cal + " --observations " + data +
                ".heldout.csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_cnuas("run " + source_path("docs/examples/pcie3-node.yaml") + " --calibration " + cal);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("calibrated: cnuas.pcie_root for 'rocm-pcie3-d2h-pinned' on 1 element"),
            std::string::npos)
      << r.out;
  r = run_cnuas("run " + source_path("platforms/h100-node.yaml") + " --calibration " + cal);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  // h100-node's root is profiles/pcie/gen5-x16.yaml (generation: "5"); the
  // calibration's is gen3-x16.yaml (generation: "3"); other fields may differ too.
  EXPECT_NE(r.err.find("'h100-node.pcie' differs in generation ('3' in the profile, '5' here)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("upstream"), std::string::npos) << r.err;
}

}  // namespace cnuas
