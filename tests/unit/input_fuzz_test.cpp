// A deterministic mutation fuzz of every input reader, run in every build
// (the sanitizer build included): the shipped platforms (with their inline
// workloads), profiles, workloads and measurement CSVs, with bytes flipped,
// files cut, lines dropped or repeated and punctuation scattered, must load
// or give an InputError. Any other exception, a crash, a sanitizer report or a
// hang fails the test. (libFuzzer targets go deeper: scripts/fuzz.sh.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "calibration/observations.h"
#include "core/inputs/platform.h"
#include "core/inputs/profile.h"
#include "core/inputs/topology.h"
#include "core/inputs/workload.h"
#include "core/inputs/yaml_source.h"
#include "core/kernel/registry.h"
#include "test_files.h"

namespace cnuas {
using namespace testing_support;
namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string mutate(std::string text, std::mt19937_64& rng) {
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !text.empty(); ++e) {
    const std::size_t at = rng() % text.size();
    switch (rng() % 6) {
      case 0:
        text[at] = static_cast<char>(rng() % 256);
        break;
      case 1:
        text.resize(at);
        break;
      case 2:
        text.erase(at, std::min<std::size_t>(text.size() - at, rng() % 80));
        break;
      case 3:
        text.insert(at, text.substr(rng() % text.size(), rng() % 80));
        break;
      case 4: {  // a number grows absurdly
        text.insert(at, std::string(1 + rng() % 30, "0123456789"[rng() % 10]));
        break;
      }
      default:
        text[at] = "{}[]:,-&*!|>'\"#%@ \n\t"[rng() % 20];
        break;
    }
  }
  return text;
}

// Files of `dir` (recursively) ending in `ext`, in a fixed order.
std::vector<fs::path> files(const std::string& dir, const std::string& ext) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(std::string(CNUAS_SOURCE_DIR) + "/" + dir))
    if (e.is_regular_file() && e.path().extension() == ext) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Runs `load` on `rounds` mutations of each file; counts loads and refusals.
template <class Load>
void fuzz(const std::vector<fs::path>& inputs, int rounds, std::uint64_t seed, Load load) {
  std::mt19937_64 rng(seed);
  std::size_t loaded = 0, refused = 0;
  for (const fs::path& original : inputs) {
    const std::string text = read_all(original);
    for (int r = 0; r < rounds; ++r) {
      const std::string mutated = mutate(text, rng);
      try {
        load(mutated, original);
        ++loaded;
      } catch (const InputError&) {
        ++refused;
      } catch (const std::exception& e) {
        ADD_FAILURE() << original << " round " << r << ": " << typeid(e).name() << ": " << e.what()
                      << "\n--- input ---\n"
                      << mutated.substr(0, 2000);
      }
    }
  }
  EXPECT_EQ(loaded + refused, inputs.size() * static_cast<std::size_t>(rounds));
  EXPECT_GT(refused, 0u);
}

}  // namespace

// The mutated text keeps its file's name, so relative references (profiles,
// included platforms, workload files) resolve as they do for the original.
TEST(InputFuzz, PlatformsAndTheirWorkloads) {
  std::vector<fs::path> platforms;
  for (const fs::path& p : files("platforms", ".yaml"))
    if (p.filename() != "cluster-1024.yaml" && p.filename() != "with-plugin.yaml")
      platforms.push_back(p);  // the cluster's 2M operations would take minutes per round
  fuzz(platforms, 400, 20261201, [](const std::string& text, const fs::path& file) {
    const PlatformDesc platform = load_platform(load_yaml_text(text, file.string()));
    Topology topology(platform);
    if (platform.workload)
      load_workload(platform.workload, platform.workload_file, platform, topology);
  });
}

TEST(InputFuzz, Profiles) {
  const std::string dir = scratch_dir() + "/fuzzed_profiles";
  fs::create_directories(dir);
  fuzz(files("profiles", ".yaml"), 60, 7, [&](const std::string& text, const fs::path& file) {
    // A profile may name a base beside it: the mutation goes beside its original's copies.
    const fs::path copy = fs::path(dir) / file.parent_path().filename() / file.filename();
    fs::create_directories(copy.parent_path());
    for (const auto& sibling : fs::directory_iterator(file.parent_path()))
      if (!fs::exists(copy.parent_path() / sibling.path().filename()))
        fs::copy_file(sibling.path(), copy.parent_path() / sibling.path().filename());
    std::ofstream(copy, std::ios::binary) << text;
    const ProfileDoc doc = load_profile(copy.string());
    std::ofstream(copy, std::ios::binary) << read_all(file);  // restore for the next base
    if (const ModelInfo* model = Registry::instance().find(doc.type))
      resolve_params(*model->schema, doc.values, "fuzzed profile", SourceLocation{copy.string()});
  });
}

TEST(InputFuzz, MeasurementCsvs) {
  const std::string path = scratch_dir() + "/fuzzed.csv";
  fuzz(files("calibration/observations", ".csv"), 300, 99,
       [&](const std::string& text, const fs::path&) {
         std::ofstream(path, std::ios::binary) << text;
         calibration::read_observations(path);
       });
}

}  // namespace cnuas
