// The bulk copies of sm_90 (the Tensor Memory Accelerator's instructions): cp.async.bulk between
// global and shared memory (multicast to the CTAs of a cluster), cp.async.bulk.tensor with tiled
// and im2col boxes described by a tensor map, the reductions cp.reduce.async.bulk{.tensor}, and
// the prefetches. A copy is done when the issuing thread executes it: the transaction bytes
// complete on the destination's mbarrier at once (a timing model may ask to complete them itself,
// when its copy engine says the data arrived), and a bulk group has nothing left to wait for.
// Shared-memory layout of a box, swizzle and out-of-bound fill: docs/ptx-engine.md.
#include <algorithm>
#include <cstring>
#include <string>

#include "lanes.h"
#include "ptx/tensor_map.h"

namespace cnuas::ptx {

std::uint8_t* space_bytes(Ctx& c, const Instruction& i, Space space, std::uint64_t a,
                          unsigned bytes, unsigned lane);  // ops_memory.cpp
std::uint64_t atomic_op(Mode m, Type t, std::uint64_t old, std::uint64_t b,
                        std::uint64_t c);  // ops_memory.cpp
void mbarrier_complete_tx(Ctx& c, const Instruction& i, Space space, std::uint64_t a,
                          std::uint64_t bytes, unsigned lane);  // ops_mbarrier.cpp

namespace {

using u64 = std::uint64_t;
using i64 = std::int64_t;

u64 operand_address(Ctx& c, const Operand& o, Space space, unsigned l) {
  u64 base = o.reg >= 0 ? c.reg(o.reg)[l] : (o.has_symbol ? c.symbol_value(o, l) : 0);
  return (base + static_cast<u64>(o.imm)) & address_mask(c, o, space);
}

// The reductions the PTX ISA defines per element type.
bool reduction_defined(Mode m, Type t) {
  switch (m) {
    case Mode::And:
    case Mode::Or:
    case Mode::Xor:
      return t == Type::B32 || t == Type::B64 || t == Type::U32 || t == Type::S32 ||
             t == Type::U64 || t == Type::S64;
    case Mode::Inc:
    case Mode::Dec:
      return t == Type::U32;
    case Mode::Min:
    case Mode::Max:
      return t == Type::U32 || t == Type::S32 || t == Type::U64 || t == Type::S64 ||
             t == Type::F16 || t == Type::BF16;
    case Mode::Add:
      return t == Type::U32 || t == Type::S32 || t == Type::U64 || t == Type::F32 ||
             t == Type::F64 || t == Type::F16 || t == Type::BF16;
    default:
      return false;
  }
}

// The PTX element type of a CUtensorMapDataType, for reductions.
Type tensor_type(unsigned t) {
  static constexpr Type kTypes[] = {Type::U8,  Type::U16, Type::U32, Type::S32, Type::U64,
                                    Type::S64, Type::F16, Type::F32, Type::F64, Type::BF16,
                                    Type::F32, Type::F32, Type::F32};
  return t < std::size(kTypes) ? kTypes[t] : Type::None;
}

void reduce_into(Mode m, Type t, std::uint8_t* dst, const std::uint8_t* src, unsigned eb) {
  u64 v = 0;
  std::memcpy(&v, src, eb);
  atomic_update(dst, eb, [&](u64 old) { return atomic_op(m, t, old, v, 0); });
}

// The CTAs a shared::cluster (or shared::cta) destination names, with the CTA-relative offset:
// one, or with .multicast::cluster every CTA whose rank bit is set in the mask.
struct Destinations {
  Executor::Cta::State* cta[16] = {};
  std::uint32_t rank[16] = {};
  unsigned count = 0;
  u64 offset = 0;
};

Destinations destinations(Ctx& c, const Instruction& i, u64 dst, const u64* mask, unsigned l) {
  Destinations d;
  const Space space = i.bulk.dst == Space::Shared ? Space::Shared : Space::SharedCluster;
  const SharedTarget t = shared_target(c.s, space, dst);
  if (!t.cta) c.fault(l, i, "bulk copy destination is not a shared address of this cluster");
  d.offset = t.offset;
  if (!i.bulk.multicast) {
    d.cta[0] = t.cta;
    d.rank[0] = t.cta->rank;
    d.count = 1;
    return d;
  }
  const ClusterState& cl = *c.s.cluster;
  const u64 m = mask[l] & 0xffff;
  if (m >> cl.members.size())
    c.fault(l, i,
            "multicast CTA mask 0x" + std::to_string(m) + " names ranks beyond the cluster of " +
                std::to_string(cl.members.size()) + " CTAs");
  for (std::uint32_t r = 0; r < cl.members.size(); ++r)
    if ((m >> r) & 1) d.cta[d.count] = cl.members[r], d.rank[d.count++] = r;
  return d;
}

std::uint8_t* shared_bytes(Ctx& c, const Instruction& i, Executor::Cta::State& cta, u64 offset,
                           u64 bytes, unsigned l) {
  if (offset + bytes > cta.shared.size() || offset + bytes < offset)
    c.fault(l, i,
            "bulk copy of " + std::to_string(bytes) + " bytes at shared offset " +
                std::to_string(offset) + " is outside the CTA's " +
                std::to_string(cta.shared.size()) + " bytes of shared memory");
  return cta.shared.data() + offset;
}

bool deferred(const Ctx& c) {
  return c.record && c.record->defer_transactions;
}

// For a timing model: global bytes the copy moves, contiguous runs merged.
void note_global(Ctx& c, u64 address, u64 bytes, bool to_global) {
  if (!deferred(c) || bytes == 0) return;
  std::vector<BulkRange>& r = c.record->bulk;
  c.record->bulk_to_global = to_global;
  if (!r.empty() && r.back().address + r.back().bytes == address &&
      r.back().bytes + bytes <= UINT32_MAX) {
    r.back().bytes += static_cast<std::uint32_t>(bytes);
    return;
  }
  r.push_back({address, static_cast<std::uint32_t>(bytes)});
}

// Completes `bytes` on each destination CTA's mbarrier at the mbarrier operand's CTA-relative
// offset (under a timing model: when it says the data arrived).
void complete(Ctx& c, const Instruction& i, const Destinations& d, u64 bar, u64 bytes, unsigned l) {
  const Space space = i.bulk.dst == Space::Shared ? Space::Shared : Space::SharedCluster;
  const SharedTarget t = shared_target(c.s, space, bar);
  if (!t.cta) c.fault(l, i, "the mbarrier operand is not a shared address of this cluster");
  for (unsigned k = 0; k < d.count; ++k) {
    const u64 a = (u64{d.rank[k] + 1} << kClusterRankShift) | t.offset;
    if (!deferred(c)) {
      mbarrier_complete_tx(c, i, Space::SharedCluster, a, bytes, l);
      continue;
    }
    space_bytes(c, i, Space::SharedCluster, a, 8, l);  // must exist now
    if (t.offset % 8) c.fault(l, i, "mbarrier object address is not 8-byte aligned");
    c.record->transactions.push_back({d.rank[k], t.offset, bytes});
  }
}

// cp.async.bulk / cp.reduce.async.bulk / cp.async.bulk.prefetch without a tensor map.
void plain_copy(Ctx& c, const Instruction& i) {
  const BulkOp& b = i.bulk;
  const bool prefetch = b.kind == BulkOp::Kind::Prefetch;
  std::uint64_t ss[32], sm[32];
  const u64* size = c.src(i.ops[prefetch ? 1 : 2], ss);
  const u64* mask = b.multicast && i.nops > 4 ? c.src(i.ops[4], sm) : nullptr;
  if (b.multicast && !mask)
    c.fault(static_cast<unsigned>(__builtin_ctz(c.mask)), i, "multicast without a CTA mask");
  const unsigned eb = b.reduce == Mode::None ? 1 : type_bytes(i.type);
  if (b.reduce != Mode::None && !reduction_defined(b.reduce, i.type))
    c.fault(static_cast<unsigned>(__builtin_ctz(c.mask)), i,
            "cp.reduce.async.bulk with this operation on ." + std::string(type_name(i.type)) +
                " (the PTX ISA defines add on u32/s32/u64/f32/f64/f16/bf16, min/max on "
                "u32/s32/u64/s64/f16/bf16, inc/dec on u32, and/or/xor on b32/b64)");
  each_lane(c.mask, [&](unsigned l) {
    const u64 n = size[l] & 0xffffffffu;
    if (n % 16) c.fault(l, i, "bulk copy size " + std::to_string(n) + " is not a multiple of 16");
    if (prefetch) {
      const u64 a = operand_address(c, i.ops[0], Space::Global, l);
      if (a % 16) c.fault(l, i, "bulk prefetch address is not 16-byte aligned");
      if (n) space_bytes(c, i, Space::Global, a, static_cast<unsigned>(n), l);  // must exist
      return;
    }
    const u64 da = operand_address(c, i.ops[0], b.dst, l);
    const u64 sa = operand_address(c, i.ops[1], b.src, l);
    if (da % 16 || sa % 16) c.fault(l, i, "bulk copy addresses must be 16-byte aligned");
    const std::uint8_t* src =
        n ? space_bytes(c, i, b.src, sa, static_cast<unsigned>(n), l) : nullptr;
    if (b.src == Space::Global) note_global(c, sa, n, false);
    if (b.dst == Space::Global) note_global(c, da, n, true);
    auto write = [&](std::uint8_t* dst) {
      if (!n) return;
      if (b.reduce == Mode::None) {
        std::memmove(dst, src, n);
        return;
      }
      for (u64 e = 0; e < n; e += eb) reduce_into(b.reduce, i.type, dst + e, src + e, eb);
    };
    if (b.dst == Space::Global) {
      write(n ? space_bytes(c, i, Space::Global, da, static_cast<unsigned>(n), l) : nullptr);
      return;
    }
    const Destinations d = destinations(c, i, da, mask, l);
    for (unsigned k = 0; k < d.count; ++k) write(shared_bytes(c, i, *d.cta[k], d.offset, n, l));
    complete(c, i, d, operand_address(c, i.ops[3], Space::SharedCluster, l), n, l);
  });
}

// The tensor map a [map, {coordinates}] operand names: a kernel parameter (by its symbol or its
// cvta.param address) or 128 bytes in global memory.
TensorMap tensor_map(Ctx& c, const Instruction& i, const Operand& o, unsigned l) {
  const std::uint8_t* bytes = nullptr;
  const std::vector<std::uint8_t>& params = c.s.config->params;
  u64 a = o.reg >= 0 ? c.reg(o.reg)[l] : (o.has_symbol ? c.symbol_value(o, l) : 0);
  a += static_cast<u64>(o.imm);
  const bool param_symbol = o.reg < 0 && o.has_symbol && o.symbol_kind == SymbolKind::KernelParam;
  if (param_symbol || (a >= kParamWindow && a < kParamWindow + kWindowSize)) {
    const u64 off = param_symbol ? a : a - kParamWindow;
    if (off + kTensorMapBytes <= params.size()) bytes = params.data() + off;
  } else {
    bytes = space_bytes(c, i, Space::Global, a, kTensorMapBytes, l);
  }
  TensorMap m;
  if (!bytes || !decode_tensor_map(bytes, m))
    c.fault(l, i,
            "the tensor map operand does not point to a tensor map made by "
            "cuTensorMapEncodeTiled or cuTensorMapEncodeIm2col");
  const unsigned dims = i.bulk.dims;
  if (m.rank != dims)
    c.fault(l, i,
            "a ." + std::to_string(dims) + "d tensor copy with a tensor map of rank " +
                std::to_string(m.rank));
  if ((m.mode == TensorMap::Mode::Im2col) != i.bulk.im2col)
    c.fault(l, i,
            std::string(i.bulk.im2col ? ".im2col" : ".tile") + " copy with a tensor map made by " +
                (m.mode == TensorMap::Mode::Im2col ? "cuTensorMapEncodeIm2col"
                                                   : "cuTensorMapEncodeTiled"));
  if (o.regs.size() != dims)
    c.fault(l, i,
            "a ." + std::to_string(dims) + "d tensor copy with " + std::to_string(o.regs.size()) +
                " coordinates");
  return m;
}

// One element of a box: its global coordinates (valid when in bounds) and its place in the
// unswizzled box image.
struct Element {
  i64 g[5];
  u64 box_offset;
};

// Every element of the box a tiled or im2col copy moves, in shared-memory order.
template <class F>
void each_element(const TensorMap& m, const i64* start, const i64* offsets, F f) {
  const unsigned eb = tensor_element_bytes(m.data_type);
  Element e{};
  if (m.mode == TensorMap::Mode::Tiled) {
    unsigned count[5] = {1, 1, 1, 1, 1};
    for (unsigned k = 0; k < m.rank; ++k) {
      const unsigned step = k == 0 && m.interleave == 0 ? 1 : m.element_strides[k];
      count[k] = (m.box[k] + step - 1) / step;
    }
    u64 linear = 0;
    for (unsigned i4 = 0; i4 < count[4]; ++i4)
      for (unsigned i3 = 0; i3 < count[3]; ++i3)
        for (unsigned i2 = 0; i2 < count[2]; ++i2)
          for (unsigned i1 = 0; i1 < count[1]; ++i1)
            for (unsigned i0 = 0; i0 < count[0]; ++i0, ++linear) {
              const unsigned idx[5] = {i0, i1, i2, i3, i4};
              for (unsigned k = 0; k < 5; ++k) {
                const unsigned step = k == 0 && m.interleave == 0 ? 1 : m.element_strides[k];
                e.g[k] = start[k] + static_cast<i64>(idx[k]) * step;
              }
              e.box_offset = linear * eb;
              f(e);
            }
    return;
  }
  // im2col: dims are {C, W, (H), (D), N}; pixels walk W, then H, then D, then N, each spatial
  // base position inside [lower corner, dim - 1 + upper corner]; a pixel reads its base position
  // plus the instruction's offsets, channels C from the start coordinate on.
  const unsigned spatial = m.rank - 2;
  i64 pos[5];
  std::copy(start, start + 5, pos);
  u64 linear = 0;
  for (unsigned p = 0; p < m.pixels_per_column; ++p) {
    for (unsigned ch = 0; ch < m.channels_per_pixel; ++ch, ++linear) {
      e.g[0] = pos[0] + ch;
      for (unsigned k = 1; k <= spatial; ++k) e.g[k] = pos[k] + offsets[k - 1];
      e.g[m.rank - 1] = pos[m.rank - 1];
      e.box_offset = linear * eb;
      f(e);
    }
    const unsigned n_dim = m.rank - 1u;
    for (unsigned k = 1; k <= n_dim; ++k) {
      pos[k] += m.element_strides[k];
      if (k == n_dim) break;  // N does not wrap
      const i64 last = static_cast<i64>(m.dims[k]) - 1 + m.upper[k - 1];
      if (pos[k] <= last) break;
      pos[k] = m.lower[k - 1];
    }
  }
}

bool in_bounds(const TensorMap& m, const Element& e) {
  for (unsigned k = 0; k < m.rank; ++k)
    if (e.g[k] < 0 || e.g[k] >= static_cast<i64>(m.dims[k])) return false;
  return true;
}

u64 global_address(const TensorMap& m, const Element& e) {
  u64 a = m.address;
  for (unsigned k = 0; k < m.rank; ++k) a += static_cast<u64>(e.g[k]) * m.strides[k];
  return a;
}

// What an out-of-bound element of a load reads: zeros, or with the NaN fill of a float type
// all-ones exponent and mantissa (a quiet NaN).
u64 oob_value(const TensorMap& m) {
  if (m.oob_fill == 0 || !tensor_type_is_float(m.data_type)) return 0;
  switch (tensor_element_bytes(m.data_type)) {
    case 2:
      return 0x7fff;
    case 4:
      return 0x7fffffff;
    default:
      return 0x7fffffffffffffffull;
  }
}

void tensor_copy(Ctx& c, const Instruction& i) {
  const BulkOp& b = i.bulk;
  const bool prefetch = b.kind == BulkOp::Kind::Prefetch;
  const bool to_global = b.dst == Space::Global;
  const unsigned map_op = to_global || prefetch ? 0 : 1;
  // Operands after the map: the shared source (stores), or the mbarrier (loads); then the
  // im2col offsets, the multicast mask and the cache policy when the form has them.
  unsigned next = prefetch ? 1 : 2 + (to_global ? 0 : 1);
  const Operand* offsets_op = b.im2col && !to_global ? &i.ops[next++] : nullptr;
  std::uint64_t sm[32];
  const u64* mask = b.multicast ? c.src(i.ops[next++], sm) : nullptr;
  if (next + (b.cache_hint ? 1 : 0) > i.nops)
    c.fault(static_cast<unsigned>(__builtin_ctz(c.mask)), i, "a tensor copy with too few operands");
  const Operand& mo = i.ops[map_op];
  each_lane(c.mask, [&](unsigned l) {
    const TensorMap m = tensor_map(c, i, mo, l);
    const unsigned eb = tensor_element_bytes(m.data_type);
    i64 start[5] = {};
    for (unsigned k = 0; k < m.rank; ++k)
      start[k] = static_cast<std::int32_t>(c.reg(mo.regs[k])[l] & 0xffffffffu);
    i64 offsets[3] = {};
    if (offsets_op) {
      if (offsets_op->kind != Operand::Kind::Vector || offsets_op->regs.size() != m.rank - 2u)
        c.fault(l, i,
                "an .im2col copy of rank " + std::to_string(m.rank) + " takes " +
                    std::to_string(m.rank - 2) + " offsets in braces");
      for (unsigned k = 0; k < m.rank - 2u; ++k)
        offsets[k] = static_cast<std::int16_t>(c.reg(offsets_op->regs[k])[l] & 0xffff);
    }
    u64 total = 0;
    each_element(m, start, offsets, [&](const Element&) { total += eb; });
    if (prefetch) {
      each_element(m, start, offsets, [&](const Element& e) {
        if (in_bounds(m, e)) space_bytes(c, i, Space::Global, global_address(m, e), eb, l);
      });
      return;
    }
    const Space shared_space = to_global ? b.src : b.dst;
    const u64 sa = operand_address(c, i.ops[to_global ? 1 : 0], shared_space, l);
    if (sa % 128) c.fault(l, i, "the shared-memory box address is not 128-byte aligned");
    if (to_global) {
      const SharedTarget t = shared_target(c.s, Space::Shared, sa);
      shared_bytes(c, i, *t.cta, t.offset, (total + 127) / 128 * 128, l);
      const Type rt = tensor_type(m.data_type);
      if (b.reduce != Mode::None && !reduction_defined(b.reduce, rt))
        c.fault(l, i,
                "a tensor reduction with this operation on the map's element type ." +
                    std::string(type_name(rt)));
      each_element(m, start, offsets, [&](const Element& e) {
        if (!in_bounds(m, e)) return;  // stores skip what lies outside the tensor
        const std::uint8_t* s =
            t.cta->shared.data() +
            swizzled_offset(m.swizzle, static_cast<std::uint32_t>(t.offset + e.box_offset));
        std::uint8_t* g = space_bytes(c, i, Space::Global, global_address(m, e), eb, l);
        note_global(c, global_address(m, e), eb, true);
        if (b.reduce == Mode::None)
          std::memcpy(g, s, eb);
        else
          reduce_into(b.reduce, rt, g, s, eb);
      });
      return;
    }
    const Destinations d = destinations(c, i, sa, mask, l);
    const u64 fill = oob_value(m);
    for (unsigned k = 0; k < d.count; ++k) {
      // The swizzle permutes 16-byte chunks inside each 128-byte row of the box.
      shared_bytes(c, i, *d.cta[k], d.offset, (total + 127) / 128 * 128, l);
      std::uint8_t* base = d.cta[k]->shared.data();
      each_element(m, start, offsets, [&](const Element& e) {
        std::uint8_t* s =
            base + swizzled_offset(m.swizzle, static_cast<std::uint32_t>(d.offset + e.box_offset));
        if (in_bounds(m, e)) {
          std::memcpy(s, space_bytes(c, i, Space::Global, global_address(m, e), eb, l), eb);
          if (k == 0) note_global(c, global_address(m, e), eb, false);  // multicast: read once
        } else {
          std::memcpy(s, &fill, eb);
        }
      });
    }
    complete(c, i, d, operand_address(c, i.ops[2], Space::SharedCluster, l), total, l);
  });
}

}  // namespace

bool exec_bulk(Ctx& c, const Instruction& i) {
  switch (i.bulk.kind) {
    case BulkOp::Kind::CommitGroup:
    case BulkOp::Kind::WaitGroup:
      return true;  // every copy completed when it was issued
    case BulkOp::Kind::Prefetch:
    case BulkOp::Kind::Copy:
      if (i.bulk.dims)
        tensor_copy(c, i);
      else
        plain_copy(c, i);
      return true;
    default:
      return false;
  }
}

}  // namespace cnuas::ptx
