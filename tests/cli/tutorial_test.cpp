// docs/tutorial.md runs as written: every ```sh block, in order, in a scratch
// directory laid out like the repository (build/bin/cnuas, profiles/).
#include <filesystem>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "cli/cli_harness.h"

namespace cnuas {
using namespace testing_support;
namespace fs = std::filesystem;

TEST(Tutorial, EveryCommandRunsAndTheSweepMatchesTheLineRate) {
  const fs::path root = fs::path(scratch_dir()) / "tutorial";
  fs::create_directories(root);
  fs::create_symlink(fs::path(CNUAS_BINARY).parent_path().parent_path(), root / "build");
  fs::create_symlink(source_path("profiles"), root / "profiles");
  const std::string page = read_file(source_path("docs/tutorial.md"));
  const std::regex block("```sh\n([\\s\\S]*?)```");
  int blocks = 0;
  for (std::sregex_iterator it(page.begin(), page.end(), block), end; it != end; ++it) {
    const std::string script =
        write_file("tutorial/block" + std::to_string(blocks) + ".sh", (*it)[1].str());
    const std::string log = script + ".log";
    const std::string command =
        "cd " + root.string() + " && bash -e " + script + " > " + log + " 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << (*it)[1] << read_file(log);
    ++blocks;
  }
  EXPECT_GE(blocks, 8);
  // 1 GiB in 4096 B packets of 82 B headers: 1073741824 + 262144 x 82 =
  // 1095237632 B on each wire; at 100 Gbit/s that is 87.619 ms, at 400 Gbit/s
  // 21.905 ms; the route's latencies add well under 10 us.
  std::istringstream csv(read_file((root / "out/tutorial/sweep/sweep.csv").string()));
  std::vector<std::string> rows;
  for (std::string line; std::getline(csv, line);) rows.push_back(line);
  ASSERT_EQ(rows.size(), 4u);
  auto makespan_ms = [&](const std::string& row) {
    std::vector<std::string> cells;
    std::istringstream parts(row);
    for (std::string cell; std::getline(parts, cell, ',');) cells.push_back(cell);
    return std::stod(cells.at(3)) / 1e9;
  };
  const double wire_bits = 1095237632.0 * 8;
  EXPECT_GE(makespan_ms(rows[1]), wire_bits / 100e9 * 1e3);
  EXPECT_LT(makespan_ms(rows[1]), wire_bits / 100e9 * 1e3 + 0.01);
  EXPECT_GE(makespan_ms(rows[3]), wire_bits / 400e9 * 1e3);
  EXPECT_LT(makespan_ms(rows[3]), wire_bits / 400e9 * 1e3 + 0.01);
}

}  // namespace cnuas
