// A deterministic mutation fuzz of the parser that runs in every test build
// (the sanitizer build included): flipped bytes, cut files, dropped and
// duplicated lines of real nvcc output must give a module or a ParseError.
#include <random>

#include "ptx_harness.h"

namespace cnuas::ptx::testing {
namespace {

TEST(PtxParserFuzz, MutatedNvccOutputNeverCrashesTheParser) {
  CNUAS_REQUIRE_NVCC();
  std::mt19937_64 rng(20261130);
  std::size_t parsed = 0, rejected = 0;
  for (const char* f : {"integer.ptx", "control.ptx", "memory.ptx", "warp.ptx", "workloads.ptx"}) {
    const std::string original = read_text(std::string(CNUAS_PTX_DIR) + "/" + f);
    for (int round = 0; round < 300; ++round) {
      std::string text = original;
      const int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits && !text.empty(); ++e) {
        const std::size_t at = rng() % text.size();
        switch (rng() % 5) {
          case 0:
            text[at] = static_cast<char>(rng() % 256);
            break;  // any byte
          case 1:
            text.resize(at);
            break;  // cut short
          case 2:
            text.erase(at, std::min<std::size_t>(text.size() - at, rng() % 64));
            break;
          case 3:
            text.insert(at, text.substr(rng() % text.size(), rng() % 64));
            break;
          default:
            text[at] = "{}[]();,.%@!|<>+-0123456789\"x"[rng() % 29];
            break;
        }
      }
      try {
        Module::parse(text, f);
        ++parsed;
      } catch (const ParseError&) {
        ++rejected;
      }
    }
  }
  EXPECT_EQ(parsed + rejected, 1500u);
  EXPECT_GT(rejected, 0u);
}

}  // namespace
}  // namespace cnuas::ptx::testing
