// ldmatrix and wmma.load in the performance model: their tiles go through the
// shared-memory banks or the L1 as the rows they are made of, so a layout whose
// rows share banks conflicts, and a global tile costs its sectors. Expected
// wavefronts and sectors are hand counts over the unit profile's 32 banks of
// 4 bytes and 32-byte sectors.
#include <gtest/gtest.h>

#include "gpu_harness.h"

namespace cnuas::gpu::testing {
namespace {

// One warp: lane l's address is buf + l x `lane_stride` bytes; `op` reads there.
std::string shared_tile_kernel(const std::string& op, unsigned lane_stride,
                               const std::string& regs) {
  return ptx_module(
      ".visible .entry tile(.param .u64 out)\n{\n"
      "  .shared .align 16 .b8 buf[8192];\n"
      "  .reg .b32 %r<12>;\n  .reg .u64 %rd<3>;\n"
      "  ld.param.u64 %rd1, [out];\n"
      "  mov.u32 %r9, %tid.x;\n"
      "  mul.lo.u32 %r9, %r9, " +
      std::to_string(lane_stride) +
      ";\n"
      "  mov.u32 %r10, buf;\n"
      "  add.u32 %r10, %r10, %r9;\n  " +
      op + " " + regs +
      ", [%r10];\n"
      "  st.global.u32 [%rd1], %r1;\n  ret;\n}\n");
}

struct SharedCost {
  std::uint64_t accesses, wavefronts;
};

SharedCost run_shared(const std::string& ptx) {
  PerfDevice d(ptx);
  const KernelRun r = d.perf("tile", {1, 1, 1}, {32, 1, 1}, d.memory().allocate(4));
  return {r.total.shared_accesses, r.total.shared_wavefronts};
}

constexpr const char* kX4 = "ldmatrix.sync.aligned.m8n8.x4.shared.b16";
constexpr const char* kX4Regs = "{%r1, %r2, %r3, %r4}";

TEST(GpuMatrixAccess, LdmatrixRowsInConsecutiveBanksTakeOneWavefrontPer128Bytes) {
  // x4: 32 rows of 16 bytes back to back, 512 bytes over all 32 banks 4 times.
  const SharedCost x4 = run_shared(shared_tile_kernel(kX4, 16, kX4Regs));
  EXPECT_EQ(x4.accesses, 1u);
  EXPECT_EQ(x4.wavefronts, 4u);
  // x1: lanes 0-7 name the rows (128 bytes); the others' rows repeat them.
  const SharedCost x1 =
      run_shared(shared_tile_kernel("ldmatrix.sync.aligned.m8n8.x1.shared.b16", 16, "{%r1}"));
  EXPECT_EQ(x1.wavefronts, 1u);
}

TEST(GpuMatrixAccess, LdmatrixRowsOn128ByteStridesConflict) {
  // Every row starts at a multiple of 128 bytes: all 32 rows in banks 0-3,
  // 32 different words in each of them.
  EXPECT_EQ(run_shared(shared_tile_kernel(kX4, 128, kX4Regs)).wavefronts, 32u);
  // 144 bytes apart (the usual padding of 16 bytes): row l in banks 4l..4l+3
  // modulo 32, so 8 rows fill the banks once: 4 wavefronts, as unpadded.
  EXPECT_EQ(run_shared(shared_tile_kernel(kX4, 144, kX4Regs)).wavefronts, 4u);
}

// wmma.load of a 16 x 16 f16 A tile, row-major with leading dimension `ld` elements, given
// in a register or as an immediate; each lane stores its first fragment register at out[tid].
std::string wmma_kernel(const std::string& space, unsigned ld, bool immediate = false) {
  const std::string load = "wmma.load.a.sync.aligned.row.m16n16k16." + space +
                           ".f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, ";
  const std::string stride = immediate ? std::to_string(ld) : "%r11";
  std::string body =
      ".visible .entry tile(.param .u64 src, .param .u64 dst)\n{\n"
      "  .shared .align 16 .b8 buf[8192];\n"
      "  .reg .b32 %r<12>;\n  .reg .u64 %rd<4>;\n"
      "  ld.param.u64 %rd1, [dst];\n  ld.param.u64 %rd2, [src];\n";
  body += "  mov.u32 %r11, " + std::to_string(ld) + ";\n";
  if (space == "shared")
    body += "  mov.u32 %r10, buf;\n  " + load + "[%r10], " + stride + ";\n";
  else
    body += "  " + load + "[%rd2], " + stride + ";\n";
  body += "  mov.u32 %r9, %tid.x;\n  mul.wide.u32 %rd3, %r9, 4;\n  add.u64 %rd1, %rd1, %rd3;\n";
  body += "  st.global.u32 [%rd1], %r1;\n  ret;\n}\n";
  return ptx_module(body);
}

TEST(GpuMatrixAccess, WmmaLoadFromSharedGoesThroughTheBanksAsItsRows) {
  auto wavefronts = [](unsigned ld) {
    PerfDevice d(wmma_kernel("shared", ld));
    const KernelRun r =
        d.perf("tile", {1, 1, 1}, {32, 1, 1}, d.memory().allocate(4), d.memory().allocate(32 * 4));
    EXPECT_EQ(r.total.shared_accesses, 1u);
    return r.total.shared_wavefronts;
  };
  // 16 rows of 32 bytes back to back: 512 bytes, 4 wavefronts.
  EXPECT_EQ(wavefronts(16), 4u);
  // Rows 128 bytes apart: all 16 in banks 0-7, 16 words in each.
  EXPECT_EQ(wavefronts(64), 16u);
}

TEST(GpuMatrixAccess, WmmaLoadFromGlobalCostsItsSectors) {
  auto sectors = [](unsigned ld) {
    PerfDevice d(wmma_kernel("global", ld));
    const std::uint64_t in = d.memory().allocate(16 * 256 * 2, 256);
    const KernelRun r = d.perf("tile", {1, 1, 1}, {32, 1, 1}, in, d.memory().allocate(32 * 4));
    EXPECT_EQ(r.total.unit_instructions[static_cast<std::size_t>(Unit::Tensor)], 0u);
    return r.total.l1_hits + r.total.l1_misses;
  };
  // 512 contiguous bytes: 16 sectors. Rows 512 bytes apart: each row's 32
  // bytes are one sector of its own line, 16 in all, in 16 lines.
  EXPECT_EQ(sectors(16), 16u);
  EXPECT_EQ(sectors(256), 16u);
}

TEST(GpuMatrixAccess, AnImmediateStrideIsAnElementCountLikeARegisterOne) {
  // The instruction's type is f16, but its stride is an integer: 256 elements, not the bits
  // of 256.0 in f16.
  std::vector<std::uint16_t> tile(16 * 256);
  for (std::size_t e = 0; e < tile.size(); ++e) tile[e] = static_cast<std::uint16_t>(e * 7 + 1);
  auto fragments = [&](bool immediate) {
    PerfDevice d(wmma_kernel("global", 256, immediate));
    const std::uint64_t in = d.upload(tile), out = d.memory().allocate(32 * 4);
    d.perf("tile", {1, 1, 1}, {32, 1, 1}, in, out);
    return d.download<std::uint32_t>(out, 32);
  };
  const std::vector<std::uint32_t> by_register = fragments(false);
  EXPECT_EQ(fragments(true), by_register);
  // Every word a lane holds is two elements of the tile's 16 rows of 16.
  for (std::uint32_t w : by_register) {
    const std::size_t first = static_cast<std::uint16_t>(w) / 7;
    EXPECT_EQ(static_cast<std::uint16_t>(w), tile[first]);
    EXPECT_LT(first % 256, 16u);
    EXPECT_LT(first / 256, 16u);
  }
}

}  // namespace
}  // namespace cnuas::gpu::testing
