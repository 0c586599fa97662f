// mma.sp with a 2:4 sparse A (every type family, several sparsity selectors,
// .sp::ordered_metadata), the sub-byte s4/u4 mma forms and the single-bit b1
// forms with .and.popc / .xor.popc, run from kernels/mma_sparse.cu.
//
// The host builds every register bit itself: a random A with the ISA's
// structured sparsity (two non-zero units in each chunk of four; tf32 one
// element of two; s4/u4 two pairs of each eight elements), packs its non-zero
// elements and metadata into the lanes as the PTX ISA 9.0 fragment figures
// place them (written out below case by case from the figures' formulas),
// and checks D against a dense product in double / int64 of the unpacked A.
// Lanes whose metadata the selector does not name hold invalid metadata
// (0xffffffff), so a reader that looked at them would stop the kernel.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "ptx_harness.h"

namespace cnuas::ptx::testing {
namespace {

enum class T { F16, BF16, TF32, S8, U8, S4, U4, E4M3, E5M2, B1, F32, S32 };

int bits_of(T t) {
  switch (t) {
    case T::F16:
    case T::BF16:
      return 16;
    case T::TF32:
    case T::F32:
    case T::S32:
      return 32;
    case T::S4:
    case T::U4:
      return 4;
    case T::B1:
      return 1;
    default:
      return 8;
  }
}

// Bits of an exactly representable value in a float format with `mbits` mantissa bits.
std::uint32_t float_bits(double v, int ebits, int mbits) {
  const int bias = (1 << (ebits - 1)) - 1;
  std::uint32_t sign = v < 0 ? 1u : 0u;
  double x = std::fabs(v);
  if (x == 0) return sign << (ebits + mbits);
  int e = static_cast<int>(std::floor(std::log2(x)));
  std::uint32_t exp_field, mant;
  if (e < 1 - bias) {  // subnormal
    exp_field = 0;
    mant = static_cast<std::uint32_t>(std::ldexp(x, mbits - (1 - bias)));
  } else {
    exp_field = static_cast<std::uint32_t>(e + bias);
    mant = static_cast<std::uint32_t>(std::ldexp(x / std::ldexp(1.0, e) - 1.0, mbits));
  }
  return (sign << (ebits + mbits)) | (exp_field << mbits) | mant;
}

std::uint32_t encode(double v, T t) {
  float f = static_cast<float>(v);
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  switch (t) {
    case T::F16:
      return float_bits(v, 5, 10);
    case T::BF16:
      return u >> 16;
    case T::TF32:
    case T::F32:
      return u;
    case T::E4M3:
      return float_bits(v, 4, 3);
    case T::E5M2:
      return float_bits(v, 5, 2);
    default:  // integers, two's complement in their width
      return static_cast<std::uint32_t>(static_cast<std::int64_t>(v)) &
             (bits_of(t) == 32 ? 0xffffffffu : (1u << bits_of(t)) - 1);
  }
}

// A random value the type holds exactly (floats: small multiples of 1/2 or 1/4).
double random_value(T t, std::mt19937& rng) {
  const int r = static_cast<int>(rng() % 1024);
  switch (t) {
    case T::F16:
    case T::BF16:
      return (r % 13 - 6) * 0.5;
    case T::TF32:
      return (r % 17 - 8) * 0.25;
    case T::E4M3:
      return (r % 33 - 16) * 0.25;
    case T::E5M2:
      return (r % 17 - 8) * 0.25;
    case T::S8:
      return r % 256 - 128;
    case T::U8:
      return r % 256;
    case T::S4:
      return r % 16 - 8;
    case T::U4:
      return r % 16;
    case T::B1:
      return r % 2;
    default:
      return r % 9 - 4;
  }
}

struct Form {
  const char* kernel;
  unsigned m, n, k;
  T a, b, acc;
  unsigned na, nb, nc;  // registers of A, B and C/D per lane
  int selector;         // -1: dense
  bool satfinite = false;
  bool xor_popc = false;  // b1: .xor.popc (else .and.popc)
};

struct Pos {
  unsigned row, col;
};

// Element i of a lane's A fragment (sparse: of the packed M x K/2 A), per the ISA figures:
// rows alternate g / g + 8 register by register, each register holding 32 / bits
// consecutive columns of lane t's slice; the next pair of registers moves on in K.
Pos a_pos(const Form& f, unsigned lane, unsigned i) {
  const unsigned g = lane / 4, t = lane % 4;
  const unsigned per = 32 / bits_of(f.a);  // elements per register
  const unsigned reg = i / per;
  // e.g. m16n8k32 .s8: a0..a3 row g, a4..a7 row g + 8, a8..a11 row g cols + 16, ...
  const unsigned row = (reg == 1 || reg == 3) ? g + 8 : g;
  const unsigned col = t * per + i % per + (reg >= 2 ? 4 * per : 0);
  return {row, col};
}

// Element i of a lane's B fragment: column g, rows t * per + i % per, + 4 * per per register.
Pos b_pos(const Form& f, unsigned lane, unsigned i) {
  const unsigned g = lane / 4, t = lane % 4, per = 32 / bits_of(f.b);
  return {t * per + i % per + (i / per) * 4 * per, g};
}

// Element i of C/D: m16n8: c0, c1 row g, c2, c3 row g + 8, columns 2t, 2t + 1; m8n8: c0, c1.
Pos c_pos(const Form& f, unsigned lane, unsigned i) {
  const unsigned g = lane / 4, t = lane % 4;
  if (f.m == 8) return {g, 2 * t + i};
  return {i < 2 ? g : g + 8, 2 * t + i % 2};
}

struct Problem {
  std::vector<double> a, b, c;          // dense A (M x K, zeros where sparse), B (K x N), C
  std::vector<double> packed;           // sparse: M x K/2 non-zeros in order
  std::vector<std::uint32_t> metadata;  // per lane
};

// Random sparse A: per row, per chunk of four units, two units kept (indices i0 < i1),
// metadata nibble i0 | i1 << 2; tf32: one element of two, nibble 0x4 or 0xe.
void make_sparse(const Form& f, Problem& p, std::mt19937& rng) {
  const bool tf32 = f.a == T::TF32;
  const unsigned unit = (f.a == T::S4 || f.a == T::U4) ? 2 : 1;
  const unsigned chunk_elems = tf32 ? 2 : 4 * unit, chunks = f.k / chunk_elems;
  const unsigned threads = chunks / 4;  // per group of four lanes
  p.packed.assign(std::size_t{f.m} * f.k / 2, 0.0);
  p.metadata.assign(32, 0xffffffffu);
  for (unsigned lane = 0; lane < 32; ++lane)
    if (lane % 4 >= f.selector * threads && lane % 4 < (f.selector + 1) * threads)
      p.metadata[lane] = 0;
  for (unsigned row = 0; row < f.m; ++row)
    for (unsigned ch = 0; ch < chunks; ++ch) {
      unsigned nibble;
      std::vector<unsigned> keep;  // element offsets within the chunk, in packed order
      if (tf32) {
        const unsigned e = rng() % 2;
        nibble = e ? 0xe : 0x4;
        keep = {e};
      } else {
        const unsigned i0 = rng() % 3, i1 = i0 + 1 + rng() % (3 - i0);
        nibble = i0 | (i1 << 2);
        for (unsigned w = 0; w < unit; ++w) keep.push_back(i0 * unit + w);
        for (unsigned w = 0; w < unit; ++w) keep.push_back(i1 * unit + w);
      }
      for (unsigned e = 0; e < chunk_elems; ++e)
        p.a[std::size_t{row} * f.k + ch * chunk_elems + e] = 0;
      for (unsigned s = 0; s < keep.size(); ++s) {
        const double v = random_value(f.a, rng);
        p.a[std::size_t{row} * f.k + ch * chunk_elems + keep[s]] = v;
        p.packed[std::size_t{row} * (f.k / 2) + ch * keep.size() + s] = v;
      }
      // The figures: thread T(selector * threads + ch / 4) of group row % 8 holds the
      // chunk in bits [4q + 3 .. 4q] (row < 8) or [16 + 4q + 3 .. 16 + 4q] (row >= 8).
      const unsigned lane = 4 * (row % 8) + f.selector * threads + ch / 4;
      const unsigned shift = (row >= 8 ? 16 : 0) + 4 * (ch % 4);
      p.metadata[lane] |= nibble << shift;
    }
}

// Runs the form on random operands and checks every element of D.
void check_form(const Form& f, std::uint32_t seed) {
  SCOPED_TRACE(f.kernel);
  std::mt19937 rng(seed);
  Problem p;
  p.a.resize(std::size_t{f.m} * f.k);
  p.b.resize(std::size_t{f.k} * f.n);
  p.c.resize(std::size_t{f.m} * f.n);
  for (auto& v : p.a) v = random_value(f.a, rng);
  for (auto& v : p.b) v = random_value(f.b, rng);
  for (auto& v : p.c) v = random_value(f.acc, rng);
  if (f.satfinite)  // near the top of s32, so some sums pass it
    for (std::size_t i = 0; i < p.c.size(); ++i) p.c[i] = 2147483647.0 - 20000.0 * (i % 7);
  const bool sparse = f.selector >= 0;
  if (sparse) make_sparse(f, p, rng);
  const unsigned width = f.na + f.nb + f.nc + 1;
  std::vector<std::uint32_t> in(32 * width, 0);
  const unsigned kp = sparse ? f.k / 2 : f.k;
  const std::vector<double>& a_regs = sparse ? p.packed : p.a;
  const unsigned abits = bits_of(f.a), bbits = bits_of(f.b), cbits = bits_of(f.acc);
  for (unsigned lane = 0; lane < 32; ++lane) {
    std::uint32_t* w = &in[lane * width];
    for (unsigned i = 0; i < f.na * 32 / abits; ++i) {
      const Pos at = a_pos(f, lane, i);
      w[i * abits / 32] |= encode(a_regs[std::size_t{at.row} * kp + at.col], f.a)
                           << (i * abits % 32);
    }
    for (unsigned i = 0; i < f.nb * 32 / bbits; ++i) {
      const Pos at = b_pos(f, lane, i);
      w[f.na + i * bbits / 32] |= encode(p.b[std::size_t{at.row} * f.n + at.col], f.b)
                                  << (i * bbits % 32);
    }
    for (unsigned i = 0; i < f.nc * 32 / cbits; ++i) {
      const Pos at = c_pos(f, lane, i);
      w[f.na + f.nb + i * cbits / 32] |= encode(p.c[std::size_t{at.row} * f.n + at.col], f.acc)
                                         << (i * cbits % 32);
    }
    w[width - 1] = sparse ? p.metadata[lane] : 0;
  }
  Device dev("mma_sparse.ptx");
  const auto din = dev.upload(in);
  const auto dout = dev.alloc<std::uint32_t>(32 * f.nc);
  dev.launch(f.kernel, {1, 1, 1}, {32, 1, 1}, din, dout);
  const auto out = dev.download<std::uint32_t>(dout, 32 * f.nc);
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned i = 0; i < f.nc * 32 / cbits; ++i) {
      const Pos at = c_pos(f, lane, i);
      double sum = p.c[std::size_t{at.row} * f.n + at.col];
      for (unsigned k = 0; k < f.k; ++k) {
        const double x = p.a[std::size_t{at.row} * f.k + k], y = p.b[std::size_t{k} * f.n + at.col];
        sum += f.a == T::B1 ? (f.xor_popc ? double(x != y) : x * y) : x * y;
      }
      const std::uint32_t got = (out[lane * f.nc + i * cbits / 32] >> (i * cbits % 32)) &
                                (cbits == 32 ? 0xffffffffu : 0xffffu);
      std::uint32_t want;
      if (f.acc == T::S32) {
        auto s = static_cast<std::int64_t>(sum);
        if (f.satfinite) s = std::clamp<std::int64_t>(s, INT32_MIN, INT32_MAX);
        want = static_cast<std::uint32_t>(s);
      } else {
        want = encode(f.acc == T::F32 ? static_cast<float>(sum) : sum, f.acc);
      }
      ASSERT_EQ(got, want) << "lane " << lane << " element " << i << " (row " << at.row << ", col "
                           << at.col << ")";
    }
}

TEST(PtxMmaSparse, HalfAndBf16) {
  CNUAS_REQUIRE_NVCC();
  check_form({"sp_f16_k16_sel0", 16, 8, 16, T::F16, T::F16, T::F32, 2, 2, 4, 0}, 1);
  check_form({"sp_f16_k16_sel3", 16, 8, 16, T::F16, T::F16, T::F32, 2, 2, 4, 3}, 2);
  check_form({"sp_f16_k32_f16acc_sel1", 16, 8, 32, T::F16, T::F16, T::F16, 4, 4, 2, 1}, 3);
  check_form({"sp_bf16_k32_ordered_sel0", 16, 8, 32, T::BF16, T::BF16, T::F32, 4, 4, 4, 0}, 4);
  check_form({"sp_bf16_k16_sel1", 16, 8, 16, T::BF16, T::BF16, T::F32, 2, 2, 4, 1}, 5);
}

TEST(PtxMmaSparse, Tf32OneOfTwo) {
  CNUAS_REQUIRE_NVCC();
  check_form({"sp_tf32_k8_sel2", 16, 8, 8, T::TF32, T::TF32, T::F32, 2, 2, 4, 2}, 6);
  check_form({"sp_tf32_k16_sel1", 16, 8, 16, T::TF32, T::TF32, T::F32, 4, 4, 4, 1}, 7);
}

TEST(PtxMmaSparse, IntegerAndFp8) {
  CNUAS_REQUIRE_NVCC();
  check_form({"sp_s8u8_k32_sel1", 16, 8, 32, T::S8, T::U8, T::S32, 2, 2, 4, 1}, 8);
  check_form({"sp_u8s8_k64_sat_sel0", 16, 8, 64, T::U8, T::S8, T::S32, 4, 4, 4, 0, true}, 9);
  check_form({"sp_s4_k64_sel1", 16, 8, 64, T::S4, T::S4, T::S32, 2, 2, 4, 1}, 10);
  check_form({"sp_u4s4_k128_sel0", 16, 8, 128, T::U4, T::S4, T::S32, 4, 4, 4, 0, true}, 11);
  check_form({"sp_e4m3e5m2_k64_sel0", 16, 8, 64, T::E4M3, T::E5M2, T::F32, 4, 4, 4, 0}, 12);
}

TEST(PtxMmaSubByte, S4U4AndS8) {
  CNUAS_REQUIRE_NVCC();
  check_form({"s4u4_m8n8k32", 8, 8, 32, T::S4, T::U4, T::S32, 1, 1, 2, -1}, 13);
  check_form({"s8_m8n8k16", 8, 8, 16, T::S8, T::S8, T::S32, 1, 1, 2, -1}, 14);
  check_form({"s4_m16n8k32_sat", 16, 8, 32, T::S4, T::S4, T::S32, 2, 1, 4, -1, true}, 15);
  check_form({"u4_m16n8k64", 16, 8, 64, T::U4, T::U4, T::S32, 4, 2, 4, -1}, 16);
}

TEST(PtxMmaSubByte, BitsWithAndOrXorPopc) {
  CNUAS_REQUIRE_NVCC();
  check_form({"b1_xor_m8n8k128", 8, 8, 128, T::B1, T::B1, T::S32, 1, 1, 2, -1, false, true}, 17);
  check_form({"b1_and_m16n8k128", 16, 8, 128, T::B1, T::B1, T::S32, 2, 1, 4, -1}, 18);
  check_form({"b1_xor_m16n8k256", 16, 8, 256, T::B1, T::B1, T::S32, 4, 2, 4, -1, false, true}, 19);
}

// b1 by hand (m8n8k128 .xor.popc): lane 0 holds bits 0-31 of row 0 of A (0xF0F0F0F0)
// and of column 0 of B (0xFF00FF00); every other bit of A, B and C is 0.
TEST(PtxMmaSubByte, XorPopcByHand) {
  CNUAS_REQUIRE_NVCC();
  std::vector<std::uint32_t> in(32 * 5, 0);
  in[0] = 0xF0F0F0F0u;  // lane 0: A
  in[1] = 0xFF00FF00u;  // lane 0: B
  Device dev("mma_sparse.ptx");
  const auto din = dev.upload(in);
  const auto dout = dev.alloc<std::uint32_t>(64);
  dev.launch("b1_xor_m8n8k128", {1, 1, 1}, {32, 1, 1}, din, dout);
  const auto out = dev.download<std::uint32_t>(dout, 64);
  EXPECT_EQ(out[0], 16u);  // D[0][0]: 0xF0F0F0F0 ^ 0xFF00FF00 = 0x0FF00FF0, 16 bits
  // D[0][1] (lane 0, element 1): row 0 of A against column 1 of B (lane 4's B, all 0):
  // 0xF0F0F0F0 XOR 0 has 16 bits.
  EXPECT_EQ(out[1], 16u);
  // D[1][0] (lane 4, element 0): row 1 of A (0) against column 0: 0xFF00FF00 has 16 bits.
  EXPECT_EQ(out[4 * 2], 16u);
  EXPECT_EQ(out[4 * 2 + 1], 0u);  // D[1][1]: 0 XOR 0
}

// The ISA leaves metadata with two equal indices (0x0, 0x5, 0xa, 0xf) and other
// selectors undefined; the engine stops the kernel and names the lane, the bits and the row.
TEST(PtxMmaSparse, InvalidMetadataStopsTheKernel) {
  CNUAS_REQUIRE_NVCC();
  std::vector<std::uint32_t> in(32 * 9, 0);
  for (unsigned lane = 0; lane < 32; ++lane) in[lane * 9 + 8] = 0x44444444u;  // 0b0100: ok
  in[5 * 9 + 8] = 0x44454444u;  // lane 5 (group 1, T1: selector 1): bits 19..16 = 0x5
  Device dev("mma_sparse.ptx");
  const auto din = dev.upload(in);
  const auto dout = dev.alloc<std::uint32_t>(32 * 4);
  try {
    dev.launch("sp_bf16_k16_sel1", {1, 1, 1}, {32, 1, 1}, din, dout);
    ADD_FAILURE() << "no error";
  } catch (const ExecutionError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("metadata 0x5 in bits 19..16 (row 9, chunk 0)"), std::string::npos) << m;
    EXPECT_NE(m.find("thread (5,0,0)"), std::string::npos) << m;
  }
  // The same word in lane 4 (T0, not selected) is ignored.
  in[5 * 9 + 8] = 0x44444444u;
  in[4 * 9 + 8] = 0x55555555u;
  Device ok("mma_sparse.ptx");
  const auto din2 = ok.upload(in);
  const auto dout2 = ok.alloc<std::uint32_t>(32 * 4);
  EXPECT_NO_THROW(ok.launch("sp_bf16_k16_sel1", {1, 1, 1}, {32, 1, 1}, din2, dout2));
}

TEST(PtxMmaSparse, UnorderedMetadataWithOrderedModifierStops) {
  CNUAS_REQUIRE_NVCC();
  std::vector<std::uint32_t> in(32 * 13, 0);
  for (unsigned lane = 0; lane < 32; ++lane) in[lane * 13 + 12] = 0x44444444u;
  in[0 * 13 + 12] = 0x44444441u;  // lane 0, bits 3..0: indices 1 then 0
  Device dev("mma_sparse.ptx");
  const auto din = dev.upload(in);
  const auto dout = dev.alloc<std::uint32_t>(32 * 4);
  try {
    dev.launch("sp_bf16_k32_ordered_sel0", {1, 1, 1}, {32, 1, 1}, din, dout);
    ADD_FAILURE() << "no error";
  } catch (const ExecutionError& e) {
    EXPECT_NE(std::string(e.what()).find("ordered_metadata needs the first index below"),
              std::string::npos)
        << e.what();
  }
}

TEST(PtxMmaSparse, FormsAndSelectorsOutsideTheIsaAreNamed) {
  const std::string header = ".version 9.0\n.target sm_90\n.address_size 64\n";
  auto reason = [&](const std::string& inst) {
    auto m = Module::parse(
        header + ".visible .entry k()\n{\n\t.reg .b32 %r<20>;\n\t" + inst + "\n\tret;\n}\n",
        "k.ptx");
    const auto u = m->unsupported();
    return u.empty() ? std::string() : u[0].reason;
  };
  // fp8 sparse takes only f32 accumulators; b1 needs its .popc operation.
  EXPECT_NE(reason("mma.sp.sync.aligned.m16n8k64.row.col.f16.e4m3.e4m3.f16 {%r1, %r2}, "
                   "{%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%r1, %r2}, %r9, 0;")
                .find("mma.sp form m16n8k64.f16.e4m3.e4m3.f16"),
            std::string::npos);
  EXPECT_NE(reason("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32 {%r1, %r2}, {%r3}, {%r4}, "
                   "{%r5, %r6};")
                .find(".and.popc or .xor.popc"),
            std::string::npos);
  EXPECT_NE(reason("mma.sp.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%r1, %r2, "
                   "%r3, %r4}, {%r1, %r2}, {%r5, %r6}, {%r1, %r2, %r3, %r4}, %r9, 0;"),
            "");
  EXPECT_NE(reason("add.s4 %r1, %r2, %r3;").find("sub-byte"), std::string::npos);
  EXPECT_EQ(reason("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32 "
                   "{%r1, %r2, %r3, %r4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, "
                   "{%r1, %r2, %r3, %r4}, %r9, 1;"),
            "");
}

TEST(PtxMmaSparse, SelectorOutsideTheIsaStopsTheKernel) {
  // m16n8k32 f16: two threads of each group hold metadata, so the selector is 0 or 1.
  DeviceMemory memory;
  std::ostringstream printed;
  Executor exec(memory, printed);
  auto module = Module::parse(
      ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n"
      "\t.reg .b32 %r<20>;\n\t.reg .f32 %f<10>;\n\tmov.b32 %r9, 0x44444444;\n"
      "\tmma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, "
      "{%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f5, %f6, %f7, %f8}, %r9, 2;\n\tret;\n}\n",
      "k.ptx");
  LoadedModule loaded(module, memory);
  LaunchConfig cfg;
  cfg.block = {32, 1, 1};
  try {
    exec.launch(loaded, "k", cfg);
    ADD_FAILURE() << "no error";
  } catch (const ExecutionError& e) {
    EXPECT_NE(std::string(e.what()).find("sparsity selector 2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("accepted 0 to 1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cnuas::ptx::testing
