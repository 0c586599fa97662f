// `--out DIR` writes metadata.json (command line, version, inputs with their
// SHA-256, resolved fields with their sources) and `cnuas --version` reports
// the version configured from CMakeLists.txt.
#include <cstdio>
#include <regex>

#include <gtest/gtest.h>

#include "cli/cli_harness.h"
#include "cli/tiny_platform.h"

namespace cnuas {
using namespace testing_support;
using nlohmann::json;

// The version as CMakeLists.txt declares it, read independently of the build.
static std::string declared_version() {
  const std::string cmake = read_file(source_path("CMakeLists.txt"));
  std::smatch m;
  EXPECT_TRUE(std::regex_search(cmake, m, std::regex(R"(project\(cnuas VERSION ([0-9.]+))")));
  return m[1];
}

static std::string shell_output(const std::string& command) {
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  char buf[256];
  while (p && std::fgets(buf, sizeof buf, p)) out += buf;
  if (p) ::pclose(p);
  return out;
}

TEST(Version, VersionOptionAndCommandPrintTheConfiguredVersion) {
  const CommandResult option = run_cnuas("--version");
  const CommandResult command = run_cnuas("version");
  EXPECT_EQ(option.exit_code, 0);
  EXPECT_EQ(command.exit_code, 0);
  EXPECT_EQ(option.out, command.out);
  EXPECT_EQ(option.out.rfind("cnuas " + declared_version() + " (", 0), 0u) << option.out;
  // The git description was filled in at configure time, not left a placeholder.
  EXPECT_EQ(option.out.find('@'), std::string::npos) << option.out;
}

TEST(RunMetadata, OutWritesCommandLineVersionInputsAndFieldSources) {
  const std::string platform = tiny_platform();
  const std::string dir = scratch_dir() + "/metadata_run";
  const CommandResult r =
      run_cnuas("run " + platform + " --out " + dir + " --set 'wire.latency=2 us'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(dir + "/metadata.json"), std::string::npos) << r.out;
  const json m = json::parse(read_file(dir + "/metadata.json"));
  EXPECT_EQ(m["format"], "cnuas-run-metadata");
  EXPECT_EQ(m["cnuas_version"], declared_version());
  EXPECT_EQ(m["command_line"],
            json({"cnuas", "run", platform, "--out", dir, "--set", "wire.latency=2 us"}));
  EXPECT_EQ(m["sets"], json({"wire.latency=2 us"}));
  EXPECT_EQ(m["platform"]["name"], "tiny");
  // The platform file's digest, as sha256sum computes it.
  const std::string digest = shell_output("sha256sum " + platform).substr(0, 64);
  ASSERT_EQ(m["input_files"].size(), 1u) << m["input_files"];
  EXPECT_EQ(m["input_files"][0]["role"], "platform");
  EXPECT_EQ(m["input_files"][0]["sha256"], digest);
  // Field sources: --set, the platform's set: (line 4 of the file, the value's
  // column) and the type's default.
  const json* wire = nullptr;
  for (const json& e : m["elements"])
    if (e["name"] == "wire") wire = &e;
  ASSERT_NE(wire, nullptr);
  EXPECT_EQ((*wire)["type"], "cnuas.pipe");
  EXPECT_EQ((*wire)["fields"]["latency"]["value"], "2 us");
  EXPECT_EQ((*wire)["fields"]["latency"]["from"], "--set wire.latency=2 us");
  const std::string line4 =
      "  - {name: wire, type: cnuas.pipe, set: {bandwidth: 8 Gbit/s, latency: 1 us}}";
  const std::size_t column = line4.find("8 Gbit/s") + 1;
  EXPECT_EQ((*wire)["fields"]["bandwidth"]["from"], platform + ":4:" + std::to_string(column));
  EXPECT_EQ((*wire)["fields"]["idle_power"]["from"], "default");
  // The trace's header (platform, workload, class, event count) lives here:
  // 2 sends x 2 stages = 4 records.
  EXPECT_EQ(m["trace_header"]["platform"], "tiny");
  EXPECT_EQ(m["trace_header"]["events"], 4);
}

TEST(RunMetadata, IsTheSameForTheSameRun) {
  const std::string platform = tiny_platform();
  const std::string a = scratch_dir() + "/same_meta";
  ASSERT_EQ(run_cnuas("run " + platform + " --out " + a).exit_code, 0);
  const std::string first = read_file(a + "/metadata.json");
  ASSERT_EQ(run_cnuas("run " + platform + " --out " + a).exit_code, 0);
  EXPECT_EQ(first, read_file(a + "/metadata.json"));
}

}  // namespace cnuas
