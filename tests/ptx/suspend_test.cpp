// A grid that can never finish by itself (its CTAs spin on memory nothing in
// the grid writes) stops into LaunchConfig::suspend_into, or faults without
// one; a grid that waits for its own later CTAs, or spins while its state
// changes, is not taken for one. Hand-written PTX, host references.
#include <sstream>

#include "ptx/errors.h"
#include "ptx_harness.h"

namespace cnuas::ptx::testing {
namespace {

// CTA 1 spins until *flag is nonzero; every thread then writes
// out[cta * ntid + tid] = cta * 100 + tid + (the flag CTA 1 saw, 0 elsewhere).
const char* kWaitFlag = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry wait_flag(.param .u64 flag, .param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [flag];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r5, 0;
  setp.ne.u32 %p1, %r1, 1;
  @%p1 bra $Lwrite;
$Lspin:
  ld.volatile.global.u32 %r5, [%rd1];
  setp.eq.u32 %p2, %r5, 0;
  @%p2 bra $Lspin;
$Lwrite:
  mad.lo.u32 %r6, %r1, 100, %r2;
  add.u32 %r6, %r6, %r5;
  mad.lo.u32 %r7, %r1, %r3, %r2;
  mul.wide.u32 %rd3, %r7, 4;
  add.u64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r6;
  ret;
}

// CTA b waits until flags[b + 1] is set (the last CTA does not wait), then
// sets flags[b] and records its place: CTAs finish last to first.
.visible .entry reverse_chain(.param .u64 flags, .param .u64 order, .param .u64 counter)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [flags];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [order];
  cvta.to.global.u64 %rd2, %rd2;
  ld.param.u64 %rd3, [counter];
  cvta.to.global.u64 %rd3, %rd3;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %nctaid.x;
  add.u32 %r3, %r1, 1;
  setp.ge.u32 %p1, %r3, %r2;
  @%p1 bra $Ldone_waiting;
  mul.wide.u32 %rd4, %r3, 4;
  add.u64 %rd5, %rd1, %rd4;
$Lwait:
  ld.volatile.global.u32 %r4, [%rd5];
  setp.eq.u32 %p2, %r4, 0;
  @%p2 bra $Lwait;
$Ldone_waiting:
  atom.global.add.u32 %r5, [%rd3], 1;
  mul.wide.u32 %rd6, %r1, 4;
  add.u64 %rd7, %rd2, %rd6;
  st.global.u32 [%rd7], %r5;
  add.u64 %rd8, %rd1, %rd6;
  mov.u32 %r6, 1;
  st.volatile.global.u32 [%rd8], %r6;
  ret;
}

// 1024 threads pass values round a ring in shared memory 16 times (odd
// threads adding one each time, so that warps diverge and rounds are short),
// then each writes its sum: CTAs with a large state that issue few
// instructions and write global memory only at the end.
.visible .entry ring_sums(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<14>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 ring[1024];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %r2;
  mov.u32 %r4, 0;
  mov.u32 %r5, ring;
  shl.b32 %r6, %r1, 2;
  add.u32 %r6, %r5, %r6;
  add.u32 %r7, %r1, 1;
  and.b32 %r7, %r7, 1023;
  shl.b32 %r7, %r7, 2;
  add.u32 %r7, %r5, %r7;
$Lround:
  add.u32 %r8, %r3, %r1;
  st.shared.u32 [%r6], %r8;
  bar.sync 0;
  ld.shared.u32 %r9, [%r7];
  add.u32 %r3, %r3, %r9;
  and.b32 %r11, %r1, 1;
  setp.eq.u32 %p2, %r11, 0;
  @%p2 bra $Leven;
  add.u32 %r3, %r3, 1;
$Leven:
  bar.sync 0;
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p1, %r4, 16;
  @%p1 bra $Lround;
  mad.lo.u32 %r10, %r2, 1024, %r1;
  mul.wide.u32 %rd2, %r10, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}

// Spins for ever, counting: its state changes every iteration.
.visible .entry count_forever()
{
  .reg .b32 %r<2>;
  mov.u32 %r1, 0;
$Lcount:
  add.u32 %r1, %r1, 1;
  bra.uni $Lcount;
}
)";

struct Engine {
  DeviceMemory memory;
  std::ostringstream printed;
  Executor exec{memory, printed};
  LoadedModule module{Module::parse(kWaitFlag, "suspend.ptx"), memory};
};

std::vector<std::uint8_t> pointers(std::initializer_list<std::uint64_t> ps) {
  std::vector<std::uint8_t> bytes;
  for (std::uint64_t p : ps) {
    const auto* b = reinterpret_cast<const std::uint8_t*>(&p);
    bytes.insert(bytes.end(), b, b + 8);
  }
  return bytes;
}

constexpr std::uint32_t kCtas = 4, kThreads = 64;

std::vector<std::uint32_t> read_out(Engine& r, std::uint64_t out) {
  std::vector<std::uint32_t> h(kCtas * kThreads);
  r.memory.read(out, h.data(), h.size() * 4);
  return h;
}

TEST(PtxSuspend, AGridOnlyTheHostCanReleaseStopsAndResumesWhereItStood) {
  Engine r;
  const std::uint64_t flag = r.memory.allocate(4), out = r.memory.allocate(kCtas * kThreads * 4);
  LaunchConfig cfg;
  cfg.grid = {kCtas, 1, 1};
  cfg.block = {kThreads, 1, 1};
  cfg.params = pointers({flag, out});
  GridSnapshot stopped;
  cfg.suspend_into = &stopped;
  const LaunchStats first = r.exec.launch(r.module, "wait_flag", cfg);
  ASSERT_TRUE(first.suspended);
  ASSERT_EQ(stopped.resident.size(), 1u);  // CTA 1, the only one left
  EXPECT_EQ(stopped.next_cta, kCtas);
  std::vector<std::uint32_t> h = read_out(r, out);
  for (std::uint32_t b = 0; b < kCtas; ++b)
    for (std::uint32_t t = 0; t < kThreads; ++t)
      EXPECT_EQ(h[b * kThreads + t], b == 1 ? 0u : b * 100 + t) << b << " " << t;

  // Resumed while the flag is still clear: it stops again, where it stood.
  GridSnapshot again;
  cfg.grid_resume = &stopped;
  cfg.suspend_into = &again;
  const LaunchStats second = r.exec.launch(r.module, "wait_flag", cfg);
  ASSERT_TRUE(second.suspended);
  ASSERT_EQ(again.resident.size(), 1u);

  // The host sets the flag: the resumed grid finishes.
  const std::uint32_t seven = 7;
  r.memory.write(flag, &seven, 4);
  GridSnapshot unused;
  cfg.grid_resume = &again;
  cfg.suspend_into = &unused;
  const LaunchStats last = r.exec.launch(r.module, "wait_flag", cfg);
  EXPECT_FALSE(last.suspended);
  // The parts add up: each CTA counted once (the saved slot carries its own).
  EXPECT_EQ(first.ctas + second.ctas + last.ctas, kCtas);
  h = read_out(r, out);
  for (std::uint32_t b = 0; b < kCtas; ++b)
    for (std::uint32_t t = 0; t < kThreads; ++t)
      EXPECT_EQ(h[b * kThreads + t], b * 100 + t + (b == 1 ? 7 : 0)) << b << " " << t;
}

TEST(PtxSuspend, WithoutASuspensionTargetTheSpinFaultsWhereItSpins) {
  Engine r;
  const std::uint64_t flag = r.memory.allocate(4), out = r.memory.allocate(kCtas * kThreads * 4);
  LaunchConfig cfg;
  cfg.grid = {kCtas, 1, 1};
  cfg.block = {kThreads, 1, 1};
  cfg.params = pointers({flag, out});
  try {
    r.exec.launch(r.module, "wait_flag", cfg);
    FAIL() << "a grid spinning on memory nothing writes finished";
  } catch (const ExecutionError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("kernel wait_flag, CTA (1,0,0)"), std::string::npos) << m;
    EXPECT_NE(m.find("the grid can never finish"), std::string::npos) << m;
    // The spin loop's lines (suspend.ptx lines 20-22), not the stores after it.
    EXPECT_TRUE(m.find("PTX line 20") != std::string::npos ||
                m.find("PTX line 21") != std::string::npos ||
                m.find("PTX line 22") != std::string::npos)
        << m;
  }
}

TEST(PtxSuspend, CtasWaitingForLaterCtasOfTheirGridAreNotSuspended) {
  Engine r;
  constexpr std::uint32_t n = 5;
  const std::uint64_t flags = r.memory.allocate(n * 4), order = r.memory.allocate(n * 4),
                      counter = r.memory.allocate(4);
  LaunchConfig cfg;
  cfg.grid = {n, 1, 1};
  cfg.block = {1, 1, 1};
  cfg.resident_ctas = n;
  cfg.params = pointers({flags, order, counter});
  GridSnapshot stopped;
  cfg.suspend_into = &stopped;
  const LaunchStats stats = r.exec.launch(r.module, "reverse_chain", cfg);
  EXPECT_FALSE(stats.suspended);
  EXPECT_EQ(stats.ctas, n);
  std::vector<std::uint32_t> h(n);
  r.memory.read(order, h.data(), n * 4);
  for (std::uint32_t b = 0; b < n; ++b) EXPECT_EQ(h[b], n - 1 - b) << b;
}

TEST(PtxSuspend, ASpinWhoseStateChangesRunsToTheInstructionLimit) {
  Engine r;
  LaunchConfig cfg;
  cfg.block = {32, 1, 1};
  cfg.instruction_limit = 200000;
  GridSnapshot stopped;
  cfg.suspend_into = &stopped;
  try {
    r.exec.launch(r.module, "count_forever", cfg);
    FAIL() << "an endless loop finished";
  } catch (const ExecutionError& e) {
    EXPECT_NE(std::string(e.what()).find("instruction limit of 200000"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(stopped.resident.empty());
}

// The proof that a group cycles copies its whole state, so it is made at most
// once per state byte of warp instructions issued: a grid of CTAs that each
// issue fewer instructions than their state has bytes pays about one copy in
// all, not one per CTA (it paid one per CTA once: four times the execution of
// a 32 x 32-thread tiled matrix product).
TEST(PtxSuspend, ProvingACycleCostsAboutOneStateCopyPerStateByteOfInstructions) {
  Engine r;
  constexpr std::uint32_t ctas = 64, threads = 1024, rounds = 16;
  const std::uint64_t out = r.memory.allocate(ctas * threads * 4);
  LaunchConfig cfg;
  cfg.block = {threads, 1, 1};
  cfg.params = pointers({out});
  cfg.grid = {1, 1, 1};
  const LaunchStats one = r.exec.launch(r.module, "ring_sums", cfg);
  ASSERT_GT(one.state_bytes_compared, 0u);  // the watch looks at a CTA running alone
  cfg.grid = {ctas, 1, 1};
  const LaunchStats many = r.exec.launch(r.module, "ring_sums", cfg);
  EXPECT_LE(many.state_bytes_compared, one.state_bytes_compared + many.warp_instructions);

  std::vector<std::uint32_t> h(ctas * threads);
  r.memory.read(out, h.data(), h.size() * 4);
  for (std::uint32_t b = 0; b < ctas; ++b) {
    std::vector<std::uint32_t> acc(threads, b), ring(threads);
    for (std::uint32_t k = 0; k < rounds; ++k) {
      for (std::uint32_t t = 0; t < threads; ++t) ring[t] = acc[t] + t;
      for (std::uint32_t t = 0; t < threads; ++t) acc[t] += ring[(t + 1) % threads] + t % 2;
    }
    for (std::uint32_t t = 0; t < threads; ++t)
      ASSERT_EQ(h[b * threads + t], acc[t]) << b << " " << t;
  }
}

}  // namespace
}  // namespace cnuas::ptx::testing
