// Every ```sh block of README.md and docs/*.md runs as written, from a copy of
// the repository root whose build/ is the build under test. A block may be
// skipped only with a marker on the line before its fence naming why
// (README.md, "Commands in the docs are tested"):
//   <!-- doc-test: skip nvcc -->       needs nvcc: runs where the Release build found it
//   <!-- doc-test: skip build -->      builds, installs or runs the test suite
//   <!-- doc-test: skip benchmark -->  a timing run meant to take minutes
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "cli/cli_harness.h"

namespace cnuas {
using namespace testing_support;
namespace fs = std::filesystem;

namespace {

struct ShellBlock {
  std::string where;  // file:line of the fence
  std::string text;
  std::string skip;  // the marker's reason, empty when the block runs
};

const std::set<std::string> kSkipReasons = {"nvcc", "build", "benchmark"};

std::vector<ShellBlock> shell_blocks(const std::string& relative, const std::string& text) {
  std::vector<ShellBlock> blocks;
  std::istringstream in(text);
  std::string line, previous;
  int number = 0;
  ShellBlock* open = nullptr;
  while (std::getline(in, line)) {
    ++number;
    if (open != nullptr) {
      if (line.rfind("```", 0) == 0)
        open = nullptr;
      else
        open->text += line + "\n";
    } else if (line == "```sh") {
      ShellBlock b{relative + ":" + std::to_string(number), "", ""};
      const std::string marker = "<!-- doc-test: skip ";
      if (previous.rfind(marker, 0) == 0) {
        b.skip = previous.substr(marker.size());
        b.skip = b.skip.substr(0, b.skip.find(' '));
      }
      blocks.push_back(b);
      open = &blocks.back();
    } else if (line.rfind("```", 0) == 0) {
      // Other fences (yaml, text) hold no commands; skip to their end.
      while (std::getline(in, line) && line.rfind("```", 0) != 0) ++number;
      ++number;
    }
    previous = line;
  }
  return blocks;
}

// A scratch copy of the repository root: links to its entries, with build/
// the build under test, so that what the commands write stays out of the tree.
std::string scratch_root() {
  const fs::path root = fs::path(scratch_dir()) / "repo";
  fs::create_directories(root);
  for (const auto& entry : fs::directory_iterator(CNUAS_SOURCE_DIR)) {
    const std::string name = entry.path().filename().string();
    if (name == "build" || name == ".git") continue;
    fs::create_directory_symlink(entry.path(), root / name);
  }
  const fs::path build = fs::path(CNUAS_BINARY).parent_path().parent_path();
  fs::create_directory_symlink(build, root / "build");
  return root.string();
}

std::vector<std::string> documents() {
  std::vector<std::string> docs = {"README.md"};
  std::vector<std::string> pages;
  for (const auto& entry : fs::directory_iterator(source_path("docs")))
    if (entry.path().extension() == ".md")
      pages.push_back("docs/" + entry.path().filename().string());
  std::sort(pages.begin(), pages.end());
  docs.insert(docs.end(), pages.begin(), pages.end());
  return docs;
}

}  // namespace

TEST(DocCommands, EveryShellBlockRunsAsWritten) {
  const std::string root = scratch_root();
  const std::string bin = (fs::path(CNUAS_BINARY).parent_path()).string();
  // Blocks marked nvcc run too where this build found nvcc (its directory on
  // PATH): only the Release build defines it.
#ifdef CNUAS_DOC_NVCC_DIR
  const std::string nvcc_dir = CNUAS_DOC_NVCC_DIR;
#else
  const std::string nvcc_dir;
#endif
  int ran = 0, ran_nvcc = 0;
  for (const std::string& doc : documents())
    for (const ShellBlock& b : shell_blocks(doc, read_file(source_path(doc)))) {
      if (!b.skip.empty()) {
        EXPECT_TRUE(kSkipReasons.count(b.skip))
            << b.where << ": skip reason '" << b.skip << "' is none of nvcc, build, benchmark";
        if (b.skip != "nvcc" || nvcc_dir.empty()) continue;
        ++ran_nvcc;
      }
      const std::string script = write_file("block" + std::to_string(ran) + ".sh", b.text);
      const std::string log = script + ".log";
      // -e: a block fails at its first failing command, as a reader would notice.
      const std::string path = bin + (nvcc_dir.empty() ? "" : ":" + nvcc_dir);
      const std::string command = "cd " + root + " && PATH=" + path +
                                  ":$PATH bash -e -o pipefail " + script + " >" + log + " 2>&1";
      const int status = std::system(command.c_str());
      EXPECT_EQ(status, 0) << b.where << " failed:\n"
                           << b.text << "--- output:\n"
                           << read_file(log);
      ++ran;
    }
  // README's reference block and the user guide's calibration at least (a parser that finds
  // nothing would pass vacuously).
  EXPECT_GE(ran, 2);
  // README's three, cuda-runtime.md's three and the user guide's one.
  if (!nvcc_dir.empty()) {
    EXPECT_GE(ran_nvcc, 7);
  }
}

TEST(DocCommands, FindsBlocksAndSkipMarkers) {
  // Two sh blocks (the yaml one holds no commands), the second skipped for nvcc.
  const std::string text =
      "intro\n```sh\necho one\n```\n```yaml\nnot: run\n```\n<!-- doc-test: skip nvcc -->\n"
      "```sh\nnvcc x.cu\n```\n";
  const std::vector<ShellBlock> blocks = shell_blocks("x.md", text);
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].where, "x.md:2");
  EXPECT_EQ(blocks[0].text, "echo one\n");
  EXPECT_EQ(blocks[0].skip, "");
  EXPECT_EQ(blocks[1].where, "x.md:9");
  EXPECT_EQ(blocks[1].skip, "nvcc");
}

}  // namespace cnuas
