// Who owns a run's context: whoever runs the simulation; at most one is active.
#include "core/kernel/run_context.h"

#include <gtest/gtest.h>

#include "basic/fixed_delay.h"
#include "core/inputs/profile.h"
#include "core/kernel/errors.h"

namespace cnuas {

static ParamSet one_ns_delay() {
  return resolve_params(FixedDelay::schema(), {{"delay", {"1 ns", {}}}}, "d", {});
}

TEST(RunContext, CurrentIsTheOneActiveRunAndNoneOutsideIt) {
  EXPECT_THROW(RunContext::current(), InternalError);  // no run yet
  {
    RunContext run;
    EXPECT_EQ(&RunContext::current(), &run);
    EXPECT_THROW(RunContext second, InternalError);  // one run at a time
    EXPECT_EQ(&RunContext::current(), &run);         // the refused one did not take over
  }
  EXPECT_THROW(RunContext::current(), InternalError);  // the run ended with its owner
  RunContext next;
  EXPECT_EQ(&RunContext::current(), &next);
}

TEST(RunContext, ElementsJoinTheRunTheyAreBuiltIn) {
  RunContext run;
  FixedDelay a("a", one_ns_delay());
  FixedDelay b("b", one_ns_delay());
  ASSERT_EQ(run.elements().size(), 2u);
  EXPECT_EQ(run.elements()[0], &a);
  EXPECT_EQ(run.elements()[1], &b);
  EXPECT_EQ(b.index(), 1u);
}

TEST(RunContext, AnElementOutsideARunIsAnInternalError) {
  EXPECT_THROW(FixedDelay("lonely", one_ns_delay()), InternalError);
}

}  // namespace cnuas
