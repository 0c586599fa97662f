// The model reference pages are generated from the schema declarations; this
// fails when a page falls behind its model (regenerate: see docs/models/README.md).
#include <gtest/gtest.h>

#include <sstream>

#include "cli/cli_harness.h"

namespace cnuas {
using namespace testing_support;

TEST(Docs, ModelPagesMatchTheirDeclarations) {
  // Every built-in type that list-models shows has its page.
  CommandResult list = run_cnuas("list-models");
  ASSERT_EQ(list.exit_code, 0);
  std::vector<std::string> types;
  std::istringstream lines(list.out);
  for (std::string line; std::getline(lines, line);)
    if (line.find("[built-in]") != std::string::npos)
      types.push_back(line.substr(0, line.find(' ')));
  ASSERT_GE(types.size(), 13u);
  for (const std::string& type : types) {
    CommandResult r = run_cnuas("describe --markdown " + type);
    ASSERT_EQ(r.exit_code, 0);
    std::string page = read_file(source_path("docs/models/" + type + ".md"));
    EXPECT_EQ(page, r.out) << "docs/models/" << type << ".md is out of date";
  }
}

}  // namespace cnuas
