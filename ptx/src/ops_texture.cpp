// Texture fetches (tex, tld4), surface loads and stores (suld.b, sust.b) and
// queries (txq, suq) on texture and surface objects: 1D/2D/3D, layered and cube maps,
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

// The descriptor as tex and tld4 sample it: wrap and mirror apply to
// normalized coordinates only; with unnormalized ones the hardware clamps
// (what CUDA programs that set wrap on such a texture, NVIDIA's
// convolutionTexture among them, expect), so those axes clamp, in a copy.
const TextureDescriptor& as_sampled(const TextureDescriptor& t, TextureDescriptor& copy) {
  if (t.normalized_coords || t.cube) return t;
  bool changed = false;
  copy = t;
  for (AddressMode& m : copy.address)
    if (m == AddressMode::Wrap || m == AddressMode::Mirror) m = AddressMode::Clamp, changed = true;
  return changed ? copy : t;
}

// A texture as one instruction reads it: its descriptor, its layout and,
// when all its texels lie in one allocation, their bytes, found once for the
// instruction instead of once per texel.
struct Texels {
  const TextureDescriptor& t;
  const std::uint8_t* bytes;  // host bytes of device address t.base, or null
  u64 pitch, slice, plane;    // bytes per row, per 2D slice, per layer
  unsigned texel_bytes;
  Texels(const TextureDescriptor& d, const std::uint8_t* b)
      : t(d),
        bytes(b),
        pitch(d.row_pitch()),
        slice(pitch * d.height),
        plane(slice * d.depth),
        texel_bytes(d.texel_bytes()) {}
};

Texels texels_of(Ctx& c, const TextureDescriptor& t) {
  const u64 planes = u64{t.layers} * t.depth;
  if (t.width == 0 || t.height == 0 || planes == 0) return {t, nullptr};
  const u64 last = (planes - 1) * t.row_pitch() * t.height + (t.height - 1) * t.row_pitch();
  return {t, c.s.memory->find(t.base, last + u64{t.width} * t.texel_bytes())};
}

std::uint32_t extent(const TextureDescriptor& t, unsigned axis) {
  return axis == 0 ? t.width : axis == 1 ? t.height : t.depth;
}

// An index outside [0, n): the address mode moves it in; false means "border".
// A cube-map face clamps to its edges (no filtering across faces).
bool address_outside(const TextureDescriptor& t, unsigned axis, long long& i, long long n) {
  switch (t.cube ? AddressMode::Clamp : t.address[axis]) {
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

// Applies the address mode to an integer texel index; false means "border".
inline __attribute__((always_inline)) bool address(const TextureDescriptor& t, unsigned axis,
                                                   long long& i) {
  const long long n = extent(t, axis);
  if (i >= 0 && i < n) return true;
  return address_outside(t, axis, i, n);
}

// The four channels of one texel as doubles (raw integers, or normalized).
// Float32: the texture holds 32-bit float channels and tx.bytes is known (the
// common case, inlined into its callers).
template <bool Float32 = false>
inline __attribute__((always_inline)) void texel(Ctx& c, const Instruction& i, unsigned lane,
                                                 const Texels& tx, long long x, long long y,
                                                 long long z, long long layer, double out[4],
                                                 bool& border) {
  const TextureDescriptor& t = tx.t;
  border = !address(t, 0, x);
  if (t.dims > 1 && !address(t, 1, y)) border = true;
  if (t.dims > 2 && !address(t, 2, z)) border = true;
  if (border) {
    for (unsigned k = 0; k < 4; ++k) out[k] = t.border[k];
    return;
  }
  const u64 at = t.base + static_cast<u64>(layer) * tx.plane + static_cast<u64>(z) * tx.slice +
                 static_cast<u64>(y) * tx.pitch + static_cast<u64>(x) * tx.texel_bytes;
  const std::uint8_t* p;
  if (Float32 || tx.bytes) {  // what space_bytes counts and records for a global read
    p = tx.bytes + (at - t.base);
    c.s.stats.global_bytes += tx.texel_bytes;
    if (c.record) {
      c.record->addresses[lane] = at;
      c.record->space = Space::Global;
      c.record->access_bytes = tx.texel_bytes;
    }
  } else {
    p = space_bytes(c, i, Space::Global, at, tx.texel_bytes, lane);
  }
  if (Float32 || (t.kind == ChannelKind::Float && t.channel_bits == 32)) {
    for (unsigned k = 0; k < 4; ++k) {
      if (k < t.channels) {
        float v;
        std::memcpy(&v, p + 4 * k, 4);
        out[k] = double{v};
      } else {
        out[k] = k == 3 ? 1.0 : 0.0;  // missing channels read as (0, 0, 0, 1)
      }
    }
    return;
  }
  const unsigned cb = t.channel_bits / 8;
  for (unsigned k = 0; k < 4; ++k) {
    if (k >= t.channels) {
      out[k] = k == 3 ? 1.0 : 0.0;
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
double texel_space(const TextureDescriptor& t, unsigned axis, double u, bool normalized) {
  if (!normalized) return u;
  if (t.cube) return u * extent(t, axis);  // face coordinates lie in [0, 1]
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

// Float coordinates: point or linear filtering (tld4: the 2x2 footprint).
template <bool Float32>
void sample_at(Ctx& c, const Instruction& i, unsigned lane, const Texels& tx, const double coord[3],
               long long layer, bool normalized) {
  const TextureDescriptor& t = tx.t;
  const SampleOp& so = i.sample;
  double out[4] = {0, 0, 0, 0};
  bool border;
  // All three axes, unused ones harmlessly: a loop over so.dims becomes a slow block copy.
  const double pos[3] = {texel_space(t, 0, coord[0], normalized),
                         texel_space(t, 1, coord[1], normalized),
                         texel_space(t, 2, coord[2], normalized)};
  const bool linear = (t.filter == FilterMode::Linear && float_result(t)) || i.op == Opcode::tld4;
  if (!linear) {
    long long ix[3] = {0, 0, 0};
    for (unsigned k = 0; k < so.dims; ++k) ix[k] = static_cast<long long>(std::floor(pos[k]));
    texel<Float32>(c, i, lane, tx, ix[0], ix[1], ix[2], layer, out, border);
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
    static constexpr int corners[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    for (unsigned k = 0; k < 4; ++k) {
      double v[4];
      texel<Float32>(c, i, lane, tx, base[0] + corners[k][0], base[1] + corners[k][1], 0, layer, v,
                     border);
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
    texel<Float32>(c, i, lane, tx, ix[0], ix[1], ix[2], layer, v, border);
    for (unsigned k = 0; k < 4; ++k) out[k] += f * v[k];
  }
  write_result(c, i, lane, out);
}

void sample_at(Ctx& c, const Instruction& i, unsigned lane, const Texels& tx, const double coord[3],
               long long layer, bool normalized) {
  if (tx.bytes && tx.t.kind == ChannelKind::Float && tx.t.channel_bits == 32)
    sample_at<true>(c, i, lane, tx, coord, layer, normalized);
  else
    sample_at<false>(c, i, lane, tx, coord, layer, normalized);
}

// Cube-map face selection (CUDA programming guide, cubemap textures): the
// direction's largest component picks the face, the other two give the face
// coordinates (s/|m| + 1) / 2 and (t/|m| + 1) / 2 in [0, 1]. Ties go to x, then y.
// A zero or NaN direction reads the centre of face 0.
unsigned cube_face(double x, double y, double z, double& u, double& v) {
  const double ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
  unsigned face;
  double m, s, t;
  if (ax >= ay && ax >= az) {
    face = x >= 0 ? 0 : 1, m = ax, s = x >= 0 ? -z : z, t = -y;
  } else if (ay >= az) {
    face = y >= 0 ? 2 : 3, m = ay, s = x, t = y >= 0 ? z : -z;
  } else {
    face = z >= 0 ? 4 : 5, m = az, s = z >= 0 ? x : -x, t = -y;
  }
  if (!(m > 0)) face = 0, m = 1, s = 0, t = 0;
  u = (s / m + 1.0) * 0.5;
  v = (t / m + 1.0) * 0.5;
  return face;
}

void sample(Ctx& c, const Instruction& i, unsigned lane, const Texels& tx) {
  const TextureDescriptor& t = tx.t;
  const Operand& a = i.ops[1];
  const SampleOp& so = i.sample;
  std::size_t next = 0;
  long long layer = 0;
  if (so.layered) layer = sign_extend(c.reg(a.regs[next++])[lane], 32);
  double coord[3] = {0, 0, 0};
  // tex.geom.v4.dtype.ctype: type2 is the result type, type the coordinates'.
  const bool integer_coords = i.type == Type::S32;
  if (so.cube) {  // a direction (x, y, z): a face of cube map `layer`, addressed normalized
    if (next + 3 > a.regs.size()) c.fault(lane, i, "cube-map direction missing");
    double dir[3];
    for (double& d : dir) d = double{bits_to_f32(c.reg(a.regs[next++])[lane])};
    const long long cubes = std::max<long long>(1, t.layers / 6);
    if (layer < 0 || layer >= cubes) layer = layer < 0 ? 0 : cubes - 1;
    layer = layer * 6 + cube_face(dir[0], dir[1], dir[2], coord[0], coord[1]);
    sample_at(c, i, lane, tx, coord, layer, /*normalized=*/true);
    return;
  }
  if (so.layered && (layer < 0 || layer >= t.layers)) layer = layer < 0 ? 0 : t.layers - 1;
  for (unsigned k = 0; k < so.dims; ++k) {
    if (next >= a.regs.size()) c.fault(lane, i, "texture coordinates missing");
    const u64 raw = c.reg(a.regs[next++])[lane];
    coord[k] =
        integer_coords ? static_cast<double>(sign_extend(raw, 32)) : double{bits_to_f32(raw)};
  }
  if (integer_coords) {  // tex1Dfetch and friends: a texel index, no filtering
    double out[4] = {0, 0, 0, 0};
    bool border;
    texel(c, i, lane, tx, static_cast<long long>(coord[0]), static_cast<long long>(coord[1]),
          static_cast<long long>(coord[2]), layer, out, border);
    write_result(c, i, lane, out);
    return;
  }
  sample_at(c, i, lane, tx, coord, layer, t.normalized_coords);
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
    case Opcode::tld4: {
      // Lanes almost always read one texture: look it up, and find its
      // bytes, once for the instruction.
      const u64* handles = c.reg(i.ops[1].reg);
      const unsigned first = static_cast<unsigned>(__builtin_ctz(c.mask));
      bool shared = true;
      each_lane(c.mask, [&](unsigned l) { shared = shared && handles[l] == handles[first]; });
      TextureDescriptor copy;
      if (shared) {
        const Texels tx = texels_of(c, as_sampled(object(c, i, first, handles[first]), copy));
        each_lane(c.mask, [&](unsigned l) { sample(c, i, l, tx); });
      } else {
        each_lane(c.mask, [&](unsigned l) {
          sample(c, i, l, Texels(as_sampled(object(c, i, l, handles[l]), copy), nullptr));
        });
      }
      return true;
    }
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
