#include "mma_layout.h"

namespace cnuas::ptx {
namespace {

bool nibble(Type t) {
  return t == Type::S4 || t == Type::U4;
}
bool f16_or_f32(Type t) {
  return t == Type::F16 || t == Type::F32;
}

std::string form_name(const MatrixOp& mx) {
  std::string bits;
  if (mx.bit_op != MatrixOp::BitOp::None)
    bits = mx.bit_op == MatrixOp::BitOp::And ? ".and.popc" : ".xor.popc";
  return std::string("the mma") +
         (mx.sparse ? (mx.ordered_metadata ? ".sp::ordered_metadata" : ".sp") : "") + " form m" +
         std::to_string(mx.m) + "n" + std::to_string(mx.n) + "k" + std::to_string(mx.k) + bits +
         "." + std::string(type_name(mx.d)) + "." + std::string(type_name(mx.a)) + "." +
         std::string(type_name(mx.b)) + "." + std::string(type_name(mx.c));
}

// The K values of m16n8 (m8n8 where `small` holds) for the input type, dense and sparse.
struct Shapes {
  unsigned dense[2];
  unsigned sparse[2];
  unsigned small;  // m8n8 dense K, 0 when none
};

Shapes shapes_of(Type a) {
  if (mma_half(a)) return {{8, 16}, {16, 32}, 0};
  if (a == Type::TF32) return {{4, 8}, {8, 16}, 0};
  if (mma_byte_int(a)) return {{16, 32}, {32, 64}, 16};
  if (mma_fp8(a)) return {{16, 32}, {64, 0}, 0};
  if (nibble(a)) return {{32, 64}, {64, 128}, 32};
  if (a == Type::B1) return {{128, 256}, {0, 0}, 128};
  if (a == Type::F64) return {{0, 0}, {0, 0}, 4};
  return {{0, 0}, {0, 0}, 0};
}

}  // namespace

std::string mma_form_problem(const MatrixOp& mx) {
  const std::string known =
      " (forms known: m16n8k8/k16 f16/bf16, m16n8k4/k8 tf32, m16n8k16/k32 s8/u8 and "
      "e4m3/e5m2, m8n8k16 s8/u8, m8n8k32 and m16n8k32/k64 s4/u4, m8n8k128 and m16n8k128/k256 "
      "b1 with .and.popc or .xor.popc, m8n8k4 f64; sparse .sp: m16n8k16/k32 f16/bf16, "
      "m16n8k8/k16 tf32, m16n8k32/k64 s8/u8, m16n8k64/k128 s4/u4, m16n8k64 e4m3/e5m2)";
  const Type a = mx.a, b = mx.b;
  const bool types_ok = mma_half(a)       ? b == a
                        : a == Type::TF32 ? b == a
                        : mma_byte_int(a) ? mma_byte_int(b)
                        : mma_fp8(a)      ? mma_fp8(b)
                        : nibble(a)       ? nibble(b)
                        : a == Type::B1   ? b == a
                        : a == Type::F64  ? b == a
                                          : false;
  if (!types_ok) return form_name(mx) + known;
  bool acc_ok;
  if (a == Type::F16)
    acc_ok = f16_or_f32(mx.c) && f16_or_f32(mx.d);
  else if (mma_fp8(a))
    acc_ok =
        mx.sparse ? mx.c == Type::F32 && mx.d == Type::F32 : f16_or_f32(mx.c) && f16_or_f32(mx.d);
  else if (mma_byte_int(a) || nibble(a) || a == Type::B1)
    acc_ok = mx.c == Type::S32 && mx.d == Type::S32;
  else if (a == Type::F64)
    acc_ok = mx.c == Type::F64 && mx.d == Type::F64;
  else
    acc_ok = mx.c == Type::F32 && mx.d == Type::F32;
  if (!acc_ok) return form_name(mx) + known;
  const Shapes s = shapes_of(a);
  bool shape_ok;
  if (mx.m == 8 && mx.n == 8)
    shape_ok = !mx.sparse && s.small != 0 && mx.k == s.small;
  else if (mx.m == 16 && mx.n == 8)
    shape_ok = mx.sparse ? mx.k != 0 && (mx.k == s.sparse[0] || mx.k == s.sparse[1])
                         : mx.k != 0 && (mx.k == s.dense[0] || mx.k == s.dense[1]);
  else
    shape_ok = false;
  if (!shape_ok) return form_name(mx) + known;
  if ((a == Type::B1) != (mx.bit_op != MatrixOp::BitOp::None))
    return form_name(mx) + " (.b1 takes .and.popc or .xor.popc; other types neither)";
  if (mx.ordered_metadata && !mx.sparse) return form_name(mx) + known;
  return {};
}

unsigned mma_element_bits(Type t) {
  switch (t) {
    case Type::B1:
      return 1;
    case Type::S4:
    case Type::U4:
      return 4;
    case Type::TF32:
      return 32;
    default:
      return type_bits(t);
  }
}

MmaCoord mma_fragment_coord(const MatrixOp& mx, char which, unsigned lane, unsigned e) {
  const unsigned g = lane / 4, t = lane % 4;
  if (which == 'c') {
    if (mx.m == 8) return {g, 2 * t + e};  // m8n8: two elements per lane, one row
    return {g + 8 * ((e / 2) % 2), 2 * t + e % 2};
  }
  if (mx.a == Type::F64) return which == 'a' ? MmaCoord{g, t} : MmaCoord{t, g};
  // Every other input packs `per` elements in a register; lane t of a group holds `per`
  // consecutive elements along K, and the next register moves on by 4 * per along K (B)
  // or alternates rows g, g + 8 before moving on along K (A).
  const unsigned per = 32 / mma_element_bits(which == 'a' ? mx.a : mx.b);
  const unsigned r = e / per, p = e % per;
  if (which == 'a') return {g + 8 * (r % 2), per * t + p + 4 * per * (r / 2)};
  return {per * t + p + 4 * per * r, g};
}

unsigned mma_fragment_elements(const MatrixOp& mx, char which) {
  switch (which) {
    case 'a':
      return mx.m * (mx.sparse ? mx.k / 2 : mx.k) / 32u;
    case 'b':
      return mx.k * mx.n / 32u;
    default:
      return mx.m * mx.n / 32u;
  }
}

unsigned SparseA::chunks_per_row() const {
  if (type == Type::TF32) return k / 2;
  if (nibble(type)) return k / 8;
  return k / 4;
}

std::string expand_sparse_rows(const SparseA& s, unsigned selector, bool ordered,
                               const std::uint64_t* metadata, const std::vector<double>& packed,
                               std::vector<double>& full, unsigned& lane) {
  const unsigned threads = s.metadata_threads(), kp = s.k / 2;
  if (selector >= s.selectors()) {
    lane = 0;
    return "sparsity selector " + std::to_string(selector) + " (for ." +
           std::string(type_name(s.type)) + " with K " + std::to_string(s.k) + " it selects " +
           std::to_string(threads) + " thread" + (threads > 1 ? "s" : "") +
           " of each group of four: accepted 0" +
           (s.selectors() > 1 ? " to " + std::to_string(s.selectors() - 1) : std::string()) + ")";
  }
  const bool tf32 = s.type == Type::TF32;
  const unsigned unit = nibble(s.type) ? 2 : 1;
  full.assign(std::size_t{16} * s.k, 0.0);
  for (unsigned row = 0; row < 16; ++row)
    for (unsigned chunk = 0; chunk < s.chunks_per_row(); ++chunk) {
      lane = 4 * (row % 8) + selector * threads + chunk / 4;
      const unsigned shift = 16 * (row / 8) + 4 * (chunk % 4);
      const unsigned meta = static_cast<unsigned>(metadata[lane] >> shift) & 0xf;
      const std::string where = "metadata 0x" + std::string(1, "0123456789abcdef"[meta]) +
                                " in bits " + std::to_string(shift + 3) + ".." +
                                std::to_string(shift) + " (row " + std::to_string(row) +
                                ", chunk " + std::to_string(chunk) + ")";
      if (tf32) {
        if (meta != 0x4 && meta != 0xe)
          return where + ": .tf32 takes 0x4 (element 0 of the pair) or 0xe (element 1)";
        full[std::size_t{row} * s.k + 2 * chunk + (meta == 0xe ? 1 : 0)] =
            packed[std::size_t{row} * kp + chunk];
        continue;
      }
      const unsigned first = meta & 3, second = meta >> 2;
      if (first == second)
        return where + ": both indices are " + std::to_string(first) +
               " (the ISA leaves 0x0, 0x5, 0xa and 0xf undefined)";
      if (ordered && first > second)
        return where + ": .sp::ordered_metadata needs the first index below the second";
      const unsigned index[2] = {first, second};
      for (unsigned slot = 0; slot < 2; ++slot)
        for (unsigned w = 0; w < unit; ++w)
          full[std::size_t{row} * s.k + (4 * chunk + index[slot]) * unit + w] =
              packed[std::size_t{row} * kp + (2 * chunk + slot) * unit + w];
    }
  return {};
}

}  // namespace cnuas::ptx
