// The PTX device linker on hand-written units: the linked module parses and
// its kernel, run on the PTX engine, gives what the sources say (each value
// derived in a comment); symbol clashes and undefined references are errors
// naming the symbol and where it is.
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "engine/ptx_linker.h"
#include "ptx/device_runtime.h"
#include "ptx/executor.h"

namespace cnuas::cuda {
namespace {

// Unit A calls twice() and b_helper() and reads `scale`, all defined in unit
// B; both units have a private `data` and a private helper() of their own.
const char* kUnitA = R"(
.version 7.8
.target sm_80
.address_size 64

.extern .func (.param .b32 r) twice (.param .b32 x);
.extern .func (.param .b32 r) b_helper ();
.extern .global .align 4 .u32 scale;
.extern .func unused_elsewhere ();
.global .align 4 .u32 data = 1;

.func (.param .b32 r) helper ()
{
  .reg .b32 %v;
  ld.global.u32 %v, [data];
  st.param.b32 [r], %v;
  ret;
}

.visible .entry run (.param .u64 out)
{
  .reg .b32 %a<5>;
  .reg .b64 %p;
  ld.param.u64 %p, [out];
  {
  .param .b32 x;
  .param .b32 r;
  st.param.b32 [x], 21;
  call (r), twice, (x);
  ld.param.b32 %a1, [r];
  }
  ld.global.u32 %a2, [scale];
  {
  .param .b32 r;
  call (r), helper, ();
  ld.param.b32 %a3, [r];
  }
  {
  .param .b32 r;
  call (r), b_helper, ();
  ld.param.b32 %a4, [r];
  }
  st.global.u32 [%p], %a1;
  st.global.u32 [%p+4], %a2;
  st.global.u32 [%p+8], %a3;
  st.global.u32 [%p+12], %a4;
  ret;
}
)";

const char* kUnitB = R"(
.version 8.0
.target sm_90
.address_size 64

.visible .global .align 4 .u32 scale = 7;
.global .align 4 .u32 data = 100;

.func (.param .b32 r) helper ()
{
  .reg .b32 %v;
  ld.global.u32 %v, [data];
  st.param.b32 [r], %v;
  ret;
}

.visible .func (.param .b32 r) twice (.param .b32 x)
{
  .reg .b32 %v;
  ld.param.b32 %v, [x];
  shl.b32 %v, %v, 1;
  st.param.b32 [r], %v;
  ret;
}

.visible .func (.param .b32 r) b_helper ()
{
  .reg .b32 %v;
  {
  .param .b32 q;
  call (q), helper, ();
  ld.param.b32 %v, [q];
  }
  st.param.b32 [r], %v;
  ret;
}
)";

// A unit whose kernel stores pick() (defined elsewhere, or weakly here).
std::string caller_of_pick(const std::string& pick_definition) {
  return R"(
.version 8.0
.target sm_90
.address_size 64
)" + pick_definition +
         R"(
.visible .entry run (.param .u64 out)
{
  .reg .b32 %v;
  .reg .b64 %p;
  ld.param.u64 %p, [out];
  {
  .param .b32 r;
  call (r), pick, ();
  ld.param.b32 %v, [r];
  }
  st.global.u32 [%p], %v;
  ret;
}
)";
}

std::string pick_returning(const char* linkage, int value) {
  return std::string(linkage) + " .func (.param .b32 r) pick ()\n{\n  st.param.b32 [r], " +
         std::to_string(value) + ";\n  ret;\n}\n";
}

std::string link(const std::vector<PtxUnit>& units) {
  return link_ptx(units, ptx::is_builtin_function);
}

// Runs kernel `run(out)` of the linked text with one thread; returns n words of out.
std::vector<std::uint32_t> run(const std::string& text, std::size_t n) {
  ptx::DeviceMemory memory;
  auto module = ptx::Module::parse(text, "linked");
  ptx::LoadedModule loaded(module, memory);
  std::ostringstream printed;
  ptx::Executor executor(memory, printed);
  const std::uint64_t out = memory.allocate(4 * n);
  ptx::LaunchConfig config;
  config.grid = {1, 1, 1};
  config.block = {1, 1, 1};
  config.params.resize(8);
  std::memcpy(config.params.data(), &out, 8);
  executor.launch(loaded, "run", config);
  std::vector<std::uint32_t> words(n);
  memory.read(out, words.data(), 4 * n);
  return words;
}

std::string error_of(const std::vector<PtxUnit>& units) {
  try {
    link(units);
  } catch (const PtxLinkError& e) {
    return e.what();
  }
  return "no error";
}

TEST(PtxLinker, ResolvesExternsAcrossUnitsAndKeepsPrivateNamesApart) {
  const std::string text = link({{"a.ptx", kUnitA}, {"b.ptx", kUnitB}});
  // twice(21) = 42; scale = 7 (B's); A's helper reads A's data = 1; b_helper
  // calls B's helper, which reads B's data = 100.
  EXPECT_EQ(run(text, 4), (std::vector<std::uint32_t>{42, 7, 1, 100}));
  // The newest version and target of the two units.
  EXPECT_NE(text.find(".version 8.0\n.target sm_90\n"), std::string::npos) << text;
}

TEST(PtxLinker, UnitOrderDoesNotMatter) {
  EXPECT_EQ(run(link({{"b.ptx", kUnitB}, {"a.ptx", kUnitA}}), 4),
            (std::vector<std::uint32_t>{42, 7, 1, 100}));
}

TEST(PtxLinker, FirstWeakDefinitionWinsAndAVisibleOneBeatsWeak) {
  const std::string weak1 = caller_of_pick(pick_returning(".weak", 1));
  const std::string weak2 =
      "\n.version 8.0\n.target sm_90\n.address_size 64\n" + pick_returning(".weak", 2);
  const std::string strong3 =
      "\n.version 8.0\n.target sm_90\n.address_size 64\n" + pick_returning(".visible", 3);
  EXPECT_EQ(run(link({{"u1", weak1}, {"u2", weak2}}), 1)[0], 1u);
  // The caller's own weak pick() loses to the later unit's visible one.
  EXPECT_EQ(run(link({{"u1", weak1}, {"u3", strong3}}), 1)[0], 3u);
}

TEST(PtxLinker, TwoVisibleDefinitionsAreAnError) {
  const std::string e = error_of({{"a.ptx", kUnitA}, {"b.ptx", kUnitB}, {"again.ptx", kUnitB}});
  EXPECT_NE(e.find("'b_helper' is defined twice: at b.ptx:"), std::string::npos) << e;
  EXPECT_NE(e.find("again.ptx:"), std::string::npos) << e;
}

TEST(PtxLinker, UndefinedReferencesAreErrorsUnlessTheEngineProvidesThem) {
  const std::string e = error_of({{"a.ptx", kUnitA}});
  // a.ptx calls b_helper first in name order; unused_elsewhere is never called.
  EXPECT_EQ(e, "undefined reference to function 'b_helper' in a.ptx: no unit defines it");
  const std::string needs_var = R"(
.version 8.0
.target sm_90
.address_size 64
.extern .global .align 4 .u32 missing;
.extern .func (.param .b32 r) vprintf (.param .b64 f, .param .b64 a);
.extern .shared .align 16 .b8 dynamic[];
.visible .entry run (.param .u64 out)
{
  .reg .b32 %v;
  ld.global.u32 %v, [missing];
  ret;
}
)";
  EXPECT_EQ(error_of({{"v.ptx", needs_var}}),
            "undefined reference to variable 'missing' in v.ptx: no unit defines it");
}

TEST(PtxLinker, DynamicSharedArraysOfSeveralUnitsAreOne) {
  const std::string unit = R"(
.version 8.0
.target sm_90
.address_size 64
.extern .shared .align 16 .b8 smem[];
)";
  const std::string text = link({{"s1", caller_of_pick(".extern .shared .align 16 .b8 smem[];\n" +
                                                       pick_returning(".visible", 5))},
                                 {"s2", unit}});
  std::size_t count = 0;
  for (std::size_t at = text.find("smem[]"); at != std::string::npos;
       at = text.find("smem[]", at + 1))
    ++count;
  EXPECT_EQ(count, 1u) << text;
  EXPECT_EQ(run(text, 1)[0], 5u);
}

TEST(PtxLinker, LibraryMembersAreLinkedOnlyWhenNeeded) {
  // A library member nothing needs is left out, even one that could not link.
  const std::string unneeded = R"(
.version 8.0
.target sm_90
.address_size 64
.extern .func nowhere ();
.visible .func unused () { call nowhere, (); ret; }
)";
  PtxUnit b{"lib(b.o)", kUnitB, true}, junk{"lib(junk.o)", unneeded, true};
  EXPECT_EQ(run(link({{"a.ptx", kUnitA}, junk, b}), 4),
            (std::vector<std::uint32_t>{42, 7, 1, 100}));
  // Alone, the members are nothing to link.
  EXPECT_EQ(error_of({junk, b}), "nothing to link: only library members were added");
}

TEST(PtxLinker, ModuleSharedThatOneKernelUsesBecomesThatKernelsOwn) {
  // `tile` (4096 bytes) is used by k1 alone, `both` (64 bytes) by k1 and k2.
  const std::string unit = R"(
.version 8.0
.target sm_90
.address_size 64
.weak .shared .align 16 .b8 tile[4096];
.visible .shared .align 4 .b8 both[64];
.visible .entry k1 ()
{
  .reg .b32 %v;
  ld.shared.u32 %v, [tile];
  st.shared.u32 [both], %v;
  ret;
}
.visible .entry k2 ()
{
  .reg .b32 %v;
  ld.shared.u32 %v, [both];
  ret;
}
)";
  const auto module = ptx::Module::parse(link({{"u", unit}}), "linked");
  // k1: its own tile plus the module's `both`; k2: the module's `both` only.
  EXPECT_EQ(module->find("k1")->static_shared_bytes, 4096u + 64u);
  EXPECT_EQ(module->find("k2")->static_shared_bytes, 64u);
}

TEST(PtxLinker, DifferentAddressSizesAreAnError) {
  const std::string narrow = "\n.version 8.0\n.target sm_90\n.address_size 32\n";
  const std::string wide = "\n.version 8.0\n.target sm_90\n.address_size 64\n";
  EXPECT_NE(error_of({{"w", wide}, {"n", narrow}}).find("n declares .address_size 32"),
            std::string::npos);
}

}  // namespace
}  // namespace cnuas::cuda
