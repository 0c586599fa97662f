// wgmma: the warpgroup-level matrix multiply-accumulate of sm_90a.
//
// The four warps of a warpgroup (warps 4j..4j+3 of the CTA) each issue the
// same wgmma.mma_async; warp r of the group owns rows 16r..16r+15 of the
// 64-row result, and its A rows when A comes from registers. So each warp's
// share is computed when that warp issues the instruction, from its own
// registers and the shared-memory operands the descriptors name.
//
// Asynchrony: the engine reads the operands and writes D when a warp issues
// wgmma.mma_async, i.e. as if every wgmma completed at once. The ISA makes the
// accumulator registers and the shared-memory operands undefined to touch
// between the wgmma and the wgmma.wait_group that retires it, so a program
// that follows the rules sees the same values as with any later completion;
// wgmma.fence, commit_group and wait_group therefore have nothing left to
// wait for functionally. (The timing model keeps the asynchrony: the tensor
// core works while the warp runs on, and wait_group waits for it.)
//
// Fragment layouts (ISA "Register Fragments and Shared Memory Matrix Layouts"),
// with g = lane / 4 and t = lane % 4 within the warp:
//   D (m64nN): element e of a lane lies at row 16r + g + 8 ((e / 2) % 2),
//              column 8 (e / 4) + 2t + e % 2; f32/s32 one per register, f16 two.
//   A (registers): the m16nNk mma A fragment of the warp's 16 rows (16-bit: two per
//              register, tf32: one, 8-bit: four).
//   .sp: A is packed to K/2 columns (registers: the layout of the dense K/2 shape; shared
//              memory: the canonical layout of a K/2-wide A), and each warp's metadata
//              and selector follow mma.sp's for the same 16 x K rows (mma_layout.h).
#include <cmath>
#include <cstring>
#include <vector>

#include "exec_state.h"
#include "matrix_elements.h"
#include "mma_layout.h"
#include "ptx/wgmma_layout.h"

namespace cnuas::ptx {

std::uint8_t* space_bytes(Ctx& c, const Instruction& i, Space space, std::uint64_t a,
                          unsigned bytes, unsigned lane);

namespace {

using u64 = std::uint64_t;

struct Coord {
  unsigned row, col;
};

// Element e of a lane's A fragment (16 rows of the warp, K columns).
Coord a_coord(Type t, unsigned lane, unsigned e) {
  const unsigned g = lane / 4, q = lane % 4;
  if (t == Type::TF32) return {g + 8 * (e % 2), q + 4 * (e / 2)};
  if (type_bytes(t) == 1) return {g + 8 * ((e / 4) % 2), 4 * q + e % 4 + 16 * (e / 8)};
  return {g + 8 * ((e / 2) % 2), 2 * q + e % 2 + 8 * (e / 4)};
}

Coord d_coord(unsigned lane, unsigned e) {
  const unsigned g = lane / 4, q = lane % 4;
  return {g + 8 * ((e / 2) % 2), 8 * (e / 4) + 2 * q + e % 2};
}

unsigned in_bytes(Type t) {
  return t == Type::TF32 ? 4 : type_bytes(t);
}

// The operand's elements as doubles, row-major rows x k, read through a descriptor.
// `first` is the first row (mn) read; A reads the warp's 16 rows, B all N columns.
std::vector<double> read_shared(Ctx& c, const Instruction& i, u64 bits, unsigned first,
                                unsigned rows, unsigned k, Type t, bool mn_major, double scale) {
  const WgmmaDescriptor d = decode_wgmma_descriptor(bits);
  const unsigned lane = static_cast<unsigned>(__builtin_ctz(c.mask));
  if (std::string why = wgmma_descriptor_problem(d); !why.empty()) c.fault(lane, i, why);
  const unsigned eb = in_bytes(t);
  std::vector<double> v(std::size_t{rows} * k);
  for (unsigned r = 0; r < rows; ++r)
    for (unsigned kk = 0; kk < k; ++kk) {
      const std::uint32_t a = wgmma_smem_address(d, first + r, kk, eb, mn_major);
      const std::uint8_t* p = space_bytes(c, i, Space::Shared, a, eb, lane);
      u64 raw = 0;
      std::memcpy(&raw, p, eb);
      v[std::size_t{r} * k + kk] = scale * matrix_element_value(raw, t);
    }
  return v;
}

// The warp's 16 rows of A from its registers.
std::vector<double> read_registers(Ctx& c, const Instruction& i, unsigned k, Type t, double scale) {
  const Operand& regs = i.ops[1];
  const unsigned eb = in_bytes(t), per = 4 / eb, n = 16 * k / 32;
  if (regs.regs.size() * per != n)
    c.fault(0, i,
            "wgmma A fragment has " + std::to_string(regs.regs.size()) + " registers; " +
                std::to_string(n / per) + " are needed");
  std::vector<double> v(std::size_t{16} * k);
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned e = 0; e < n; ++e) {
      const std::int32_t r = regs.regs[e / per];
      if (r < 0) c.fault(lane, i, "wgmma A fragment register is a sink");
      const u64 word = c.reg(r)[lane] >> (8 * eb * (e % per));
      const Coord at = a_coord(t, lane, e);
      v[std::size_t{at.row} * k + at.col] =
          scale * matrix_element_value(word & ((u64{1} << (8 * eb)) - 1), t);
    }
  return v;
}

// wgmma.mma_async.sp: the warp's 16 packed rows of A as 16 x K, through the metadata
// (ops[4]) and sparsity selector (ops[5]) of the warp's lanes (mma_layout.h).
std::vector<double> unpack_sparse(Ctx& c, const Instruction& i, const std::vector<double>& packed) {
  std::uint64_t meta_scratch[32];
  const u64* meta = c.src(i.ops[4], meta_scratch);
  std::vector<double> full;
  unsigned lane = 0;  // the selector is an immediate (place_wgmma_operands checked it)
  const std::string why =
      expand_sparse_rows(SparseA{i.matrix.a, i.matrix.k}, static_cast<unsigned>(i.ops[5].imm),
                         i.matrix.ordered_metadata, meta, packed, full, lane);
  if (!why.empty()) c.fault(lane, i, "wgmma.mma_async.sp: " + why);
  return full;
}

void mma_async(Ctx& c, const Instruction& i) {
  const MatrixOp& mx = i.matrix;
  const unsigned warp_in_group = c.w.index % 4, n = mx.n, k = mx.k;
  const unsigned first = static_cast<unsigned>(__builtin_ctz(c.mask));
  const bool a_in_registers = i.ops[1].kind == Operand::Kind::Vector;
  const double sa = mx.scale_a, sb = mx.scale_b;
  // A sparse A is stored packed, K/2 wide, in registers or shared memory alike.
  const unsigned ka = mx.sparse ? k / 2 : k;
  std::vector<double> a = a_in_registers
                              ? read_registers(c, i, ka, mx.a, sa)
                              : read_shared(c, i, c.reg(i.ops[1].reg)[first], 16 * warp_in_group,
                                            16, ka, mx.a, mx.trans, sa);
  if (mx.sparse) a = unpack_sparse(c, i, a);
  const std::vector<double> b =
      read_shared(c, i, c.reg(i.ops[2].reg)[first], 0, n, k, mx.b, mx.trans_b, sb);
  std::uint64_t scratch[32];
  const bool accumulate = c.src(i.ops[3], scratch)[first] != 0;
  const Operand& dregs = i.ops[0];
  const unsigned per = mx.d == Type::F16 ? 2 : 1, elements = n / 2;
  if (dregs.regs.size() * per != elements)
    c.fault(first, i,
            "wgmma D fragment has " + std::to_string(dregs.regs.size()) + " registers; m64n" +
                std::to_string(n) + "." + std::string(type_name(mx.d)) + " needs " +
                std::to_string(elements / per));
  for (std::int32_t r : dregs.regs)
    if (r < 0) c.fault(first, i, "wgmma D fragment register is a sink");
  const unsigned bits = 32 / per;
  const u64 mask = (u64{1} << bits) - 1;
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned e = 0; e < elements; ++e) {
      u64& word = c.reg(dregs.regs[e / per])[lane];
      const unsigned shift = bits * (e % per);
      const Coord at = d_coord(lane, e);
      double sum = accumulate ? matrix_element_value((word >> shift) & mask, mx.d) : 0.0;
      const double* ar = &a[std::size_t{at.row} * k];
      const double* bc = &b[std::size_t{at.col} * k];
      for (unsigned kk = 0; kk < k; ++kk) sum += ar[kk] * bc[kk];
      const u64 out = matrix_element_bits(sum, mx.d, mx.satfinite) & mask;
      word = (word & ~(mask << shift)) | (out << shift);
    }
}

}  // namespace

bool exec_wgmma(Ctx& c, const Instruction& i) {
  if (i.op != Opcode::wgmma) return false;
  if (c.mask != 0xffffffffu)
    c.fault(static_cast<unsigned>(__builtin_ctz(c.mask)), i,
            "wgmma needs all 32 lanes of each warp of the warpgroup converged");
  if (i.matrix.kind == MatrixOp::Kind::Mma) mma_async(c, i);
  return true;  // fence, commit_group, wait_group: see the comment at the top
}

}  // namespace cnuas::ptx
