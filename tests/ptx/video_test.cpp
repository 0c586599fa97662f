// Video instructions (scalar and SIMD) against a host reference written from the PTX ISA's
// pseudo-code: the reference reads each form's own text (the same strings the kernel's inline
// PTX uses), so every modifier and selector is interpreted here independently of the engine.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <sstream>

#include "ptx_harness.h"

namespace cnuas::ptx::testing {
namespace {

// In step with tests/ptx/kernels/video.cu (slot k computes form k; %0 is d, %1 a, %2 b, %3 c).
const std::vector<std::string> kVideoForms{"vadd4.u32.u32.u32 %0, %1, %2, %3;",
                                           "vadd4.s32.s32.s32.sat %0, %1, %2, %3;",
                                           "vsub4.u32.u32.u32.sat %0, %1, %2, %3;",
                                           "vsub4.s32.s32.s32 %0.b20, %1, %2, %3;",
                                           "vavrg4.u32.u32.u32 %0, %1, %2, %3;",
                                           "vavrg4.s32.s32.s32 %0, %1, %2, %3;",
                                           "vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;",
                                           "vabsdiff4.s32.s32.s32.sat %0, %1, %2, %3;",
                                           "vmin4.s32.s32.s32 %0, %1.b0123, %2.b4567, %3;",
                                           "vmax4.u32.s32.u32.sat %0.b31, %1.b7250, %2, %3;",
                                           "vset4.u32.u32.lt %0, %1, %2, %3;",
                                           "vset4.s32.s32.ge.add %0, %1, %2, %3;",
                                           "vmax4.s32.s32.s32.add %0.b21, %1, %2, %3;",
                                           "vadd2.u32.u32.u32.sat %0, %1, %2, %3;",
                                           "vsub2.s32.s32.s32.sat %0, %1, %2, %3;",
                                           "vavrg2.s32.s32.s32 %0.h1, %1, %2, %3;",
                                           "vabsdiff2.u32.u32.u32.add %0, %1, %2, %3;",
                                           "vmin2.u32.u32.u32 %0, %1.h31, %2.h02, %3;",
                                           "vmax2.s32.s32.s32 %0, %1, %2, %3;",
                                           "vset2.s32.u32.ne %0.h0, %1, %2, %3;",
                                           "vset2.u32.u32.gt.add %0, %1, %2, %3;",
                                           "vadd.u32.u32.u32 %0, %1, %2;",
                                           "vadd.s32.s32.s32.sat %0, %1, %2;",
                                           "vsub.s32.u32.s32.sat %0, %1.b2, %2.h1;",
                                           "vabsdiff.u32.u32.u32.add %0, %1.b0, %2.b3, %3;",
                                           "vmin.s32.s32.s32.max %0, %1.h0, %2.h1, %3;",
                                           "vmax.u32.u32.u32.min %0, %1, %2.b1, %3;",
                                           "vadd.s32.s32.s32.sat %0.b2, %1.b0, %2.b1, %3;",
                                           "vsub.u32.u32.u32.sat %0.h1, %1.h0, %2.h1, %3;",
                                           "vshl.u32.u32.u32.clamp %0, %1, %2.b0;",
                                           "vshr.s32.s32.u32.wrap %0, %1, %2.b0;",
                                           "vshl.s32.s32.u32.sat.clamp %0, %1.h0, %2.b0;",
                                           "vset.s32.u32.lt %0, %1, %2;",
                                           "vset.u32.s32.ge.add %0, %1.b1, %2.b2, %3;",
                                           "vset.s32.s32.eq %0.b1, %1.b3, %2.b3, %3;",
                                           "vmad.s32.s32.s32 %0, %1.h0, %2.h1, %3;",
                                           "vmad.u32.u32.u32.sat %0, %1, %2, %3;",
                                           "vmad.s32.s32.s32.shr15.sat %0, %1.h0, %2.h0, %3;",
                                           "vmad.s32.s32.s32 %0, -%1.b0, %2.b1, %3;",
                                           "vmad.u32.u32.u32.po %0, %1.b0, %2.b1, %3;",
                                           "vmad.s32.u32.u32.shr7 %0, %1, %2, -%3;"};

using i64 = std::int64_t;
__extension__ typedef __int128 i128;

struct Parsed {
  std::string op;
  std::vector<std::string> mods;  // after the opcode: types, .sat, .add, comparisons, ...
  std::string sel[4];             // selector after %0..%3 ("" when none)
  bool neg[4] = {false, false, false, false};
  int nops = 0;
  bool has(const std::string& m) const {
    return std::find(mods.begin(), mods.end(), m) != mods.end();
  }
};

Parsed parse(const std::string& text) {
  Parsed p;
  std::istringstream in(text);
  std::string word, rest;
  in >> word;
  std::getline(in, rest);
  std::istringstream w(word);
  std::string part;
  std::getline(w, p.op, '.');
  while (std::getline(w, part, '.')) p.mods.push_back(part);
  std::istringstream ops(rest);
  while (std::getline(ops, part, ',')) {
    part.erase(
        std::remove_if(part.begin(), part.end(), [](char ch) { return ch == ' ' || ch == ';'; }),
        part.end());
    const bool neg = part[0] == '-';
    if (neg) part = part.substr(1);
    const int slot = part[1] - '0';  // %N
    p.neg[slot] = neg;
    if (part.size() > 3) p.sel[slot] = part.substr(3);  // after "%N."
    ++p.nops;
  }
  return p;
}

i64 ext(std::uint64_t v, unsigned bits, bool sgn) {
  v &= (bits == 64 ? ~0ull : (1ull << bits) - 1);
  if (sgn && bits < 64 && ((v >> (bits - 1)) & 1)) return static_cast<i64>(v) - (i64{1} << bits);
  return static_cast<i64>(v);
}

i128 clamp(i128 v, unsigned bits, bool sgn) {
  const i128 lo = sgn ? -(i128{1} << (bits - 1)) : 0;
  const i128 hi = sgn ? (i128{1} << (bits - 1)) - 1 : (i128{1} << bits) - 1;
  return v < lo ? lo : v > hi ? hi : v;
}

bool cmp(const Parsed& p, i64 a, i64 b) {
  if (p.has("eq")) return a == b;
  if (p.has("ne")) return a != b;
  if (p.has("lt")) return a < b;
  if (p.has("le")) return a <= b;
  if (p.has("gt")) return a > b;
  return a >= b;  // ge
}

// The arithmetic of one element pair, per the ISA's switch over the operation.
i128 op(const Parsed& p, const std::string& base, i64 a, i64 b) {
  if (base == "vadd") return i128{a} + b;
  if (base == "vsub") return i128{a} - b;
  if (base == "vabsdiff") return a < b ? i128{b} - a : i128{a} - b;
  if (base == "vmin") return a < b ? a : b;
  if (base == "vmax") return a < b ? b : a;
  if (base == "vavrg") return (a + b) >= 0 ? (a + b + 1) >> 1 : (a + b) >> 1;
  if (base == "vset") return cmp(p, a, b) ? 1 : 0;
  ADD_FAILURE() << "no reference for " << base;
  return 0;
}

std::uint32_t reference(const std::string& text, std::uint32_t a, std::uint32_t b,
                        std::uint32_t c) {
  const Parsed p = parse(text);
  const char last = p.op.back();
  const unsigned lanes = last == '4' ? 4 : last == '2' ? 2 : 1;
  const std::string base = lanes == 1 ? p.op : p.op.substr(0, p.op.size() - 1);
  // Types: .dtype.atype.btype (vset: .atype.btype with an unsigned result).
  std::vector<bool> sgn;
  for (const std::string& m : p.mods)
    if (m == "u32" || m == "s32") sgn.push_back(m == "s32");
  if (base == "vset") sgn.insert(sgn.begin(), false);
  const bool ds = sgn[0], as = sgn[1], bs = sgn[2];
  if (lanes != 1) {
    const unsigned w = 32 / lanes;
    const std::uint64_t both = (std::uint64_t{b} << 32) | a;  // elements 0..2N-1 of {b, a}
    const std::string asel = p.sel[1].empty() ? (lanes == 4 ? "3210" : "10") : p.sel[1].substr(1);
    const std::string bsel = p.sel[2].empty() ? (lanes == 4 ? "7654" : "32") : p.sel[2].substr(1);
    const std::string mask = p.sel[0].empty() ? (lanes == 4 ? "3210" : "10") : p.sel[0].substr(1);
    i64 sum = c;
    std::uint32_t d = 0;
    for (unsigned e = 0; e < lanes; ++e) {
      const unsigned ea = static_cast<unsigned>(asel[lanes - 1 - e] - '0');
      const unsigned eb = static_cast<unsigned>(bsel[lanes - 1 - e] - '0');
      i128 t = op(p, base, ext(both >> (w * ea), w, as), ext(both >> (w * eb), w, bs));
      if (p.has("sat")) t = clamp(t, w, ds);
      const bool on = mask.find(static_cast<char>('0' + e)) != std::string::npos;
      if (on) sum += static_cast<i64>(t);
      const std::uint32_t v = on ? static_cast<std::uint32_t>(t) : c >> (w * e);
      d |= (v & ((1u << w) - 1)) << (w * e);
    }
    return p.has("add") ? static_cast<std::uint32_t>(sum) : d;
  }
  auto pick = [](std::uint32_t v, const std::string& sel, bool s) -> i64 {
    if (sel.empty()) return ext(v, 32, s);
    const unsigned bits = sel[0] == 'b' ? 8 : 16;
    return ext(v >> (bits * static_cast<unsigned>(sel[1] - '0')), bits, s);
  };
  const i64 ta = pick(a, p.sel[1], as), tb = pick(b, p.sel[2], bs);
  if (base == "vmad") {
    const bool fs = as || bs || (p.neg[1] != p.neg[2]) || p.neg[3];
    i128 prod = i128{ta} * tb, lsb = 0;
    std::uint32_t cc = c;
    if (p.has("po")) {
      lsb = 1;
    } else if (p.neg[1] != p.neg[2]) {
      prod = ~prod;
      lsb = 1;
    } else if (p.neg[3]) {
      cc = ~cc;
      lsb = 1;
    }
    i128 r = prod + (fs ? i128{static_cast<std::int32_t>(cc)} : i128{cc}) + lsb;
    if (p.has("shr7")) r >>= 7;
    if (p.has("shr15")) r >>= 15;
    r = static_cast<i64>(static_cast<std::uint64_t>(r));
    if (p.has("sat")) r = clamp(r, 32, fs);
    return static_cast<std::uint32_t>(r);
  }
  i128 t;
  if (base == "vshl" || base == "vshr") {
    i64 n = tb;
    if (p.has("clamp") && n > 32) n = 32;
    if (p.has("wrap")) n &= 0x1f;
    t = base == "vshl" ? i128{ta} * (i128{1} << n) : i128{ta} >> n;
  } else {
    t = op(p, base, ta, tb);
  }
  const std::string& dsel = p.sel[0];
  if (p.has("sat")) t = clamp(t, dsel.empty() ? 32 : dsel[0] == 'b' ? 8 : 16, ds);
  const std::uint32_t tmp = static_cast<std::uint32_t>(t);
  if (p.has("add")) return tmp + c;
  if (p.has("min") || p.has("max")) {
    const i64 x = ext(tmp, 32, ds), y = ext(c, 32, ds);
    return static_cast<std::uint32_t>(p.has("min") ? std::min(x, y) : std::max(x, y));
  }
  if (dsel.empty()) return tmp;
  const unsigned bits = dsel[0] == 'b' ? 8 : 16, at = bits * static_cast<unsigned>(dsel[1] - '0');
  const std::uint32_t field = ((bits == 16 ? 0xffffu : 0xffu)) << at;
  return (c & ~field) | ((tmp << at) & field);
}

// Words whose bytes are mostly the edges of the 8- and 16-bit ranges, sometimes shared between
// a and b so that equal elements (vset .eq/.ne/.ge) occur.
std::uint32_t edge_word(std::mt19937& rng) {
  static const std::uint8_t edges[] = {0x00, 0x01, 0x7f, 0x80, 0x81, 0xfe, 0xff, 0x20};
  std::uint32_t v = 0;
  for (unsigned k = 0; k < 4; ++k) {
    const std::uint32_t byte = (rng() & 1) ? edges[rng() % 8] : rng() & 0xff;
    v |= byte << (8 * k);
  }
  return v;
}

TEST(PtxVideo, EveryFormMatchesTheIsaPseudoCodeOverRandomInputs) {
  CNUAS_REQUIRE_NVCC();
  const int n = 2048;
  std::mt19937 rng(13);
  std::vector<std::uint32_t> a(n), b(n), c(n);
  for (int k = 0; k < n; ++k) {
    a[k] = edge_word(rng);
    b[k] = (k % 4 == 0) ? a[k] ^ (0xffu << (8 * (rng() % 4))) : edge_word(rng);
    c[k] = (k % 3 == 0) ? rng() : edge_word(rng);
  }
  Device dev("video.ptx");
  const std::size_t forms = kVideoForms.size();
  auto out = dev.alloc<std::uint32_t>(n * forms);
  dev.launch("video_forms", {static_cast<std::uint32_t>(n / 128), 1, 1}, {128, 1, 1}, dev.upload(a),
             dev.upload(b), dev.upload(c), out, n);
  const auto got = dev.download<std::uint32_t>(out, n * forms);
  for (std::size_t f = 0; f < forms; ++f) {
    int wrong = 0;
    for (int k = 0; k < n && wrong < 3; ++k) {
      const std::uint32_t want = reference(kVideoForms[f], a[k], b[k], c[k]);
      if (got[k * forms + f] != want) {
        ++wrong;
        ADD_FAILURE() << kVideoForms[f] << " a=0x" << std::hex << a[k] << " b=0x" << b[k] << " c=0x"
                      << c[k] << ": got 0x" << got[k * forms + f] << ", want 0x" << want;
      }
    }
  }
}

// Hand-worked cases, independent of the reference above.
TEST(PtxVideo, HandComputedExamples) {
  CNUAS_REQUIRE_NVCC();
  Device dev("video.ptx");
  // a = 0x10ff7f80, b = 0x20018081, c = 0x00000005.
  std::vector<std::uint32_t> a{0x10ff7f80u}, b{0x20018081u}, c{5u};
  const std::size_t forms = kVideoForms.size();
  auto out = dev.alloc<std::uint32_t>(forms);
  dev.launch("video_forms", {1, 1, 1}, {1, 1, 1}, dev.upload(a), dev.upload(b), dev.upload(c), out,
             1);
  const auto d = dev.download<std::uint32_t>(out, forms);
  // vadd4.u32 (form 0), bytewise mod 256: 10+20=30, ff+01=00, 7f+80=ff, 80+81=01.
  EXPECT_EQ(d[0], 0x3000ff01u);
  // vadd4.s32.sat (form 1): 16+32=48, -1+1=0, 127+-128=-1, -128+-127=-255 -> -128.
  EXPECT_EQ(d[1], 0x3000ff80u);
  // vabsdiff4.u32.add (form 6): |16-32|+|255-1|+|127-128|+|128-129| + 5 = 16+254+1+1+5 = 277.
  EXPECT_EQ(d[6], 277u);
  // vavrg4.u32 (form 4): (16+32+1)/2=24, (255+1+1)/2=128, (127+128+1)/2=128, (128+129+1)/2=129.
  EXPECT_EQ(d[4], 0x18808081u);
  // vset4.u32.u32.lt (form 10): 10<20, ff<01 no, 7f<80, 80<81 -> 1,0,1,1.
  EXPECT_EQ(d[10], 0x01000101u);
  // vadd.u32 (form 21): 0x10ff7f80 + 0x20018081 = 0x31010001.
  EXPECT_EQ(d[21], 0x31010001u);
  // vshl.u32.clamp by b.b0 = 0x81 = 129 -> clamped to 32: zero (form 29).
  EXPECT_EQ(d[29], 0u);
  // vmad.s32 (form 35): a.h0 = 0x7f80 = 32640, b.h1 = 0x2001 = 8193: 32640*8193 + 5 = 267419525.
  EXPECT_EQ(d[35], 267419525u);
}

// CUDA's SIMD intrinsics (nvcc lowers several to vabsdiff4/vabsdiff2.add) against their
// documented per-element meaning, computed here with plain integer arithmetic.
TEST(PtxVideo, CudaSimdIntrinsicsMatchTheirDocumentedMeaning) {
  CNUAS_REQUIRE_NVCC();
  const int n = 1024;
  std::mt19937 rng(7);
  std::vector<std::uint32_t> a(n), b(n);
  for (int k = 0; k < n; ++k) a[k] = edge_word(rng), b[k] = edge_word(rng);
  Device dev("video.ptx");
  auto out = dev.alloc<std::uint32_t>(n * 6);
  dev.launch("video_intrinsics", {static_cast<std::uint32_t>(n / 128), 1, 1}, {128, 1, 1},
             dev.upload(a), dev.upload(b), out, n);
  const auto got = dev.download<std::uint32_t>(out, n * 6);
  auto u8 = [](std::uint32_t v, int k) { return static_cast<int>((v >> (8 * k)) & 0xff); };
  auto s8 = [](std::uint32_t v, int k) {
    return static_cast<int>(static_cast<std::int8_t>(v >> (8 * k)));
  };
  for (int k = 0; k < n; ++k) {
    const std::uint32_t x = a[k], y = b[k];
    std::uint32_t absdiff = 0, sad4 = 0, absdiff_s = 0, max_s = 0, ge = 0, sad2 = 0;
    for (int e = 0; e < 4; ++e) {
      absdiff |= static_cast<std::uint32_t>(std::abs(u8(x, e) - u8(y, e))) << (8 * e);
      sad4 += static_cast<std::uint32_t>(std::abs(u8(x, e) - u8(y, e)));
      absdiff_s |= (static_cast<std::uint32_t>(std::abs(s8(x, e) - s8(y, e))) & 0xff) << (8 * e);
      max_s |= (static_cast<std::uint32_t>(std::max(s8(x, e), s8(y, e))) & 0xff) << (8 * e);
      ge |= (u8(x, e) >= u8(y, e) ? 0xffu : 0u) << (8 * e);
    }
    for (int e = 0; e < 2; ++e)
      sad2 += static_cast<std::uint32_t>(std::abs(static_cast<int>((x >> (16 * e)) & 0xffff) -
                                                  static_cast<int>((y >> (16 * e)) & 0xffff)));
    const std::uint32_t want[6] = {absdiff, sad4, sad2, absdiff_s, max_s, ge};
    for (int f = 0; f < 6; ++f)
      ASSERT_EQ(got[k * 6 + f], want[f])
          << "intrinsic " << f << " a=0x" << std::hex << x << " b=0x" << y;
  }
}

// A selector the instruction cannot take is a parse error naming the place and what is accepted.
TEST(PtxVideo, BadSelectorsAreReportedWithTheirPlace) {
  const std::string head =
      ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n"
      "\t.reg .b32 %r<4>;\n";
  auto error = [&](const std::string& line) -> std::string {
    try {
      Module::parse(head + line + "\n\tret;\n}\n", "v.ptx");
    } catch (const ParseError& e) {
      return e.what();
    }
    return "";
  };
  // Line 7 is the instruction; column 2 is where it starts after the tab.
  std::string e = error("\tvadd4.u32.u32.u32 %r0, %r1.b98, %r2, %r3;");
  EXPECT_NE(e.find("v.ptx:7:"), std::string::npos) << e;
  EXPECT_NE(e.find("'.b98'"), std::string::npos) << e;
  EXPECT_NE(e.find("digit 0-7"), std::string::npos) << e;
  e = error("\tvadd.u32.u32.u32 %r0, %r1.h2, %r2;");
  EXPECT_NE(e.find(".h0 .h1"), std::string::npos) << e;
  e = error("\tvadd2.u32.u32.u32 %r0.h01, %r1, %r2, %r3;");  // a mask lists elements highest first
  EXPECT_NE(e.find("mask"), std::string::npos) << e;
  EXPECT_EQ(error("\tvadd2.u32.u32.u32 %r0.h10, %r1.h32, %r2.h01, %r3;"), "");
}

}  // namespace
}  // namespace cnuas::ptx::testing
