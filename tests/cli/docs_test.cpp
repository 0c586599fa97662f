// The model reference pages are generated from the schema declarations; this
// fails when a page falls behind its model (regenerate: see docs/models/README.md).
#include <gtest/gtest.h>

#include "cli/cli_harness.h"

namespace cnuas {
using namespace testing_support;

TEST(Docs, ModelPagesMatchTheirDeclarations) {
  for (const char* type :
       {"cnuas.pipe", "cnuas.compute", "cnuas.banked_memory", "cnuas.fixed_delay"}) {
    CommandResult r = run_cnuas(std::string("describe --markdown ") + type);
    ASSERT_EQ(r.exit_code, 0);
    std::string page = read_file(source_path(std::string("docs/models/") + type + ".md"));
    EXPECT_EQ(page, r.out) << "docs/models/" << type << ".md is out of date";
  }
}

}  // namespace cnuas
