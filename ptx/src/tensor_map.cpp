#include "ptx/tensor_map.h"

#include <cstring>

namespace cnuas::ptx {
namespace {

constexpr std::uint32_t kMagic = 0x504d5443;  // "CTMP"

template <class T>
void put(std::uint8_t* out, std::size_t at, T v) {
  std::memcpy(out + at, &v, sizeof v);
}
template <class T>
T get(const std::uint8_t* in, std::size_t at) {
  T v;
  std::memcpy(&v, in + at, sizeof v);
  return v;
}

std::string idx(const char* name, unsigned k) {
  return std::string(name) + "[" + std::to_string(k) + "]";
}

}  // namespace

unsigned tensor_element_bytes(unsigned t) {
  switch (t) {
    case 0:  // UINT8
      return 1;
    case 1:  // UINT16
    case 6:  // FLOAT16
    case 9:  // BFLOAT16
      return 2;
    case 2:   // UINT32
    case 3:   // INT32
    case 7:   // FLOAT32
    case 10:  // FLOAT32_FTZ
    case 11:  // TFLOAT32
    case 12:  // TFLOAT32_FTZ
      return 4;
    case 4:  // UINT64
    case 5:  // INT64
    case 8:  // FLOAT64
      return 8;
    default:
      return 0;
  }
}

bool tensor_type_is_float(unsigned t) {
  return t >= 6 && t <= 12;
}

void encode_tensor_map(const TensorMap& m, std::uint8_t* out) {
  std::memset(out, 0, kTensorMapBytes);
  put(out, 0, kMagic);
  put(out, 4, static_cast<std::uint8_t>(m.mode));
  put(out, 5, m.data_type);
  put(out, 6, m.rank);
  put(out, 7, m.interleave);
  put(out, 8, m.swizzle);
  put(out, 9, m.l2_promotion);
  put(out, 10, m.oob_fill);
  put(out, 16, m.address);
  for (unsigned k = 0; k < 5; ++k) {
    put(out, 24 + 8 * k, m.dims[k]);
    if (k) put(out, 64 + 8 * (k - 1), m.strides[k]);
    put(out, 96 + 2 * k, m.box[k]);
    put(out, 106 + k, m.element_strides[k]);
  }
  put(out, 112, m.channels_per_pixel);
  put(out, 114, m.pixels_per_column);
  for (unsigned k = 0; k < 3; ++k) {
    put(out, 116 + 2 * k, m.lower[k]);
    put(out, 122 + 2 * k, m.upper[k]);
  }
}

bool decode_tensor_map(const std::uint8_t* in, TensorMap& m) {
  if (get<std::uint32_t>(in, 0) != kMagic) return false;
  m.mode = static_cast<TensorMap::Mode>(get<std::uint8_t>(in, 4));
  m.data_type = get<std::uint8_t>(in, 5);
  m.rank = get<std::uint8_t>(in, 6);
  m.interleave = get<std::uint8_t>(in, 7);
  m.swizzle = get<std::uint8_t>(in, 8);
  m.l2_promotion = get<std::uint8_t>(in, 9);
  m.oob_fill = get<std::uint8_t>(in, 10);
  m.address = get<std::uint64_t>(in, 16);
  m.strides[0] = tensor_element_bytes(m.data_type);
  for (unsigned k = 0; k < 5; ++k) {
    m.dims[k] = get<std::uint64_t>(in, 24 + 8 * k);
    if (k) m.strides[k] = get<std::uint64_t>(in, 64 + 8 * (k - 1));
    m.box[k] = get<std::uint16_t>(in, 96 + 2 * k);
    m.element_strides[k] = get<std::uint8_t>(in, 106 + k);
  }
  m.channels_per_pixel = get<std::uint16_t>(in, 112);
  m.pixels_per_column = get<std::uint16_t>(in, 114);
  for (unsigned k = 0; k < 3; ++k) {
    m.lower[k] = get<std::int16_t>(in, 116 + 2 * k);
    m.upper[k] = get<std::int16_t>(in, 122 + 2 * k);
  }
  return m.rank >= 1 && m.rank <= 5 && tensor_element_bytes(m.data_type) != 0;
}

std::string tensor_map_problem(const TensorMap& m) {
  const bool im2col = m.mode == TensorMap::Mode::Im2col;
  if (m.data_type > 15) return "tensorDataType " + std::to_string(m.data_type) + " is no type";
  const unsigned eb = tensor_element_bytes(m.data_type);
  if (eb == 0)
    return "tensorDataType " + std::to_string(m.data_type) +
           " (the packed 4- and 6-bit types need compute capability 10.0)";
  if (im2col ? m.rank < 3 || m.rank > 5 : m.rank < 1 || m.rank > 5)
    return "tensorRank " + std::to_string(m.rank) +
           (im2col ? " (im2col takes 3 to 5)" : " (1 to 5)");
  if (m.interleave > 2) return "interleave " + std::to_string(m.interleave) + " is no mode";
  if (m.interleave != 0 && m.rank < 3) return "tensorRank below 3 with interleave";
  if (m.swizzle > 6) return "swizzle " + std::to_string(m.swizzle) + " is no mode";
  if (m.swizzle > 3)
    return "swizzle " + std::to_string(m.swizzle) +
           " (the 128B atom modes need compute capability 10.0)";
  if (m.l2_promotion > 3) return "l2Promotion " + std::to_string(m.l2_promotion) + " is no mode";
  if (m.oob_fill > 1) return "oobFill " + std::to_string(m.oob_fill) + " is no mode";
  if (m.oob_fill == 1 && !tensor_type_is_float(m.data_type))
    return "oobFill NAN_REQUEST_ZERO_FMA with an integer tensorDataType";
  if (m.address == 0) return "globalAddress is null";
  if (m.address % 16) return "globalAddress is not 16-byte aligned";
  if (m.interleave == 2 && m.address % 32)
    return "globalAddress is not 32-byte aligned (interleave 32B)";
  if (m.interleave == 2 && m.swizzle != 1) return "interleave 32B without swizzle 32B";
  for (unsigned k = 0; k < m.rank; ++k)
    if (m.dims[k] == 0 || m.dims[k] > (std::uint64_t{1} << 32))
      return idx("globalDim", k) + " = " + std::to_string(m.dims[k]) + " (1 to 2^32)";
  for (unsigned k = 1; k < m.rank; ++k) {
    const std::uint64_t s = m.strides[k];
    if (s % 16 || s >= (std::uint64_t{1} << 40))
      return idx("globalStrides", k - 1) + " = " + std::to_string(s) +
             " (a multiple of 16 below 2^40)";
    if (m.interleave == 2 && s % 32)
      return idx("globalStrides", k - 1) + " is not a multiple of 32 (interleave 32B)";
  }
  for (unsigned k = 0; k < m.rank; ++k)
    if (m.element_strides[k] == 0 || m.element_strides[k] > 8)
      return idx("elementStrides", k) + " = " + std::to_string(m.element_strides[k]) + " (1 to 8)";
  const unsigned span = m.swizzle == 0 ? 0 : 16u << m.swizzle;  // 32, 64, 128 bytes
  if (im2col) {
    const int range = m.rank == 3 ? 32768 : m.rank == 4 ? 128 : 16;
    for (unsigned k = 0; k + 2 < m.rank; ++k)
      for (int v : {int{m.lower[k]}, int{m.upper[k]}})
        if (v < -range || v >= range)
          return "pixelBox corner offset " + std::to_string(v) + " outside [" +
                 std::to_string(-range) + ", " + std::to_string(range - 1) + "] for rank " +
                 std::to_string(m.rank);
    if (m.channels_per_pixel == 0 || m.channels_per_pixel > 256)
      return "channelsPerPixel " + std::to_string(m.channels_per_pixel) + " (1 to 256)";
    if (m.pixels_per_column == 0 || m.pixels_per_column > 1024)
      return "pixelsPerColumn " + std::to_string(m.pixels_per_column) + " (1 to 1024)";
    if (m.interleave == 0 && m.channels_per_pixel * eb % 16)
      return "channelsPerPixel * element size is not a multiple of 16 bytes";
    if (m.interleave == 0 && span && m.channels_per_pixel * eb > span)
      return "channelsPerPixel * element size exceeds the swizzle span of " + std::to_string(span) +
             " bytes";
    return {};
  }
  for (unsigned k = 0; k < m.rank; ++k)
    if (m.box[k] == 0 || m.box[k] > 256)
      return idx("boxDim", k) + " = " + std::to_string(m.box[k]) + " (1 to 256)";
  if (m.interleave == 0 && m.box[0] * eb % 16)
    return "boxDim[0] * element size = " + std::to_string(m.box[0] * eb) +
           " bytes is not a multiple of 16";
  if (m.interleave == 0 && span && m.box[0] * eb > span)
    return "boxDim[0] * element size = " + std::to_string(m.box[0] * eb) +
           " bytes exceeds the swizzle span of " + std::to_string(span) + " bytes";
  return {};
}

std::uint32_t swizzled_offset(unsigned swizzle, std::uint32_t offset) {
  // Address bits 4.. (the 16-byte chunk within the span) XOR bits 7.. (the 128-byte row):
  // one bit for 32B, two for 64B, three for 128B.
  static constexpr std::uint32_t kChunkBits[4] = {0, 0x10, 0x30, 0x70};
  return swizzle < 4 ? offset ^ ((offset >> 3) & kChunkBits[swizzle]) : offset;
}

}  // namespace cnuas::ptx
