// The scoreboard's view of an instruction: exactly which registers it reads
// and which it writes, decoded from parsed PTX. The expected sets come from
// the PTX ISA's operand roles, written out by register name.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "gpu/warp_deps.h"
#include "kernels.h"
#include "ptx/ir.h"

namespace cnuas::gpu::testing {
namespace {

using Names = std::set<std::string>;

// A kernel whose body is `body`, with registers enough for every test:
// %r0..%r39 (.b32), %rd0..%rd7, %f0..%f39, %p0..%p7.
class Body {
 public:
  explicit Body(const std::string& body, const std::string& before = "")
      : module_(ptx::Module::parse(ptx_module(before + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<40>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<40>;
  .reg .pred %p<8>;
)" + body + "\n  ret;\n}\n"),
                                   "deps.ptx")) {}

  const ptx::Function& kernel() const { return *module_->find("k"); }
  // The deps of the instruction at `pc` of the kernel.
  WarpDeps at(std::size_t pc) const { return DepsCache::decode(kernel().code.at(pc)); }
  Names names(WarpDeps::Regs regs) const {
    Names out;
    for (std::int32_t r : regs) out.insert(kernel().registers.at(static_cast<std::size_t>(r)).name);
    return out;
  }
  Names reads(std::size_t pc) const { return names(at(pc).reads()); }
  Names writes(std::size_t pc) const { return names(at(pc).writes()); }

 private:
  std::shared_ptr<const ptx::Module> module_;
};

// "%f" 1..8 -> {"%f1", ..., "%f8"}, and the same as PTX text "{%f1, ..., %f8}".
Names range(const std::string& prefix, int first, int count) {
  Names n;
  for (int i = first; i < first + count; ++i) n.insert(prefix + std::to_string(i));
  return n;
}
std::string vec(const std::string& prefix, int first, int count) {
  std::string s = "{";
  for (int i = first; i < first + count; ++i)
    s += (i == first ? "" : ", ") + prefix + std::to_string(i);
  return s + "}";
}
Names join(std::initializer_list<Names> parts) {
  Names n;
  for (const Names& p : parts) n.insert(p.begin(), p.end());
  return n;
}

TEST(WarpDeps, WmmaMmaF32ReadsAllOfABAndCAndWritesD) {
  // m16n16k16 with f16 inputs and f32 accumulators: A and B are 8 f16x2
  // registers each, C and D 8 f32 registers each: 24 read, 8 written, 32 in all.
  const Body b("  wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 " + vec("%f", 1, 8) + ", " +
               vec("%r", 1, 8) + ", " + vec("%r", 9, 8) + ", " + vec("%f", 11, 8) + ";");
  EXPECT_EQ(b.reads(0), join({range("%r", 1, 16), range("%f", 11, 8)}));
  EXPECT_EQ(b.writes(0), range("%f", 1, 8));
  EXPECT_EQ(b.at(0).reads().size(), 24u);
  EXPECT_EQ(b.at(0).unit, ptx::UnitClass::Tensor);
}

TEST(WarpDeps, WmmaMmaInPlaceReadsAndWritesTheAccumulator) {
  // D and C the same eight registers: each is both read and written.
  const Body b("  wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 " + vec("%f", 1, 8) + ", " +
               vec("%r", 1, 8) + ", " + vec("%r", 9, 8) + ", " + vec("%f", 1, 8) + ";");
  EXPECT_EQ(b.reads(0), join({range("%r", 1, 16), range("%f", 1, 8)}));
  EXPECT_EQ(b.writes(0), range("%f", 1, 8));
}

TEST(WarpDeps, WmmaLoadWritesTheFragmentAndStoreWritesNothing) {
  const Body b("  wmma.load.a.sync.aligned.row.m16n16k16.global.f16 " + vec("%r", 1, 8) +
               ", [%rd1], %r20;\n"
               "  wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd2], " +
               vec("%f", 1, 8) + ", %r20;");
  EXPECT_EQ(b.reads(0), Names({"%rd1", "%r20"}));
  EXPECT_EQ(b.writes(0), range("%r", 1, 8));
  // The store's address comes first, but is an input like its data and stride.
  EXPECT_EQ(b.reads(1), join({Names{"%rd2", "%r20"}, range("%f", 1, 8)}));
  EXPECT_EQ(b.writes(1), Names());
}

TEST(WarpDeps, MmaSyncReadsABAndCAndWritesD) {
  // m16n8k16 f16 -> f32: D and C four f32 registers, A four and B two f16x2.
  const Body b("  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 " + vec("%f", 1, 4) + ", " +
               vec("%r", 1, 4) + ", " + vec("%r", 5, 2) + ", " + vec("%f", 5, 4) + ";");
  EXPECT_EQ(b.reads(0), join({range("%r", 1, 6), range("%f", 5, 4)}));
  EXPECT_EQ(b.writes(0), range("%f", 1, 4));
}

TEST(WarpDeps, BarRedWritesItsDestinationAndReadsItsPredicate) {
  const Body b(
      "  bar.red.popc.u32 %r1, 0, %p1;\n"
      "  bar.red.and.pred %p2, 1, 64, !%p3;\n"
      "  barrier.red.or.pred %p4, %r2, %r3, %p5;\n"
      "  bar.sync %r4;\n"
      "  bar.arrive 2, %r5;");
  EXPECT_EQ(b.writes(0), Names({"%r1"}));
  EXPECT_EQ(b.reads(0), Names({"%p1"}));
  EXPECT_EQ(b.writes(1), Names({"%p2"}));
  EXPECT_EQ(b.reads(1), Names({"%p3"}));
  EXPECT_EQ(b.writes(2), Names({"%p4"}));
  EXPECT_EQ(b.reads(2), Names({"%r2", "%r3", "%p5"}));
  // Without .red, the barrier id and count are inputs.
  EXPECT_EQ(b.writes(3), Names());
  EXPECT_EQ(b.reads(3), Names({"%r4"}));
  EXPECT_EQ(b.writes(4), Names());
  EXPECT_EQ(b.reads(4), Names({"%r5"}));
}

TEST(WarpDeps, VectorLoadsAndStoresAtomicsAndReductions) {
  const Body b(
      "  ld.global.v4.f32 {%f1, %f2, _, %f4}, [%rd1+16];\n"
      "  st.global.v2.f32 [%rd2], {%f5, %f6};\n"
      "  atom.global.cas.b32 %r1, [%rd3], %r2, %r3;\n"
      "  red.global.add.u32 [%rd4], %r4;\n"
      "  mov.b64 {%r5, %r6}, %rd5;");
  EXPECT_EQ(b.writes(0), Names({"%f1", "%f2", "%f4"}));  // _ is no register
  EXPECT_EQ(b.reads(0), Names({"%rd1"}));
  EXPECT_TRUE(b.at(0).waits_for_memory);
  EXPECT_EQ(b.writes(1), Names());
  EXPECT_EQ(b.reads(1), Names({"%rd2", "%f5", "%f6"}));
  EXPECT_FALSE(b.at(1).waits_for_memory);
  EXPECT_EQ(b.writes(2), Names({"%r1"}));
  EXPECT_EQ(b.reads(2), Names({"%rd3", "%r2", "%r3"}));
  EXPECT_TRUE(b.at(2).waits_for_memory);
  EXPECT_EQ(b.writes(3), Names());
  EXPECT_EQ(b.reads(3), Names({"%rd4", "%r4"}));
  EXPECT_FALSE(b.at(3).waits_for_memory);
  EXPECT_EQ(b.writes(4), Names({"%r5", "%r6"}));
  EXPECT_EQ(b.reads(4), Names({"%rd5"}));
}

TEST(WarpDeps, PredicateOutputsAndTheGuardAreSeen) {
  const Body b(
      "  shfl.sync.up.b32 %r1|%p1, %r2, 1, 0, %r3;\n"
      "  @!%p6 setp.lt.and.s32 %p2|%p3, %r4, %r5, %p4;\n"
      "  vote.sync.ballot.b32 %r6, %p5, %r7;\n"
      "  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r8, %r9, %r10, %r11}, [%r12];");
  EXPECT_EQ(b.writes(0), Names({"%r1", "%p1"}));
  EXPECT_EQ(b.reads(0), Names({"%r2", "%r3"}));
  EXPECT_EQ(b.writes(1), Names({"%p2", "%p3"}));
  EXPECT_EQ(b.reads(1), Names({"%p6", "%r4", "%r5", "%p4"}));
  EXPECT_EQ(b.writes(2), Names({"%r6"}));
  EXPECT_EQ(b.reads(2), Names({"%p5", "%r7"}));
  EXPECT_EQ(b.writes(3), Names({"%r8", "%r9", "%r10", "%r11"}));
  EXPECT_EQ(b.reads(3), Names({"%r12"}));
}

TEST(WarpDeps, TextureReadsHandleAndCoordinatesAndWritesTheTexels) {
  const Body b("  tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];");
  EXPECT_EQ(b.writes(0), Names({"%f1", "%f2", "%f3", "%f4"}));
  EXPECT_EQ(b.reads(0), Names({"%rd1", "%f5", "%f6"}));
}

TEST(WarpDeps, MbarrierInitReadsItsAddressAndArriveWritesItsState) {
  const Body b(
      "  mbarrier.init.shared.b64 [%rd1], %r1;\n"
      "  mbarrier.arrive.shared.b64 %rd2, [%rd1];\n"
      "  mbarrier.test_wait.shared.b64 %p1, [%rd1], %rd2;");
  EXPECT_EQ(b.writes(0), Names());
  EXPECT_EQ(b.reads(0), Names({"%rd1", "%r1"}));
  EXPECT_EQ(b.writes(1), Names({"%rd2"}));
  EXPECT_EQ(b.reads(1), Names({"%rd1"}));
  EXPECT_EQ(b.writes(2), Names({"%p1"}));
  EXPECT_EQ(b.reads(2), Names({"%rd1", "%rd2"}));
}

TEST(WarpDeps, CallListsAndBranchTablesNameNoRegisters) {
  // call's lists hold .param offsets (0 and 4 here), brx's table branch
  // targets: reading them as register numbers would invent dependencies.
  const Body b(
      "  .param .b32 arg;\n"
      "  .param .b32 ret;\n"
      "  call.uni (ret), f, (arg);\n"
      "  ts: .branchtargets L0, L1;\n"
      "  brx.idx %r7, ts;\n"
      "L0:\n"
      "L1:\n"
      "  nanosleep.u32 %r8;",
      ".func (.param .b32 r) f(.param .b32 a)\n{\n  ret;\n}\n");
  EXPECT_EQ(b.reads(0), Names());
  EXPECT_EQ(b.writes(0), Names());
  EXPECT_EQ(b.reads(1), Names({"%r7"}));
  EXPECT_EQ(b.writes(1), Names());
  EXPECT_EQ(b.reads(2), Names({"%r8"}));  // a duration, not a result
  EXPECT_EQ(b.writes(2), Names());
}

TEST(WarpDeps, CarryChainsReadAndWriteTheCarryFlag) {
  const Body b(
      "  add.cc.u32 %r1, %r2, %r3;\n"
      "  addc.u32 %r4, %r5, %r6;\n"
      "  madc.lo.cc.u32 %r7, %r8, %r9, %r10;\n"
      "  add.u32 %r11, %r12, %r13;");
  EXPECT_TRUE(b.at(0).writes_carry);
  EXPECT_FALSE(b.at(0).reads_carry);
  EXPECT_TRUE(b.at(1).reads_carry);
  EXPECT_FALSE(b.at(1).writes_carry);
  EXPECT_TRUE(b.at(2).reads_carry);
  EXPECT_TRUE(b.at(2).writes_carry);
  EXPECT_FALSE(b.at(3).reads_carry || b.at(3).writes_carry);
  EXPECT_EQ(b.reads(2), Names({"%r8", "%r9", "%r10"}));
  EXPECT_EQ(b.writes(2), Names({"%r7"}));
}

}  // namespace
}  // namespace cnuas::gpu::testing
