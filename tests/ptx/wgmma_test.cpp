// wgmma: the shared-memory matrix descriptor and the addresses of its
// canonical layouts, checked against addresses computed by hand from the PTX
// ISA's description (each case spells out its arithmetic); and the operand
// lists the parser accepts and rejects. The products themselves are checked
// against host GEMMs by tests/cuda/wgmma_gemm.cu.
#include <gtest/gtest.h>

#include "ptx/errors.h"
#include "ptx/ir.h"
#include "ptx/wgmma_layout.h"

namespace cnuas::ptx::testing {
namespace {

TEST(PtxWgmmaDescriptor, FieldsDecodeFromTheirBits) {
  // start 1024 (0x40 in 16-byte units, bits 0-13), leading 16 (1, bits 16-29),
  // stride 1024 (0x40, bits 32-45), base offset 5 (bits 49-51), swizzle 1 = 128B (bits 62-63).
  const std::uint64_t bits = 0x40ull | (1ull << 16) | (0x40ull << 32) | (5ull << 49) | (1ull << 62);
  const WgmmaDescriptor d = decode_wgmma_descriptor(bits);
  EXPECT_EQ(d.start, 1024u);
  EXPECT_EQ(d.leading, 16u);
  EXPECT_EQ(d.stride, 1024u);
  EXPECT_EQ(d.base_offset, 5u);
  EXPECT_EQ(d.swizzle, WgmmaSwizzle::B128);
  // Bits 14-15, 30-31, 46-48 and 52-61 are not fields; the swizzle codes 2 and 3 are 64B, 32B.
  const WgmmaDescriptor e =
      decode_wgmma_descriptor((3ull << 14) | (3ull << 30) | (7ull << 46) | (2ull << 62));
  EXPECT_EQ(e.start, 0u);
  EXPECT_EQ(e.leading, 0u);
  EXPECT_EQ(e.stride, 0u);
  EXPECT_EQ(e.swizzle, WgmmaSwizzle::B64);
  EXPECT_EQ(decode_wgmma_descriptor(3ull << 62).swizzle, WgmmaSwizzle::B32);
  // 14 bits of start: 0x3fff units = 262128 bytes, the top of a 256 KiB window.
  EXPECT_EQ(decode_wgmma_descriptor(0xffffull).start, 0x3fffu * 16);
}

TEST(PtxWgmmaDescriptor, SwizzleXorsChunkBitsWithRowBits) {
  // 128B: 1187 = 0x4a3: row bits 7-9 = 1, chunk bits 4-6 = 2 -> chunk 3: 1187 + 16 = 1203.
  EXPECT_EQ(swizzle_address(1187, WgmmaSwizzle::B128), 1203u);
  // 64B: 464 = 0x1d0: row bits 7-8 = 3, chunk bits 4-5 = 1 -> chunk 2: 480.
  EXPECT_EQ(swizzle_address(464, WgmmaSwizzle::B64), 480u);
  // 32B: 400 = 0x190: row bit 7 = 1, chunk bit 4 = 1 -> 0: 384.
  EXPECT_EQ(swizzle_address(400, WgmmaSwizzle::B32), 384u);
  // No swizzle leaves the address alone; row 0 of any pattern too.
  EXPECT_EQ(swizzle_address(1187, WgmmaSwizzle::None), 1187u);
  EXPECT_EQ(swizzle_address(1024 + 48 + 5, WgmmaSwizzle::B128), 1024u + 48 + 5);
}

TEST(PtxWgmmaDescriptor, KMajorAddresses) {
  WgmmaDescriptor d;
  // 128B, f16, start 1024, stride 1024: (mn 9, k 10) is 8-row group 1, row 1, byte 20 =
  // chunk 1 + 4; chunk 1 ^ row 1 = 0: 1024 + 1024 + 128 + 0 + 4 = 2180.
  d.start = 1024;
  d.stride = 1024;
  d.swizzle = WgmmaSwizzle::B128;
  EXPECT_EQ(wgmma_smem_address(d, 9, 10, 2, false), 2180u);
  // The same tile 32 bytes further on (the next k16 step): (mn 9, k 2) reads byte 32 + 4 of
  // row 9 = chunk 2; 2 ^ 1 = 3: 2048 + 128 + 48 + 4 = 2228.
  d.start = 1024 + 32;
  EXPECT_EQ(wgmma_smem_address(d, 9, 2, 2, false), 2228u);
  // No swizzle, tf32, start 0, leading 256, stride 128: (mn 13, k 6) is core matrix
  // (1, 1) row 5, element 2: 128 + 256 + 5 * 16 + 2 * 4 = 472.
  WgmmaDescriptor n;
  n.leading = 256;
  n.stride = 128;
  EXPECT_EQ(wgmma_smem_address(n, 13, 6, 4, false), 472u);
  // 32B, 8-bit, start 512, stride 256: (mn 12, k 21) is group 1, row 4 (4 * 32 = 128),
  // byte 21 = chunk 1 + 5; row bit 7 of 512 + 256 + 128 + 21 = 917 is 1: chunk 0 -> 901.
  WgmmaDescriptor s;
  s.start = 512;
  s.stride = 256;
  s.swizzle = WgmmaSwizzle::B32;
  EXPECT_EQ(wgmma_smem_address(s, 12, 21, 1, false), 901u);
}

TEST(PtxWgmmaDescriptor, MnMajorAddresses) {
  // 128B, f16, leading 8192 (next 64 of MN), stride 1024 (next 8 of K): (mn 70, k 11) is
  // MN block 1, K group 1, row 3, byte 12 = chunk 0; 0 ^ 3 = 3:
  // 8192 + 1024 + 384 + 48 + 12 = 9660.
  WgmmaDescriptor d;
  d.leading = 8192;
  d.stride = 1024;
  d.swizzle = WgmmaSwizzle::B128;
  EXPECT_EQ(wgmma_smem_address(d, 70, 11, 2, true), 9660u);
  // No swizzle, f16, leading 512 (next 8 of K), stride 128 (next 8 of MN): (mn 21, k 9) is
  // MN block 2, K group 1, row 1, element 5: 256 + 512 + 16 + 10 = 794.
  WgmmaDescriptor n;
  n.leading = 512;
  n.stride = 128;
  EXPECT_EQ(wgmma_smem_address(n, 21, 9, 2, true), 794u);
  // 64B, tf32, leading 4096, stride 512: (mn 19, k 10): MN block 1 (16 per 64 bytes), K group
  // 1, row 2, element 3 = byte 12: 4096 + 512 + 128 + 12 = 4748; row bits 7-8 of 4748 are
  // (4748 >> 7) & 3 = 1, chunk 0 -> 1: 4764.
  WgmmaDescriptor s;
  s.leading = 4096;
  s.stride = 512;
  s.swizzle = WgmmaSwizzle::B64;
  EXPECT_EQ(wgmma_smem_address(s, 19, 10, 4, true), 4764u);
}

TEST(PtxWgmmaDescriptor, BaseOffsetMustMatchTheStartAddressPhase) {
  WgmmaDescriptor d;
  d.swizzle = WgmmaSwizzle::B128;
  d.start = 0x100;  // row phase (0x100 >> 7) & 7 = 2
  d.base_offset = 2;
  EXPECT_EQ(wgmma_descriptor_problem(d), "");
  d.base_offset = 0;
  EXPECT_EQ(wgmma_descriptor_problem(d), "");
  d.base_offset = 3;
  const std::string why = wgmma_descriptor_problem(d);
  EXPECT_NE(why.find("base offset 3"), std::string::npos) << why;
  EXPECT_NE(why.find("= 2"), std::string::npos) << why;
  d.swizzle = WgmmaSwizzle::None;  // no swizzle: the base offset is not used
  EXPECT_EQ(wgmma_descriptor_problem(d), "");
}

// A kernel with every wgmma form the engine runs: all load with nothing unsupported.
const char* kWgmmaModule = R"(
.version 8.0
.target sm_90a
.address_size 64
.visible .entry forms(.param .u64 p)
{
  .reg .pred %p<2>;
  .reg .b32 %r<140>;
  .reg .f32 %f<140>;
  .reg .b64 %rd<4>;
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, %p1, 1, 1, 0, 1;
  wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%r0, %r1}, {%r4, %r5, %r6, %r7}, %rd2, 1, 1, -1, 1;
  wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%f0, %f1, %f2, %f3}, %rd1, %rd2, %p1, 1, 1;
  wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e4m3 {%f0, %f1, %f2, %f3}, %rd1, %rd2, 0, 1, 1;
  wgmma.mma_async.sync.aligned.m64n16k32.s32.u8.s8 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, %rd1, %rd2, %p1;
  wgmma.mma_async.sync.aligned.m64n8k32.satfinite.s32.s8.s8 {%r0, %r1, %r2, %r3}, %rd1, %rd2, %p1;
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 1;
  ret;
}
)";

TEST(PtxWgmmaGrammar, EveryDenseFormLoadsAndRuns) {
  auto m = Module::parse(kWgmmaModule, "wgmma.ptx");
  for (const auto& u : m->unsupported())
    ADD_FAILURE() << u.line << " " << u.text << ": " << u.reason;
  const Function* f = m->find("forms");
  ASSERT_NE(f, nullptr);
  // The second wgmma (A in registers): scale-a 1, scale-b -1, trans-b 1 went into the matrix.
  const Instruction& regs_a = f->code[2];
  EXPECT_EQ(regs_a.matrix.scale_a, 1);
  EXPECT_EQ(regs_a.matrix.scale_b, -1);
  EXPECT_TRUE(regs_a.matrix.trans_b);
  EXPECT_EQ(regs_a.nops, 4);
  EXPECT_EQ(regs_a.ops[1].regs.size(), 4u);
  EXPECT_EQ(f->code[1].matrix.n, 8);
  EXPECT_TRUE(f->code[1].matrix.trans_b);
  EXPECT_FALSE(f->code[1].matrix.trans);
}

std::string wgmma_parse_error(const std::string& statement) {
  const std::string text = std::string(".version 8.0\n.target sm_90a\n.address_size 64\n") +
                           ".visible .entry k()\n{\n  .reg .pred %p<2>;\n  .reg .f32 %f<4>;\n" +
                           "  .reg .b64 %rd<4>;\n  " + statement + "\n  ret;\n}\n";
  try {
    Module::parse(text, "bad.ptx");
  } catch (const ParseError& e) {
    return std::to_string(e.line) + ":" + std::to_string(e.column) + " " + e.what();
  }
  return "";
}

TEST(PtxWgmmaGrammar, MalformedOperandListsNameTheOperand) {
  // Line 9 holds the statement; operand columns count from its first character at column 3.
  // One immediate too few for f16 with A in shared memory (8 operands): points at the last.
  std::string e = wgmma_parse_error(
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, "
      "%p1, 1, 1, 0;");
  EXPECT_NE(e.find("takes 8 operands"), std::string::npos) << e;
  EXPECT_NE(e.find("not 7"), std::string::npos) << e;
  // A scale of 2: names the rule and points at the operand (column of "2").
  e = wgmma_parse_error(
      "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%f0, %f1, %f2, %f3}, %rd1, %rd2, "
      "%p1, 2, 1;");
  EXPECT_NE(e.find("imm-scale-a/b must be 1 or -1"), std::string::npos) << e;
  EXPECT_EQ(e.rfind("9:", 0), 0u) << e;
  const std::size_t col = std::string(
                              "  wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 "
                              "{%f0, %f1, %f2, %f3}, %rd1, %rd2, %p1, ")
                              .size() +
                          1;
  EXPECT_EQ(e.rfind("9:" + std::to_string(col), 0), 0u) << e;
  e = wgmma_parse_error("wgmma.wait_group.sync.aligned %rd1;");
  EXPECT_NE(e.find("one operand, an integer constant"), std::string::npos) << e;
}

TEST(PtxWgmmaGrammar, SparseFormsLoadWithMetadataAndSelector) {
  const std::string text = R"(
.version 8.0
.target sm_90a
.address_size 64
.visible .entry k()
{
  .reg .pred %p<2>;
  .reg .b32 %r<20>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<4>;
  wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, %r9, 1, %p1, 1, 1, 0, 0;
  wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.bf16.bf16 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, %rd2, %r9, 0, %p1, 1, -1, 1;
  wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32 {%f0, %f1, %f2, %f3}, %rd1, %rd2, %r9, 1, %p1, 1, 1;
  wgmma.mma_async.sp.sync.aligned.m64n8k64.f16.e5m2.e4m3 {%r0, %r1}, %rd1, %rd2, %r9, 0, 1, 1, 1;
  wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.u8 {%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7}, %rd2, %r9, 0, %p1;
  ret;
}
)";
  auto m = Module::parse(text, "sparse.ptx");
  for (const auto& u : m->unsupported())
    ADD_FAILURE() << u.line << " " << u.text << ": " << u.reason;
  const Function* f = m->find("k");
  ASSERT_NE(f, nullptr);
  // d, a, b, scale-d in ops[0..3]; metadata and selector in ops[4], ops[5].
  const Instruction& bf16 = f->code[1];
  EXPECT_TRUE(bf16.matrix.sparse);
  EXPECT_EQ(bf16.nops, 6);
  EXPECT_EQ(bf16.ops[5].imm, 0);
  EXPECT_EQ(bf16.matrix.scale_b, -1);
  EXPECT_TRUE(bf16.matrix.trans_b);
  EXPECT_EQ(f->code[0].ops[5].imm, 1);
  // The 8-bit forms keep all four threads' metadata: only selector 0 exists; f16 has 0 and 1.
  std::string e = wgmma_parse_error(
      "wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e4m3.e4m3 {%f0, %f1, %f2, %f3}, %rd1, %rd2, "
      "%rd3, 1, %p1, 1, 1;");
  EXPECT_NE(e.find("sp-sel must be an integer constant, 0 for .e4m3"), std::string::npos) << e;
  e = wgmma_parse_error(
      "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, "
      "%rd3, 2, %p1, 1, 1, 0, 0;");
  EXPECT_NE(e.find("0 or 1 for .f16"), std::string::npos) << e;
  // The dense K is not a sparse shape.
  auto dense_k = Module::parse(
      ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n"
      ".reg .pred %p<2>;\n.reg .b32 %r<4>;\n.reg .f32 %f<4>;\n.reg .b64 %rd<4>;\n"
      "wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, "
      "%r1, 0, %p1, 1, 1, 0, 0;\nret;\n}\n",
      "k.ptx");
  ASSERT_EQ(dense_k->unsupported().size(), 1u);
  EXPECT_NE(dense_k->unsupported()[0].reason.find("shape m64nNk32"), std::string::npos)
      << dense_k->unsupported()[0].reason;
}

TEST(PtxWgmmaGrammar, FormsTheIsaLacksAreUnsupportedWithTheReason) {
  const std::string text = R"(
.version 8.0
.target sm_90a
.address_size 64
.visible .entry k()
{
  .reg .pred %p<2>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<4>;
  wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, %p1, 1, 1, 0, 0;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, %p1, 1, 1, 0, 0;
  wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8 {%f0, %f1, %f2, %f3}, %rd1, %rd2, %p1;
  wgmma.mma_async.sync.aligned.m64n8k16.f16.bf16.bf16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, %p1, 1, 1, 0, 0;
  ret;
}
)";
  auto m = Module::parse(text, "forms.ptx");
  const auto u = m->unsupported();
  ASSERT_EQ(u.size(), 4u);
  EXPECT_NE(u[0].reason.find("N: 8 to 256 in steps of 8"), std::string::npos) << u[0].reason;
  EXPECT_NE(u[1].reason.find("A and B"), std::string::npos) << u[1].reason;
  EXPECT_NE(u[2].reason.find("then 48 to 256 in steps of 16"), std::string::npos) << u[2].reason;
  EXPECT_NE(u[3].reason.find("f32 for bf16"), std::string::npos) << u[3].reason;
}

}  // namespace
}  // namespace cnuas::ptx::testing
