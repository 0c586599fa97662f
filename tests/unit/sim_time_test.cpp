#include "core/kernel/sim_time.h"

#include <gtest/gtest.h>

namespace cnuas {

TEST(SimTime, DirectConstructionEqualsFromValue) {
  for (std::uint64_t v : {0ULL, 1ULL, 2667ULL, 120000ULL, 123456789012345ULL, ~0ULL})
    EXPECT_EQ(ps_time(v), sc_core::sc_time::from_value(v)) << v;
}

}  // namespace cnuas
