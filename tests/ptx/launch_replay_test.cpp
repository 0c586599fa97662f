// Launch replay (ptx/src/launch_replay.h): a launch identical to an earlier
// one in kernel, configuration and device memory replays the earlier
// outcome; anything else it depends on changing makes it execute. Each test
// checks the results against a host computation, so a replay that restored a
// stale outcome fails, and counts the replays the documented rule predicts:
// the first occurrence of a launch executes unhashed, the second executes
// and is recorded, the third and later replay while memory is unchanged.
#include <cmath>

#include "ptx/host_backing.h"
#include "ptx_harness.h"

namespace cnuas::ptx::testing {
namespace {

constexpr int kN = 65536;
constexpr int kTerms = 64;
constexpr Dim3 kGrid{kN / 256, 1, 1};
constexpr Dim3 kBlock{256, 1, 1};

std::vector<float> inputs(float shift) {
  std::vector<float> x(kN);
  for (int i = 0; i < kN; ++i) x[i] = static_cast<float>((i * 37) % 1000) / 1000.f + shift;
  return x;
}

// The kernel's Horner loop on the host, in double: the device's float
// result is within a few float roundings of it.
double polynomial(float v) {
  double acc = 0;
  for (int k = 0; k < kTerms; ++k) acc = acc * v + (k + 1);
  return acc;
}

void expect_polynomial(const std::vector<float>& x, const std::vector<float>& y) {
  for (int i = 0; i < kN; i += 97) {
    const double want = polynomial(x[i]);
    ASSERT_NEAR(y[i], want, 1e-5 * want + 1e-5) << "element " << i;
  }
}

TEST(LaunchReplay, RepeatedLaunchReplaysTheSameResultsAndStatistics) {
  CNUAS_REQUIRE_NVCC();
  Device dev("replay.ptx");
  const std::vector<float> x = inputs(0);
  const std::uint64_t dx = dev.upload(x), dy = dev.alloc<float>(kN);
  const LaunchStats first = dev.launch("polynomial", kGrid, kBlock, dx, dy, kN, kTerms);
  const std::vector<float> executed = dev.download<float>(dy, kN);
  expect_polynomial(x, executed);
  for (int launch = 2; launch <= 5; ++launch) {
    dev.memory().write(dy, std::vector<float>(kN, -1.f).data(), kN * sizeof(float));
    // y is overwritten before each launch, so memory is the same every time
    // from the second on; launches 3, 4 and 5 replay.
    const LaunchStats again = dev.launch("polynomial", kGrid, kBlock, dx, dy, kN, kTerms);
    EXPECT_EQ(again.warp_instructions, first.warp_instructions);
    EXPECT_EQ(again.thread_instructions, first.thread_instructions);
    EXPECT_EQ(again.global_bytes, first.global_bytes);
    EXPECT_EQ(again.ctas, first.ctas);
    EXPECT_EQ(dev.download<float>(dy, kN), executed) << "launch " << launch;
    EXPECT_EQ(dev.executor().replayed_launches(), launch >= 3 ? launch - 2u : 0u);
  }
}

TEST(LaunchReplay, ChangedInputsOrArgumentsExecute) {
  CNUAS_REQUIRE_NVCC();
  Device dev("replay.ptx");
  std::vector<float> x = inputs(0);
  const std::uint64_t dx = dev.upload(x), dy = dev.alloc<float>(kN);
  for (int launch = 0; launch < 3; ++launch)
    dev.launch("polynomial", kGrid, kBlock, dx, dy, kN, kTerms);
  ASSERT_EQ(dev.executor().replayed_launches(), 1u);
  // One input element changed by a host copy: the launch must see it.
  x[4850] = 0.25f;
  dev.memory().write(dx + 4850 * sizeof(float), &x[4850], sizeof(float));
  dev.launch("polynomial", kGrid, kBlock, dx, dy, kN, kTerms);
  EXPECT_EQ(dev.executor().replayed_launches(), 1u);
  const std::vector<float> y = dev.download<float>(dy, kN);
  EXPECT_NEAR(y[4850], polynomial(0.25f), 1e-5 * polynomial(0.25f));
  expect_polynomial(x, y);
  // Other arguments: fewer terms.
  dev.launch("polynomial", kGrid, kBlock, dx, dy, kN, kTerms / 2);
  EXPECT_EQ(dev.executor().replayed_launches(), 1u);
  const std::vector<float> half = dev.download<float>(dy, kN);
  double want = 0;
  for (int k = 0; k < kTerms / 2; ++k) want = want * x[4850] + (k + 1);
  EXPECT_NEAR(half[4850], want, 1e-5 * want);
}

TEST(LaunchReplay, MemoryThatKeepsChangingExecutesEveryTime) {
  CNUAS_REQUIRE_NVCC();
  Device dev("replay.ptx");
  const std::vector<float> x(kN, 0.5f);
  const std::uint64_t dx = dev.upload(x), dy = dev.upload(std::vector<float>(kN, 0.f));
  for (int launch = 1; launch <= 6; ++launch) {
    dev.launch("accumulate", kGrid, kBlock, dx, dy, kN, kTerms);
    // 0.5 added kTerms times per launch: exact in float.
    const std::vector<float> y = dev.download<float>(dy, kN);
    EXPECT_EQ(y[0], 0.5f * kTerms * launch);
    EXPECT_EQ(y[kN - 1], 0.5f * kTerms * launch);
  }
  EXPECT_EQ(dev.executor().replayed_launches(), 0u);
}

TEST(LaunchReplay, HostMemoryTheDeviceSeesIsPartOfTheState) {
  CNUAS_REQUIRE_NVCC();
  Device dev("replay.ptx");
  // Adopted host memory (what mapped pinned and managed memory are): the host
  // writes it directly, without a copy the engine sees.
  std::vector<float> x = inputs(0);
  std::vector<float> y(kN, 0.f);
  dev.memory().adopt(x.data(), kN * sizeof(float));
  dev.memory().adopt(y.data(), kN * sizeof(float));
  const auto dx = reinterpret_cast<std::uint64_t>(x.data());
  const auto dy = reinterpret_cast<std::uint64_t>(y.data());
  for (int launch = 0; launch < 3; ++launch)
    dev.launch("polynomial", kGrid, kBlock, dx, dy, kN, kTerms);
  ASSERT_EQ(dev.executor().replayed_launches(), 1u);
  x[123] = 0.75f;
  dev.launch("polynomial", kGrid, kBlock, dx, dy, kN, kTerms);
  EXPECT_EQ(dev.executor().replayed_launches(), 1u);
  EXPECT_NEAR(y[123], polynomial(0.75f), 1e-5 * polynomial(0.75f));
  expect_polynomial(x, y);
}

TEST(LaunchReplay, UntouchedMemoryIsNeitherReadNorCommitted) {
  CNUAS_REQUIRE_NVCC();
  Device dev("replay.ptx");
  const std::vector<float> x = inputs(0);
  const std::uint64_t dx = dev.upload(x), dy = dev.alloc<float>(kN);
  dev.memory().allocate(1ull << 30);  // 1 GiB nobody touches
  dev.launch("polynomial", kGrid, kBlock, dx, dy, kN, kTerms);
  const std::uint64_t committed = host_backing::committed();
  for (int launch = 0; launch < 3; ++launch)
    dev.launch("polynomial", kGrid, kBlock, dx, dy, kN, kTerms);
  // Hashing 1 GiB would cost more than the launch (64 bytes per warp
  // instruction): only the touched 2 MiB page is counted, and hashing it
  // commits nothing.
  EXPECT_EQ(dev.executor().replayed_launches(), 2u);
  EXPECT_EQ(host_backing::committed(), committed);
}

TEST(LaunchReplay, LaunchesWithEffectsOutsideMemoryAlwaysExecute) {
  CNUAS_REQUIRE_NVCC();
  Device dev("replay.ptx");
  for (int launch = 0; launch < 4; ++launch)
    dev.launch("spin_and_print", Dim3{1, 1, 1}, Dim3{32, 1, 1}, 100000);
  EXPECT_EQ(dev.printed(), "counted 100000\ncounted 100000\ncounted 100000\ncounted 100000\n");
  EXPECT_EQ(dev.executor().replayed_launches(), 0u);
}

TEST(LaunchReplay, OffExecutesEveryLaunch) {
  CNUAS_REQUIRE_NVCC();
  Device dev("replay.ptx");
  dev.executor().set_launch_replay(false);
  const std::uint64_t dx = dev.upload(inputs(0)), dy = dev.alloc<float>(kN);
  for (int launch = 0; launch < 4; ++launch)
    dev.launch("polynomial", kGrid, kBlock, dx, dy, kN, kTerms);
  EXPECT_EQ(dev.executor().replayed_launches(), 0u);
}

}  // namespace
}  // namespace cnuas::ptx::testing
