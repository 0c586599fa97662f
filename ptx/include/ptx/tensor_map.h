// Tensor maps (CUtensorMap): what cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col describe and
// cp.async.bulk.tensor reads. The 128 bytes are opaque to programs; their layout is the
// simulator's own (docs/ptx-engine.md, "Tensor maps"):
//   0  u32 magic 'CTMP'          4 u8 mode (0 tiled, 1 im2col)   5 u8 data type
//   (CUtensorMapDataType) 6  u8 rank (1-5)             7 u8 interleave   8 u8 swizzle   9 u8 L2
//   promotion   10 u8 OOB fill 16 u64 global address        24 u64 dims[5]    64 u64 byte strides
//   of dims 1-4 [4] 96 u16 box[5] (tiled)        106 u8 element strides[5] 112 u16 channels per
//   pixel   114 u16 pixels per column   116 s16 lower corner[3]  (im2col) 122 s16 upper corner[3]
// Shared between the driver (which encodes and validates) and the PTX engine (which decodes).
#pragma once

#include <cstdint>
#include <string>

namespace cnuas::ptx {

struct TensorMap {
  enum class Mode : std::uint8_t { Tiled, Im2col };
  Mode mode = Mode::Tiled;
  std::uint8_t data_type = 0;   // CUtensorMapDataType
  std::uint8_t rank = 0;        // 1-5 (im2col: 3-5)
  std::uint8_t interleave = 0;  // 0 none, 1 16B, 2 32B
  std::uint8_t swizzle = 0;     // 0 none, 1 32B, 2 64B, 3 128B (4-6: the 128B atom variants)
  std::uint8_t l2_promotion = 0;
  std::uint8_t oob_fill = 0;  // 0 zeros, 1 NaN (request zero FMA)
  std::uint64_t address = 0;
  std::uint64_t dims[5] = {};
  std::uint64_t strides[5] = {};  // bytes; strides[0] is the element size
  std::uint16_t box[5] = {};
  std::uint8_t element_strides[5] = {1, 1, 1, 1, 1};
  std::uint16_t channels_per_pixel = 0, pixels_per_column = 0;
  std::int16_t lower[3] = {}, upper[3] = {};  // im2col bounding box corners, {W, H, D}
};

constexpr std::size_t kTensorMapBytes = 128;

// Bytes per element of a CUtensorMapDataType; 0 for the packed sub-byte types and unknown values.
unsigned tensor_element_bytes(unsigned data_type);
bool tensor_type_is_float(unsigned data_type);

// Writes / reads the 128 bytes; decode is false when the bytes are no tensor map.
void encode_tensor_map(const TensorMap& m, std::uint8_t* out);
bool decode_tensor_map(const std::uint8_t* in, TensorMap& m);

// Checks a map against the rules the CUDA 13 driver documents for cuTensorMapEncodeTiled
// and cuTensorMapEncodeIm2col; empty when it is valid, else which argument is wrong and why.
std::string tensor_map_problem(const TensorMap& m);

// The shared-memory byte offset where the swizzle mode puts byte `offset` of an unswizzled box
// (the pattern repeats every 8 rows of the swizzle span; 16-byte chunks are permuted).
std::uint32_t swizzled_offset(unsigned swizzle, std::uint32_t offset);

}  // namespace cnuas::ptx
