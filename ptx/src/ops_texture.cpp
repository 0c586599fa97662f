// Texture fetches (tex, tld4), surface loads and stores (suld.b, sust.b) and
// queries (txq, suq) on texture and surface objects: 1D/2D/3D and layered,
// point and linear filtering (8-bit fractional weights, as the hardware),
// clamp/wrap/mirror/border addressing, normalized coordinates, element-type
// and normalized-float reads.
#include <cmath>
#include <cstring>

#include "half.h"
#include "lanes.h"

namespace cnuas::ptx {

std::uint8_t* space_bytes(Ctx& c, const Instruction& i, Space space, std::uint64_t a,
                          unsigned bytes, unsigned lane);  // ops_memory.cpp

namespace {

using u64 = std::uint64_t;

const TextureDescriptor& object(Ctx& c, const Instruction& i, unsigned lane, u64 handle) {
  const TextureDescriptor* d = c.s.config->textures ? c.s.config->textures->find(handle) : nullptr;
  if (!d)
    c.fault(lane, i, "texture or surface object " + std::to_string(handle) + " does not exist");
  return *d;
}

std::uint32_t extent(const TextureDescriptor& t, unsigned axis) {
  return axis == 0 ? t.width : axis == 1 ? t.height : t.depth;
}

// Applies the address mode to an integer texel index; false means "border".
bool address(const TextureDescriptor& t, unsigned axis, long long& i) {
  const long long n = extent(t, axis);
  if (i >= 0 && i < n) return true;
  switch (t.address[axis]) {
    case AddressMode::Border:
      return false;
    case AddressMode::Wrap:
      i = ((i % n) + n) % n;
      return true;
    case AddressMode::Mirror: {
      const long long period = 2 * n;
      long long m = ((i % period) + period) % period;
      i = m < n ? m : period - 1 - m;
      return true;
    }
    default:
      i = i < 0 ? 0 : n - 1;
      return true;
  }
}

// The four channels of one texel as doubles (raw integers, or normalized).
void texel(Ctx& c, const Instruction& i, unsigned lane, const TextureDescriptor& t, long long x,
           long long y, long long z, long long layer, double out[4], bool& border) {
  long long idx[3] = {x, y, z};
  border = false;
  for (unsigned a = 0; a < t.dims; ++a)
    if (!address(t, a, idx[a])) border = true;
  if (border) {
    for (unsigned k = 0; k < 4; ++k) out[k] = t.border[k];
    return;
  }
  const u64 slice = t.row_pitch() * t.height;
  const u64 at = t.base + static_cast<u64>(layer) * slice * t.depth +
                 static_cast<u64>(idx[2]) * slice + static_cast<u64>(idx[1]) * t.row_pitch() +
                 static_cast<u64>(idx[0]) * t.texel_bytes();
  const std::uint8_t* p = space_bytes(c, i, Space::Global, at, t.texel_bytes(), lane);
  const unsigned cb = t.channel_bits / 8;
  for (unsigned k = 0; k < 4; ++k) {
    if (k >= t.channels) {
      out[k] = k == 3 ? 1.0 : 0.0;  // missing channels read as (0, 0, 0, 1)
      continue;
    }
    u64 raw = 0;
    std::memcpy(&raw, p + k * cb, cb);
    double v;
    if (t.kind == ChannelKind::Float) {
      v = cb == 2   ? double{f16_to_f32(static_cast<std::uint16_t>(raw))}
          : cb == 8 ? bits_to_f64(raw)
                    : double{bits_to_f32(raw)};
    } else if (t.kind == ChannelKind::Signed) {
      v = static_cast<double>(sign_extend(raw, t.channel_bits));
      if (t.normalized_read && cb < 4) v = std::max(-1.0, v / ((1 << (t.channel_bits - 1)) - 1));
    } else {
      v = static_cast<double>(raw);
      if (t.normalized_read && cb < 4) v /= static_cast<double>((1u << t.channel_bits) - 1);
    }
    out[k] = v;
  }
}

bool float_result(const TextureDescriptor& t) {
  return t.kind == ChannelKind::Float || t.normalized_read;
}

// Unnormalized texel-space coordinate for one axis (wrap/mirror apply to
// normalized coordinates before scaling).
double texel_space(const TextureDescriptor& t, unsigned axis, double u) {
  if (!t.normalized_coords) return u;
  if (t.address[axis] == AddressMode::Wrap) u -= std::floor(u);
  if (t.address[axis] == AddressMode::Mirror) {
    const double f = std::floor(u);
    u = (static_cast<long long>(f) % 2 == 0) ? u - f : 1.0 - (u - f);
  }
  return u * extent(t, axis);
}

// Hardware filter weights: 8 fractional bits.
double weight(double frac) {
  return std::round(frac * 256.0) / 256.0;
}

void write_result(Ctx& c, const Instruction& i, unsigned lane, const double v[4]) {
  const Operand& d = i.ops[0];
  for (unsigned k = 0; k < 4 && k < d.regs.size(); ++k) {
    if (d.regs[k] < 0) continue;
    u64 bits;
    if (i.type2 == Type::F32)
      bits = f32_to_bits(static_cast<float>(v[k]));
    else if (i.type2 == Type::F16)
      bits = f64_to_f16(v[k], Round::Rn);
    else
      bits = truncate(static_cast<u64>(static_cast<long long>(v[k])), 32);
    c.reg(d.regs[k])[lane] = bits;
  }
}

void sample(Ctx& c, const Instruction& i, unsigned lane) {
  const Operand& a = i.ops[1];
  const TextureDescriptor& t = object(c, i, lane, c.reg(a.reg)[lane]);
  const SampleOp& so = i.sample;
  std::size_t next = 0;
  long long layer = 0;
  if (so.layered) layer = sign_extend(c.reg(a.regs[next++])[lane], 32);
  if (so.layered && (layer < 0 || layer >= t.layers)) layer = layer < 0 ? 0 : t.layers - 1;
  double coord[3] = {0, 0, 0};
  // tex.geom.v4.dtype.ctype: type2 is the result type, type the coordinates'.
  const bool integer_coords = i.type == Type::S32;
  for (unsigned k = 0; k < so.dims; ++k) {
    if (next >= a.regs.size()) c.fault(lane, i, "texture coordinates missing");
    const u64 raw = c.reg(a.regs[next++])[lane];
    coord[k] =
        integer_coords ? static_cast<double>(sign_extend(raw, 32)) : double{bits_to_f32(raw)};
  }
  double out[4] = {0, 0, 0, 0};
  bool border;
  if (integer_coords) {  // tex1Dfetch and friends: a texel index, no filtering
    texel(c, i, lane, t, static_cast<long long>(coord[0]), static_cast<long long>(coord[1]),
          static_cast<long long>(coord[2]), layer, out, border);
    write_result(c, i, lane, out);
    return;
  }
  double pos[3];
  for (unsigned k = 0; k < so.dims; ++k) pos[k] = texel_space(t, k, coord[k]);
  const bool linear = (t.filter == FilterMode::Linear && float_result(t)) || i.op == Opcode::tld4;
  if (!linear) {
    long long ix[3] = {0, 0, 0};
    for (unsigned k = 0; k < so.dims; ++k) ix[k] = static_cast<long long>(std::floor(pos[k]));
    texel(c, i, lane, t, ix[0], ix[1], ix[2], layer, out, border);
    write_result(c, i, lane, out);
    return;
  }
  long long base[3] = {0, 0, 0};
  double w[3] = {0, 0, 0};
  for (unsigned k = 0; k < so.dims; ++k) {
    const double b = pos[k] - 0.5;
    base[k] = static_cast<long long>(std::floor(b));
    w[k] = weight(b - std::floor(b));
  }
  if (i.op == Opcode::tld4) {  // the 2x2 footprint, one component: (0,1) (1,1) (1,0) (0,0)
    const int corners[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    for (unsigned k = 0; k < 4; ++k) {
      double v[4];
      texel(c, i, lane, t, base[0] + corners[k][0], base[1] + corners[k][1], 0, layer, v, border);
      out[k] = v[so.component];
    }
    write_result(c, i, lane, out);
    return;
  }
  const unsigned corners = 1u << so.dims;
  for (unsigned m = 0; m < corners; ++m) {
    double f = 1.0;
    long long ix[3] = {0, 0, 0};
    for (unsigned k = 0; k < so.dims; ++k) {
      const bool hi = (m >> k) & 1;
      ix[k] = base[k] + (hi ? 1 : 0);
      f *= hi ? w[k] : 1.0 - w[k];
    }
    double v[4];
    texel(c, i, lane, t, ix[0], ix[1], ix[2], layer, v, border);
    for (unsigned k = 0; k < 4; ++k) out[k] += f * v[k];
  }
  write_result(c, i, lane, out);
}

// suld.b / sust.b: x in bytes, y and z in rows and slices.
std::uint8_t* surface_bytes(Ctx& c, const Instruction& i, unsigned lane, unsigned bytes,
                            bool& skip) {
  const Operand& a = i.ops[i.op == Opcode::suld ? 1 : 0];
  const TextureDescriptor& t = object(c, i, lane, c.reg(a.reg)[lane]);
  const SampleOp& so = i.sample;
  std::size_t next = 0;
  long long layer = 0;
  if (so.layered) layer = sign_extend(c.reg(a.regs[next++])[lane], 32);
  long long p[3] = {0, 0, 0};
  for (unsigned k = 0; k < so.dims; ++k) p[k] = sign_extend(c.reg(a.regs[next++])[lane], 32);
  const long long limit[3] = {static_cast<long long>(t.width) * t.texel_bytes(), t.height, t.depth};
  skip = false;
  for (unsigned k = 0; k < so.dims; ++k) {
    const long long hi = k == 0 ? limit[0] - bytes : limit[k] - 1;
    if (p[k] >= 0 && p[k] <= hi) continue;
    if (so.oob == SampleOp::Oob::Trap)
      c.fault(lane, i,
              "surface coordinate " + std::to_string(p[k]) + " on axis " + std::to_string(k) +
                  " is outside 0.." + std::to_string(hi));
    if (so.oob == SampleOp::Oob::Zero) skip = true;
    p[k] = p[k] < 0 ? 0 : hi;
  }
  if (layer < 0 || layer >= t.layers) {
    if (so.oob == SampleOp::Oob::Trap)
      c.fault(lane, i, "surface layer " + std::to_string(layer) + " out of range");
    skip = skip || so.oob == SampleOp::Oob::Zero;
    layer = layer < 0 ? 0 : t.layers - 1;
  }
  const u64 slice = t.row_pitch() * t.height;
  const u64 at = t.base + static_cast<u64>(layer) * slice * t.depth +
                 static_cast<u64>(p[2]) * slice + static_cast<u64>(p[1]) * t.row_pitch() +
                 static_cast<u64>(p[0]);
  return space_bytes(c, i, Space::Global, at, bytes, lane);
}

u64 query(const Instruction& i, const TextureDescriptor& t, Ctx& c, unsigned lane) {
  auto mode = [](AddressMode m) -> u64 {
    switch (m) {  // the CUDA runtime's numbering: wrap 0, clamp 1, mirror 2, border 3
      case AddressMode::Wrap:
        return 0;
      case AddressMode::Clamp:
        return 1;
      case AddressMode::Mirror:
        return 2;
      default:
        return 3;
    }
  };
  switch (i.sample.attr) {
    case SampleOp::Attr::Width:
      return i.op == Opcode::suq ? u64{t.width} : t.width;
    case SampleOp::Attr::Height:
      return t.height;
    case SampleOp::Attr::Depth:
      return t.depth;
    case SampleOp::Attr::ArraySize:
      return t.layered ? t.layers : 0;
    case SampleOp::Attr::NormalizedCoords:
      return t.normalized_coords;
    case SampleOp::Attr::FilterMode:
      return t.filter == FilterMode::Linear;
    case SampleOp::Attr::AddrMode0:
      return mode(t.address[0]);
    case SampleOp::Attr::AddrMode1:
      return mode(t.address[1]);
    case SampleOp::Attr::AddrMode2:
      return mode(t.address[2]);
    case SampleOp::Attr::MipmapLevels:
      return 1;
    case SampleOp::Attr::Samples:
      return 1;
    default:
      c.fault(lane, i, "txq/suq of the channel data type or order is not implemented");
  }
}

}  // namespace

bool exec_texture(Ctx& c, const Instruction& i) {
  switch (i.op) {
    case Opcode::tex:
    case Opcode::tld4:
      each_lane(c.mask, [&](unsigned l) { sample(c, i, l); });
      return true;
    case Opcode::suld: {
      const unsigned eb = type_bytes(i.type);
      const Operand& d = i.ops[0];
      const unsigned n = d.kind == Operand::Kind::Vector ? static_cast<unsigned>(d.regs.size()) : 1;
      each_lane(c.mask, [&](unsigned l) {
        bool skip;
        const std::uint8_t* p = surface_bytes(c, i, l, eb * n, skip);
        for (unsigned k = 0; k < n; ++k) {
          u64 v = 0;
          if (!skip) std::memcpy(&v, p + k * eb, eb);
          const std::int32_t r = d.kind == Operand::Kind::Vector ? d.regs[k] : d.reg;
          if (r >= 0) c.reg(r)[l] = v;
        }
      });
      return true;
    }
    case Opcode::sust: {
      const unsigned eb = type_bytes(i.type);
      const Operand& v = i.ops[1];
      const unsigned n = v.kind == Operand::Kind::Vector ? static_cast<unsigned>(v.regs.size()) : 1;
      each_lane(c.mask, [&](unsigned l) {
        bool skip;
        std::uint8_t* p = surface_bytes(c, i, l, eb * n, skip);
        if (skip) return;
        for (unsigned k = 0; k < n; ++k) {
          const std::int32_t r = v.kind == Operand::Kind::Vector ? v.regs[k] : v.reg;
          const u64 x = r >= 0 ? c.reg(r)[l] : 0;
          std::memcpy(p + k * eb, &x, eb);
        }
      });
      return true;
    }
    case Opcode::txq:
    case Opcode::suq: {
      const Operand& a = i.ops[1];
      each_lane(c.mask, [&](unsigned l) {
        const u64 handle = a.reg >= 0 ? c.reg(a.reg)[l] : 0;
        put(c, i.ops[0], l, query(i, object(c, i, l, handle), c, l));
      });
      return true;
    }
    default:
      return false;
  }
}

}  // namespace cnuas::ptx
