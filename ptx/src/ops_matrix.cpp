// wmma: warp-wide matrix load, multiply-accumulate and store. The PTX ISA
// leaves the distribution of fragment elements over the warp's registers
// unspecified, so the engine uses its own: element e of the logical matrix
// (row-major) lives in lane e % 32, slot e / 32, packed per register as the
// type requires (two f16/bf16, four s8/u8, one f32/tf32/s32/f64). Loads,
// multiplies and stores agree on it; element-wise code on fragments (fill,
// scale) works on any layout.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "fp8.h"
#include "half.h"
#include "lanes.h"
#include "matrix_elements.h"
#include "mma_layout.h"

namespace cnuas::ptx {

// ops_memory.cpp: the bytes at an address in a space, or a fault.
std::uint8_t* space_bytes(Ctx& c, const Instruction& i, Space space, std::uint64_t a,
                          unsigned bytes, unsigned lane);

namespace {

using u64 = std::uint64_t;

unsigned per_register(Type t) {
  switch (t) {
    case Type::F16:
    case Type::BF16:
      return 2;
    case Type::S8:
    case Type::U8:
    case Type::E4M3:
    case Type::E5M2:
      return 4;
    default:
      return 1;
  }
}

unsigned element_bytes(Type t) {
  return t == Type::TF32 ? 4 : type_bytes(t);
}

struct Dims {
  unsigned rows, cols;
};

Dims dims_of(const MatrixOp& mx, char which) {
  switch (which) {
    case 'a':
      return {mx.m, mx.k};
    case 'b':
      return {mx.k, mx.n};
    default:
      return {mx.m, mx.n};
  }
}

// A fragment as a plain matrix of doubles (exact for every supported type).
struct Fragment {
  Dims dims;
  std::vector<double> v;  // row-major
};

double decode(u64 bits, Type t) {
  switch (t) {
    case Type::F16:
      return f16_to_f32(static_cast<std::uint16_t>(bits));
    case Type::BF16:
      return bf16_to_f32(static_cast<std::uint16_t>(bits));
    case Type::TF32:
      return bits_to_f32(bits & 0xffffe000u);  // tensor cores read 10 mantissa bits
    case Type::F32:
      return bits_to_f32(bits);
    case Type::F64:
      return bits_to_f64(bits);
    case Type::S8:
      return static_cast<double>(sign_extend(bits, 8));
    case Type::U8:
      return static_cast<double>(bits & 0xff);
    case Type::E4M3:
    case Type::E5M2:
      return fp8_to_double(static_cast<std::uint8_t>(bits), t);
    case Type::S32:
      return static_cast<double>(sign_extend(bits, 32));
    case Type::S4:
      return static_cast<double>(sign_extend(bits, 4));
    case Type::U4:
      return static_cast<double>(bits & 0xf);
    case Type::B1:
      return static_cast<double>(bits & 1);
    default:
      return 0;
  }
}

u64 encode(double v, Type t, bool satfinite) {
  switch (t) {
    case Type::F16:
      return f64_to_f16(v, Round::Rn, satfinite);
    case Type::F32:
      return f32_to_bits(static_cast<float>(v));
    case Type::F64:
      return f64_to_bits(v);
    case Type::S32: {
      // Integer products are exact; the sum wraps like 32-bit hardware unless saturating.
      const auto w = static_cast<std::int64_t>(v);
      if (satfinite)
        return static_cast<std::uint32_t>(std::clamp<std::int64_t>(w, INT32_MIN, INT32_MAX));
      return static_cast<std::uint32_t>(static_cast<std::uint64_t>(w));
    }
    default:
      return 0;
  }
}

// Reads the fragment held in a vector operand.
Fragment gather(Ctx& c, const Instruction& i, const Operand& regs, Dims d, Type t) {
  const unsigned per = per_register(t), bits = element_bytes(t) * 8;
  Fragment f{d, std::vector<double>(std::size_t{d.rows} * d.cols, 0.0)};
  for (std::size_t e = 0; e < f.v.size(); ++e) {
    const unsigned lane = e % 32, slot = static_cast<unsigned>(e / 32);
    const std::size_t r = slot / per;
    if (r >= regs.regs.size() || regs.regs[r] < 0)
      c.fault(lane, i, "wmma fragment has too few registers");
    const u64 word = c.reg(regs.regs[r])[lane];
    f.v[e] = decode(truncate(word >> ((slot % per) * bits), bits), t);
  }
  return f;
}

void scatter(Ctx& c, const Instruction& i, const Operand& regs, const std::vector<u64>& elements,
             Type t) {
  const unsigned per = per_register(t), bits = element_bytes(t) * 8;
  for (std::size_t e = 0; e < elements.size(); ++e) {
    const unsigned lane = e % 32, slot = static_cast<unsigned>(e / 32);
    const std::size_t r = slot / per;
    if (r >= regs.regs.size() || regs.regs[r] < 0)
      c.fault(lane, i, "wmma fragment has too few registers");
    u64& word = c.reg(regs.regs[r])[lane];
    const unsigned shift = (slot % per) * bits;
    const u64 mask = (bits >= 64 ? ~u64{0} : ((u64{1} << bits) - 1)) << shift;
    word = (word & ~mask) | ((elements[e] << shift) & mask);
  }
}

// Element (r, col) of a matrix stored with leading dimension `stride` in the given layout.
u64 element_offset(unsigned r, unsigned col, bool row_major, u64 stride) {
  return row_major ? r * stride + col : col * stride + r;
}

// What a timing model sees of a wmma.load/store: the tile as 32 equal contiguous pieces, lane
// l's at piece l of the lines (rows, or columns when column-major) in order, as the hardware's
// load of a fragment moves it. The element loop recorded its space; a tile that does not cut
// into such pieces (sub-byte elements) keeps what that loop recorded.
void record_tile_access(Ctx& c, u64 base, u64 stride, const Dims& d, bool row_major, unsigned eb) {
  if (!c.record || eb == 0) return;
  const u64 line_bytes = u64{row_major ? d.cols : d.rows} * eb;
  const u64 total = line_bytes * (row_major ? d.rows : d.cols);
  const u64 piece = total / 32;
  if (piece == 0 || total % 32 != 0 || line_bytes % piece != 0) return;
  const u64 per_line = line_bytes / piece;
  for (unsigned l = 0; l < 32; ++l)
    c.record->addresses[l] = base + (l / per_line) * stride * eb + (l % per_line) * piece;
  c.record->access_bytes = static_cast<std::uint32_t>(piece);
}

}  // namespace

double matrix_element_value(u64 bits, Type t) {
  return decode(bits, t);
}
u64 matrix_element_bits(double v, Type t, bool satfinite) {
  return encode(v, t, satfinite);
}

bool exec_matrix(Ctx& c, const Instruction& i) {
  if (i.op != Opcode::wmma) return false;
  const MatrixOp& mx = i.matrix;
  const unsigned first = static_cast<unsigned>(__builtin_ctz(c.mask));
  if (c.mask != 0xffffffffu)
    c.fault(first, i,
            "wmma needs all 32 lanes of the warp converged (active mask " + std::to_string(c.mask) +
                ")");
  std::uint64_t scratch[32];
  if (mx.kind == MatrixOp::Kind::Load || mx.kind == MatrixOp::Kind::Store) {
    const bool load = mx.kind == MatrixOp::Kind::Load;
    const Operand& regs = i.ops[load ? 0 : 1];
    const Operand& addr = i.ops[load ? 1 : 0];
    const Dims d = dims_of(mx, mx.which);
    const Type t = mx.a;
    const unsigned eb = element_bytes(t);
    const u64 default_stride = mx.row ? d.cols : d.rows;
    const u64* stride = i.nops > 2 ? c.src(i.ops[2], scratch) : nullptr;
    // Every lane passes the same base and stride (the ISA requires it); lane 0's are used.
    u64 base = addr.reg >= 0 ? c.reg(addr.reg)[0] : (addr.has_symbol ? c.symbol_value(addr, 0) : 0);
    const Space space = i.space == Space::None ? Space::Generic : i.space;
    base = (base + static_cast<u64>(addr.imm)) & address_mask(c, addr, space);
    const u64 ld = stride ? stride[0] : default_stride;
    if (load) {
      std::vector<u64> elements(std::size_t{d.rows} * d.cols);
      for (std::size_t e = 0; e < elements.size(); ++e) {
        const unsigned r = static_cast<unsigned>(e / d.cols),
                       col = static_cast<unsigned>(e % d.cols);
        const std::uint8_t* p =
            space_bytes(c, i, space, base + element_offset(r, col, mx.row, ld) * eb, eb,
                        static_cast<unsigned>(e % 32));
        u64 v = 0;
        std::memcpy(&v, p, eb);
        elements[e] = v;
      }
      scatter(c, i, regs, elements, t);
    } else {
      const Fragment f = gather(c, i, regs, d, t);
      for (std::size_t e = 0; e < f.v.size(); ++e) {
        const unsigned r = static_cast<unsigned>(e / d.cols),
                       col = static_cast<unsigned>(e % d.cols);
        std::uint8_t* p = space_bytes(c, i, space, base + element_offset(r, col, mx.row, ld) * eb,
                                      eb, static_cast<unsigned>(e % 32));
        const u64 v = encode(f.v[e], t, false);
        std::memcpy(p, &v, eb);
      }
    }
    record_tile_access(c, base, ld, d, mx.row, eb);
    return true;
  }
  // D = A x B + C, products exact in double, summed in order of k.
  const Fragment a = gather(c, i, i.ops[1], dims_of(mx, 'a'), mx.a);
  const Fragment b = gather(c, i, i.ops[2], dims_of(mx, 'b'), mx.b);
  const Fragment acc = gather(c, i, i.ops[3], dims_of(mx, 'c'), mx.c);
  std::vector<u64> out(std::size_t{mx.m} * mx.n);
  for (unsigned r = 0; r < mx.m; ++r)
    for (unsigned col = 0; col < mx.n; ++col) {
      double sum = acc.v[std::size_t{r} * mx.n + col];
      for (unsigned k = 0; k < mx.k; ++k)
        sum += a.v[std::size_t{r} * mx.k + k] * b.v[std::size_t{k} * mx.n + col];
      out[std::size_t{r} * mx.n + col] = encode(sum, mx.d, mx.satfinite);
    }
  scatter(c, i, i.ops[0], out, mx.d);
  return true;
}

}  // namespace cnuas::ptx

// mma.sync, ldmatrix, stmatrix and movmatrix: the per-lane fragment layouts
// the PTX ISA defines (groupID = lane / 4, t = lane % 4), which warp-level
// code such as CUTLASS depends on element by element.
namespace cnuas::ptx {
namespace {

using Coord = MmaCoord;

// A lane's fragment of A, B or C as a plain matrix; a sparse A is returned packed (M x K/2).
Fragment gather_mma(Ctx& c, const Instruction& i, const Operand& regs, char which, Type t) {
  const MatrixOp& mx = i.matrix;
  const unsigned bits = mma_element_bits(t), per = bits >= 32 ? 1 : 32 / bits,
                 n = mma_fragment_elements(mx, which);
  Dims dims = dims_of(mx, which);
  if (which == 'a' && mx.sparse) dims.cols /= 2;
  Fragment f{dims, {}};
  f.v.assign(std::size_t{f.dims.rows} * f.dims.cols, 0.0);
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned e = 0; e < n; ++e) {
      const unsigned r = e / per;
      if (r >= regs.regs.size() || regs.regs[r] < 0)
        c.fault(lane, i, "mma fragment has too few registers");
      const u64 word = c.reg(regs.regs[r])[lane];
      const Coord at = mma_fragment_coord(mx, which, lane, e);
      f.v[std::size_t{at.row} * f.dims.cols + at.col] =
          decode(truncate(word >> ((e % per) * bits), bits), t);
    }
  return f;
}

// mma.sp: the packed A with its metadata (ops[4]) and selector (ops[5]) as the full M x K A.
Fragment unpack_sparse(Ctx& c, const Instruction& i, const Fragment& packed) {
  const MatrixOp& mx = i.matrix;
  std::uint64_t meta_scratch[32];
  if (i.nops != 6 || i.ops[5].kind != Operand::Kind::Imm)
    c.fault(0, i,
            "mma.sp takes six operands (d, a, b, c, metadata, and the sparsity selector as an "
            "integer constant)");
  const u64* meta = c.src(i.ops[4], meta_scratch);
  Fragment full{dims_of(mx, 'a'), {}};
  unsigned lane = 0;
  const std::string why =
      expand_sparse_rows(SparseA{mx.a, mx.k}, static_cast<unsigned>(i.ops[5].imm),
                         mx.ordered_metadata, meta, packed.v, full.v, lane);
  if (!why.empty()) c.fault(lane, i, "mma.sp: " + why);
  return full;
}

// ldmatrix/stmatrix/movmatrix: lane l holds, for matrix k, the b16 pair at
// row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1 (transposed with .trans).
void pair_coords(unsigned lane, bool trans, Coord out[2]) {
  const unsigned r = lane / 4, c0 = 2 * (lane % 4);
  for (unsigned h = 0; h < 2; ++h) out[h] = trans ? Coord{c0 + h, r} : Coord{r, c0 + h};
}

}  // namespace

bool exec_mma(Ctx& c, const Instruction& i) {
  const MatrixOp& mx = i.matrix;
  if (i.op != Opcode::mma && i.op != Opcode::ldmatrix && i.op != Opcode::stmatrix &&
      i.op != Opcode::movmatrix)
    return false;
  if (c.mask != 0xffffffffu)
    c.fault(static_cast<unsigned>(__builtin_ctz(c.mask)), i,
            std::string(opcode_name(i.op)) + " needs all 32 lanes of the warp converged");
  if (i.op == Opcode::mma) {
    Fragment a = gather_mma(c, i, i.ops[1], 'a', mx.a);
    if (mx.sparse) a = unpack_sparse(c, i, a);
    const Fragment b = gather_mma(c, i, i.ops[2], 'b', mx.b);
    const Fragment acc = gather_mma(c, i, i.ops[3], 'c', mx.c);
    const unsigned per = per_register(mx.d), bits = element_bytes(mx.d) * 8,
                   n = mma_fragment_elements(mx, 'c');
    const bool bits_xor = mx.bit_op == MatrixOp::BitOp::Xor;
    std::vector<u64> words(std::size_t{32} * i.ops[0].regs.size(), 0);
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned e = 0; e < n; ++e) {
        const Coord at = mma_fragment_coord(mx, 'c', lane, e);
        double sum = acc.v[std::size_t{at.row} * mx.n + at.col];
        // .b1: the population count of A AND B or A XOR B, bit by bit the same sum.
        for (unsigned k = 0; k < mx.k; ++k) {
          const double x = a.v[std::size_t{at.row} * mx.k + k],
                       y = b.v[std::size_t{k} * mx.n + at.col];
          sum += bits_xor ? static_cast<double>(x != y) : x * y;
        }
        words[lane * i.ops[0].regs.size() + e / per] |= encode(sum, mx.d, mx.satfinite)
                                                        << ((e % per) * bits);
      }
    for (unsigned lane = 0; lane < 32; ++lane)
      for (std::size_t r = 0; r < i.ops[0].regs.size(); ++r)
        if (i.ops[0].regs[r] >= 0)
          c.reg(i.ops[0].regs[r])[lane] = words[lane * i.ops[0].regs.size() + r];
    return true;
  }
  if (i.op == Opcode::movmatrix) {  // transpose one 8x8 b16 matrix held across the warp
    u64 element[8][8];
    const u64* src = c.reg(i.ops[1].reg);
    for (unsigned lane = 0; lane < 32; ++lane) {
      Coord at[2];
      pair_coords(lane, false, at);
      for (unsigned h = 0; h < 2; ++h)
        element[at[h].row][at[h].col] = (src[lane] >> (16 * h)) & 0xffff;
    }
    u64* dst = c.reg(i.ops[0].reg);
    for (unsigned lane = 0; lane < 32; ++lane) {
      Coord at[2];
      pair_coords(lane, true, at);
      dst[lane] = element[at[0].row][at[0].col] | (element[at[1].row][at[1].col] << 16);
    }
    return true;
  }
  // ldmatrix / stmatrix: lanes 8k..8k+7 give the row addresses of matrix k.
  const bool load = i.op == Opcode::ldmatrix;
  const Operand& regs = i.ops[load ? 0 : 1];
  const Operand& addr = i.ops[load ? 1 : 0];
  const Space space = i.space == Space::None ? Space::Generic : i.space;
  for (unsigned k = 0; k < mx.count; ++k) {
    if (k >= regs.regs.size() || regs.regs[k] < 0) c.fault(0, i, "fragment has too few registers");
    u64* word = c.reg(regs.regs[k]);
    for (unsigned lane = 0; lane < 32; ++lane) {
      Coord at[2];
      pair_coords(lane, mx.trans, at);
      u64 value = load ? 0 : word[lane];
      for (unsigned h = 0; h < 2; ++h) {
        const unsigned provider = 8 * k + at[h].row;
        u64 row = addr.reg >= 0 ? c.reg(addr.reg)[provider] : 0;
        row = (row + static_cast<u64>(addr.imm)) & address_mask(c, addr, space);
        std::uint8_t* p = space_bytes(c, i, space, row + 2 * at[h].col, 2, provider);
        if (load) {
          std::uint16_t v;
          std::memcpy(&v, p, 2);
          value |= u64{v} << (16 * h);
        } else {
          const std::uint16_t v = static_cast<std::uint16_t>(value >> (16 * h));
          std::memcpy(p, &v, 2);
        }
      }
      if (load) word[lane] = value;
    }
  }
  // What a timing model sees: each lane's 16-byte row (lanes 8k..8k+7 name matrix k's rows;
  // with fewer matrices the other lanes repeat those rows, which costs nothing more).
  if (c.record) {
    for (unsigned lane = 0; lane < 32; ++lane) {
      const unsigned provider = lane % (8 * mx.count);
      const u64 row = addr.reg >= 0 ? c.reg(addr.reg)[provider] : 0;
      c.record->addresses[lane] = (row + static_cast<u64>(addr.imm)) & address_mask(c, addr, space);
    }
    c.record->access_bytes = 16;
  }
  return true;
}

}  // namespace cnuas::ptx
