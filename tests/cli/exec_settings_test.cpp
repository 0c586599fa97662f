// cnuas exec checks what the program will boot with, in the documented order
// (docs/user-guide.md, "Where a value comes from"), before starting it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "cli/cli_harness.h"

namespace cnuas {
using namespace testing_support;

namespace {

// A program that leaves a file behind when it runs.
struct Witness {
  std::string path;
  explicit Witness(const std::string& name) : path(scratch_dir() + "/" + name) {
    std::filesystem::remove(path);
  }
  std::string command() const { return "-- touch " + path; }
  bool ran() const { return std::filesystem::exists(path); }
};

TEST(ExecSettings, BadGpuModeIsRefusedBeforeTheProgramRuns) {
  const Witness w("bad_mode");
  const CommandResult r = run_cnuas("exec --gpu-mode fast " + w.command());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("CNUAS_GPU_MODE (cnuas exec --gpu-mode)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'fast'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("analytic, performance, functional"), std::string::npos) << r.err;
  EXPECT_FALSE(w.ran());
}

TEST(ExecSettings, GpuOptionsApplyAfterTheSets) {
  // The --set value alone would be refused; the option replaces it before the
  // fields are parsed, so the run is accepted.
  const Witness w("after_sets");
  const CommandResult r =
      run_cnuas("exec --set gpu.mode=fast --gpu-mode functional " + w.command());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(w.ran());
  const Witness alone("set_alone");
  const CommandResult refused = run_cnuas("exec --set gpu.mode=fast " + alone.command());
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("--set gpu.mode=fast"), std::string::npos) << refused.err;
  EXPECT_FALSE(alone.ran());
}

TEST(ExecSettings, ThePlatformFromTheEnvironmentIsTheOneChecked) {
  // No --platform: the program boots CNUAS_PLATFORM, whose only elements have no `mode`.
  ::setenv("CNUAS_PLATFORM", source_path("platforms/with-plugin.yaml").c_str(), 1);
  const Witness w("env_platform");
  const CommandResult r = run_cnuas("exec --gpu-mode performance " + w.command());
  ::unsetenv("CNUAS_PLATFORM");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no element of platform 'with-plugin' has a field 'mode'"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(w.ran());
}

TEST(ExecSettings, BadLogLevelNamesTheAcceptedLevels) {
  const Witness w("bad_log");
  const CommandResult r = run_cnuas("exec --log loud " + w.command());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("quiet, warning, info, debug"), std::string::npos) << r.err;
  EXPECT_FALSE(w.ran());
}

TEST(ExecSettings, BadStrictMemoryValueIsRefusedNamingWhatIsAccepted) {
  ::setenv("CNUAS_STRICT_MEMORY", "yes", 1);
  const Witness w("bad_strict");
  const CommandResult r = run_cnuas("exec " + w.command());
  ::unsetenv("CNUAS_STRICT_MEMORY");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("CNUAS_STRICT_MEMORY='yes' is not 0 or 1"), std::string::npos) << r.err;
  EXPECT_FALSE(w.ran());
  // The option replaces the variable with the accepted value.
  ::setenv("CNUAS_STRICT_MEMORY", "yes", 1);
  const Witness ok("strict_option");
  const CommandResult accepted = run_cnuas("exec --strict-memory " + ok.command());
  ::unsetenv("CNUAS_STRICT_MEMORY");
  EXPECT_EQ(accepted.exit_code, 0) << accepted.err;
  EXPECT_TRUE(ok.ran());
}

// Checkpoint options are checked before the program starts: each mistake is
// refused with exit status 2 and names the option and what it accepts.
TEST(ExecSettings, CheckpointOptionsAreCheckedBeforeTheProgramRuns) {
  const std::string dir = scratch_dir() + "/ck_settings";
  struct Case {
    const char* name;
    std::string options;
    const char* message;
  };
  const Case cases[] = {
      {"ck_without_at", "--checkpoint " + dir, "needs CNUAS_CHECKPOINT_AT"},
      {"ck_at_alone", "--checkpoint-at 3", "needs CNUAS_CHECKPOINT (--checkpoint DIR)"},
      {"ck_both", "--checkpoint " + dir + " --checkpoint-at 3 --resume " + dir,
       "either writes a checkpoint"},
      {"ck_zeroth", "--checkpoint " + dir + " --checkpoint-at 'scale#0'", "count from 1"},
      {"ck_not_number", "--checkpoint " + dir + " --checkpoint-at 'scale#two'",
       "the occurrence 'two' is not a whole number"},
      {"ck_stop_alone", "--checkpoint-stop", "needs CNUAS_CHECKPOINT (--checkpoint DIR)"},
  };
  for (const Case& c : cases) {
    const Witness w(c.name);
    const CommandResult r = run_cnuas("exec " + c.options + " " + w.command());
    EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.name << ": " << r.err;
    EXPECT_FALSE(w.ran()) << c.name;
  }
}

}  // namespace
}  // namespace cnuas
