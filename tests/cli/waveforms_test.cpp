// The VCD names signals as the trace and stats name elements (brackets kept),
// SystemC prints no warning per signal, and a GTKWave save file beside it
// groups the signals per element, draws power as a decimal analog trace and
// zooms to the run.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <sstream>

#include "cli/cli_harness.h"

namespace cnuas {
using namespace testing_support;

namespace {

// Two copies from a count: block, 1 GB/s each; "x" moves 1000 B through
// server[0]: 1000 B / 1 GB/s = 1 us, the whole run.
const char* kCopies =
    "platform: p\nelements:\n"
    "  - {name: server, count: 2, type: cnuas.pipe, set: {bandwidth: 1 GB/s, idle_power: 2 W}}\n"
    "workload:\n  operations:\n    - {name: x, path: ['server[0]'], dims: {bytes: 1000}}\n";
constexpr std::uint64_t kRunPs = 1'000'000;

std::set<std::string> vcd_references(const std::string& vcd) {
  std::set<std::string> names;
  std::istringstream in(vcd);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("$var ", 0) != 0) continue;
    std::istringstream words(line);
    std::string var, kind, width, code, reference;
    words >> var >> kind >> width >> code >> reference;
    names.insert(reference);
  }
  return names;
}

}  // namespace

TEST(Waveforms, NamesMatchTheTraceAndNoWarningsAreRepeated) {
  const std::string dir = scratch_dir() + "/waves";
  CommandResult r = run_cnuas("run " + write_file("copies.yaml", kCopies) + " --out " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("W711"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("W711"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("Warning"), std::string::npos) << r.out;
  const std::set<std::string> names = vcd_references(read_file(dir + "/waves.vcd"));
  // Every element of the trace has its lanes and queue under the same name.
  std::set<std::string> components;
  for (const auto& line : read_jsonl(dir + "/trace.jsonl"))
    if (line.contains("component")) components.insert(line["component"].get<std::string>());
  ASSERT_EQ(components.count("p.server[0]"), 1u);
  for (const std::string& c : components) {
    EXPECT_EQ(names.count(c + ".lane0_busy"), 1u) << c;
    EXPECT_EQ(names.count(c + ".queue_depth"), 1u) << c;
  }
  EXPECT_EQ(names.count("p.server[1].lane0_busy"), 1u);
  EXPECT_EQ(names.count("power.platform_mW"), 1u);
  for (const std::string& n : names) EXPECT_EQ(n.find('('), std::string::npos) << n;
}

TEST(Waveforms, VcdEndsAtTheRunsEndInPicoseconds) {
  const std::string vcd = scratch_dir() + "/end.vcd";
  CommandResult r = run_cnuas("run " + write_file("copies.yaml", kCopies) + " --vcd " + vcd);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = read_file(vcd);
  EXPECT_NE(text.find("$timescale 1 ps $end"), std::string::npos);
  // The last time stamp is the run's end: the lane going idle at 1 us.
  const std::string last = text.substr(text.rfind('#'));
  EXPECT_EQ(last.substr(0, last.find('\n')), "#" + std::to_string(kRunPs));
  // Idle power of the two copies: 2 x 2 W = 4000 mW from the start.
  EXPECT_NE(text.find("b111110100000 "), std::string::npos);
}

TEST(Waveforms, GtkwaveSaveFileGroupsPerElementAndZoomsToTheRun) {
  const std::string vcd = scratch_dir() + "/zoom.vcd";
  CommandResult r = run_cnuas("run " + write_file("copies.yaml", kCopies) + " --vcd " + vcd);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("zoom.gtkw"), std::string::npos) << r.out;
  const std::string gtkw = read_file(scratch_dir() + "/zoom.gtkw");
  EXPECT_NE(gtkw.find("[dumpfile] \"zoom.vcd\""), std::string::npos) << gtkw;
  // Group begin (0x800000) and end (0x1000000), both with the blank-row flag 0x200.
  EXPECT_NE(gtkw.find("@800200\n-p.server[0]\n@24\ncnuas.p.server[0].queue_depth\n@28\n"
                      "cnuas.p.server[0].lane0_busy\n@1000200\n-p.server[0]\n"),
            std::string::npos)
      << gtkw;
  // Queue depth in decimal (0x4 | right-justified 0x20); power analog step
  // (0x8000) in decimal, right-justified.
  EXPECT_NE(gtkw.find("@24\ncnuas.p.server[0].queue_depth\n"), std::string::npos) << gtkw;
  EXPECT_NE(gtkw.find("@8024\ncnuas.power.platform_mW\n"), std::string::npos) << gtkw;
  // GTKWave draws 2^-zoom ps per pixel over a wave area of about 800 px: the
  // zoom must show the whole microsecond, and not less than a quarter of the window.
  const auto star = gtkw.find("\n*");
  ASSERT_NE(star, std::string::npos) << gtkw;
  const double zoom = std::stod(gtkw.substr(star + 2));
  const double shown_ps = std::pow(2.0, -zoom) * 800;
  EXPECT_GE(shown_ps, static_cast<double>(kRunPs)) << zoom;
  EXPECT_LE(shown_ps, 4.0 * kRunPs) << zoom;
}

}  // namespace cnuas
