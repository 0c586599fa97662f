// The bulk copy family at the engine's level: a tiled load through a tensor map in global memory
// (a closed-form expectation), the swizzle pattern at hand-computed offsets, and what a bad
// tensor map or an unsupported form reports.
#include "ptx/tensor_map.h"
#include "ptx_harness.h"

namespace cnuas::ptx::testing {
namespace {

const char* kKernels = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry load(.param .u64 map, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<3>;
  .shared .align 128 .b8 box[256];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [map];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, box;
  mov.u32 %r2, bar;
  mov.u32 %r3, 8;
  mov.u32 %r4, %tid.x;
  setp.eq.u32 %p1, %r4, 0;
  @%p1 mbarrier.init.shared.b64 [%r2], 1;
  @%p1 mbarrier.arrive.expect_tx.shared.b64 _, [%r2], 64;
  @%p1 cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r3}], [%r2];
  bar.sync 0;
WAIT:
  mbarrier.try_wait.parity.shared.b64 %p2, [%r2], 0;
  @!%p2 bra WAIT;
  shl.b32 %r5, %r4, 2;
  add.u32 %r6, %r1, %r5;
  ld.shared.u32 %r7, [%r6];
  mul.wide.u32 %rd3, %r4, 4;
  add.u64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r7;
  ret;
}
.visible .entry wrong_rank(.param .u64 map, .param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  .shared .align 128 .b8 box[256];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [map];
  mov.u32 %r1, box;
  mov.u32 %r2, bar;
  mov.u32 %r3, 0;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r3, %r3}], [%r2];
  ret;
}
.visible .entry param_generic(.param .u64 out, .param .align 8 .b8 blob[16])
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<5>;
  mov.b64 %rd1, blob;
  cvta.param.u64 %rd2, %rd1;
  ld.u32 %r1, [%rd2+8];
  ld.param.u32 %r2, [%rd2+12];
  ld.param.u64 %rd3, [out];
  st.global.u32 [%rd3], %r1;
  st.global.u32 [%rd3+4], %r2;
  ret;
}
.visible .entry gather(.param .u64 map, .param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  .shared .align 128 .b8 box[256];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [map];
  mov.u32 %r1, box;
  mov.u32 %r2, bar;
  mov.u32 %r3, 0;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r3, %r3, %r3, %r3, %r3}], [%r2];
  ret;
}
)";

struct BulkRun {
  DeviceMemory memory;
  std::ostringstream out;
  Executor exec{memory, out};
  std::shared_ptr<const Module> module = Module::parse(kKernels, "bulk.ptx");
  LoadedModule loaded{module, memory};
  std::string launch(const std::string& kernel, std::uint64_t map, std::uint64_t dst) {
    LaunchConfig cfg;
    cfg.grid = {1, 1, 1};
    cfg.block = {16, 1, 1};
    cfg.params.resize(16);
    std::memcpy(cfg.params.data(), &map, 8);
    std::memcpy(cfg.params.data() + 8, &dst, 8);
    try {
      exec.launch(loaded, kernel, cfg);
    } catch (const ExecutionError& e) {
      return e.what();
    }
    return "";
  }
};

// A rank-1 u32 tensor of 20 elements (100 + j) read as a box of 16 from coordinate 8: elements
// 8..19 exist, the last four box elements lie past the end and read zero.
TEST(BulkCopy, TiledLoadThroughAMapInGlobalMemory) {
  BulkRun r;
  std::vector<std::uint32_t> data(20);
  for (std::uint32_t j = 0; j < 20; ++j) data[j] = 100 + j;
  const std::uint64_t tensor = r.memory.allocate(data.size() * 4);
  r.memory.write(tensor, data.data(), data.size() * 4);
  TensorMap m;
  m.data_type = 2;  // CU_TENSOR_MAP_DATA_TYPE_UINT32
  m.rank = 1;
  m.address = tensor;
  m.dims[0] = 20;
  m.box[0] = 16;
  ASSERT_EQ(tensor_map_problem(m), "");
  std::uint8_t bytes[kTensorMapBytes];
  encode_tensor_map(m, bytes);
  const std::uint64_t map = r.memory.allocate(kTensorMapBytes);
  r.memory.write(map, bytes, kTensorMapBytes);
  const std::uint64_t out = r.memory.allocate(64);
  ASSERT_EQ(r.launch("load", map, out), "");
  std::vector<std::uint32_t> got(16);
  r.memory.read(out, got.data(), 64);
  for (std::uint32_t i = 0; i < 16; ++i) EXPECT_EQ(got[i], i + 8 < 20 ? 108 + i : 0u) << i;
}

TEST(BulkCopy, BadMapsAndUnsupportedFormsAreNamed) {
  BulkRun r;
  const std::uint64_t zeros = r.memory.allocate(kTensorMapBytes);
  std::string e = r.launch("load", zeros, 0);
  EXPECT_NE(e.find("does not point to a tensor map"), std::string::npos) << e;
  EXPECT_NE(e.find("PTX line"), std::string::npos) << e;
  TensorMap m;
  m.data_type = 2;
  m.rank = 1;
  m.address = zeros;
  m.dims[0] = 32;
  m.box[0] = 16;
  std::uint8_t bytes[kTensorMapBytes];
  encode_tensor_map(m, bytes);
  const std::uint64_t map = r.memory.allocate(kTensorMapBytes);
  r.memory.write(map, bytes, kTensorMapBytes);
  e = r.launch("wrong_rank", map, 0);
  EXPECT_NE(e.find("a .2d tensor copy with a tensor map of rank 1"), std::string::npos) << e;
  e = r.launch("gather", map, 0);
  EXPECT_NE(e.find("modifier .tile::gather4"), std::string::npos) << e;
}

// A kernel parameter's cvta.param address (how a __grid_constant__ tensor map reaches
// cp.async.bulk.tensor) reads the parameter through a generic load and through ld.param.
TEST(BulkCopy, GenericAddressesOfKernelParameters) {
  BulkRun r;
  const std::uint64_t out = r.memory.allocate(8);
  // out at offset 0, blob at 8: its words 2 and 3 are the launch's bytes 16-23.
  LaunchConfig cfg;
  cfg.grid = {1, 1, 1};
  cfg.block = {1, 1, 1};
  cfg.params.resize(24);
  std::memcpy(cfg.params.data(), &out, 8);
  const std::uint32_t words[2] = {0xabcd0123u, 0x456789efu};
  std::memcpy(cfg.params.data() + 16, words, 8);
  r.exec.launch(r.loaded, "param_generic", cfg);
  std::uint32_t got[2];
  r.memory.read(out, got, 8);
  EXPECT_EQ(got[0], words[0]);
  EXPECT_EQ(got[1], words[1]);
}

// Hand-computed: the 16-byte chunk (bits 4..) XOR the 128-byte row (bits 7..), over 1, 2 or 3 bits.
TEST(BulkCopy, SwizzlePermutesChunksWithinRows) {
  EXPECT_EQ(swizzled_offset(0, 0x90), 0x90u);    // none
  EXPECT_EQ(swizzled_offset(1, 0x80), 0x90u);    // 32B: row 1 flips chunk bit 0
  EXPECT_EQ(swizzled_offset(1, 0x100), 0x100u);  // 32B: row 2 has bit 7 clear
  EXPECT_EQ(swizzled_offset(2, 0x90), 0x80u);    // 64B: row 1, chunk 1 -> 0
  EXPECT_EQ(swizzled_offset(2, 0x104), 0x124u);  // 64B: row 2, chunk 0 -> 2, byte 4 kept
  EXPECT_EQ(swizzled_offset(3, 0x3f0), 0x380u);  // 128B: row 7, chunk 7 -> 0
  EXPECT_EQ(swizzled_offset(3, 0x4a8), 0x4b8u);  // 128B: row 9 (low bits 1), chunk 2 -> 3
}

}  // namespace
}  // namespace cnuas::ptx::testing
