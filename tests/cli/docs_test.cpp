// The model reference pages are generated from the schema declarations; this
// fails when a page falls behind its model (regenerate: see docs/models/README.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "cli/cli_harness.h"

namespace cnuas {
using namespace testing_support;

TEST(Docs, ModelPagesMatchTheirDeclarations) {
  // Every built-in type and profile kind that list-models shows has its page.
  CommandResult list = run_cnuas("list-models");
  ASSERT_EQ(list.exit_code, 0);
  std::vector<std::string> types;
  std::istringstream lines(list.out);
  for (std::string line; std::getline(lines, line);)
    if (line.find("[built-in]") != std::string::npos || line.find("[profile]") != std::string::npos)
      types.push_back(line.substr(0, line.find(' ')));
  ASSERT_GE(types.size(), 14u);
  EXPECT_NE(std::find(types.begin(), types.end(), "cnuas.gpu_arch"), types.end());
  for (const std::string& type : types) {
    CommandResult r = run_cnuas("describe --markdown " + type);
    ASSERT_EQ(r.exit_code, 0);
    std::string page = read_file(source_path("docs/models/" + type + ".md"));
    EXPECT_EQ(page, r.out) << "docs/models/" << type << ".md is out of date";
  }
}

}  // namespace cnuas
