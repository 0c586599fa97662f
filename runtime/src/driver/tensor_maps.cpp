// cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col / cuTensorMapReplaceAddress: the tensor maps
// cp.async.bulk.tensor reads, checked as the CUDA 13 driver documents and encoded in the PTX
// engine's own 128-byte layout (ptx/tensor_map.h).
#include <cstdint>
#include <string>

#include "driver/driver_internal.h"
#include "ptx/tensor_map.h"

using namespace cnuas::cuda;
using namespace cnuas::cuda::driver;
using cnuas::ptx::TensorMap;

namespace {

CUresult invalid(const char* entry, const std::string& why) {
  driver_debug(std::string(entry) + ": " + why);
  return kInvalidValue;
}

// The parts both encoders share: type, rank, address, dims, strides, element strides, modes.
// Null arrays are reported before any is read.
const char* fill_common(TensorMap& m, unsigned type, std::uint32_t rank, void* address,
                        const std::uint64_t* dims, const std::uint64_t* strides,
                        const std::uint32_t* element_strides, unsigned interleave, unsigned swizzle,
                        unsigned l2, unsigned oob) {
  if (!dims || !element_strides || (rank > 1 && !strides))
    return "globalDim, globalStrides (rank above 1) and elementStrides must not be null";
  if (rank == 0 || rank > 5) return nullptr;  // tensor_map_problem names the rank
  m.data_type = static_cast<std::uint8_t>(type > 255 ? 255 : type);
  m.rank = static_cast<std::uint8_t>(rank);
  m.address = reinterpret_cast<std::uintptr_t>(address);
  m.strides[0] = cnuas::ptx::tensor_element_bytes(type);
  for (unsigned k = 0; k < rank; ++k) {
    m.dims[k] = dims[k];
    if (k) m.strides[k] = strides[k - 1];
    m.element_strides[k] =
        static_cast<std::uint8_t>(element_strides[k] > 255 ? 255 : element_strides[k]);
  }
  m.interleave = static_cast<std::uint8_t>(interleave > 255 ? 255 : interleave);
  m.swizzle = static_cast<std::uint8_t>(swizzle > 255 ? 255 : swizzle);
  m.l2_promotion = static_cast<std::uint8_t>(l2 > 255 ? 255 : l2);
  m.oob_fill = static_cast<std::uint8_t>(oob > 255 ? 255 : oob);
  return nullptr;
}

// What both encoders check first: the map, the enumerators, the fields they share.
const char* begin_map(TensorMap& m, const void* tensorMap, int type, std::uint32_t rank,
                      void* address, const std::uint64_t* dims, const std::uint64_t* strides,
                      const std::uint32_t* element_strides, int interleave, int swizzle,
                      int l2_promotion, int oob_fill) {
  if (!tensorMap) return "tensorMap is null";
  if (type < 0 || interleave < 0 || swizzle < 0 || l2_promotion < 0 || oob_fill < 0)
    return "a negative enumerator";
  return fill_common(m, static_cast<unsigned>(type), rank, address, dims, strides, element_strides,
                     static_cast<unsigned>(interleave), static_cast<unsigned>(swizzle),
                     static_cast<unsigned>(l2_promotion), static_cast<unsigned>(oob_fill));
}

CUresult finish(const char* entry, void* out, TensorMap& m) {
  if (reinterpret_cast<std::uintptr_t>(out) % 64)
    return invalid(entry, "tensorMap is not 64-byte aligned");
  const std::string problem = cnuas::ptx::tensor_map_problem(m);
  if (!problem.empty()) return invalid(entry, problem);
  cnuas::ptx::encode_tensor_map(m, static_cast<std::uint8_t*>(out));
  return kSuccess;
}

}  // namespace

extern "C" {

CUresult cuTensorMapEncodeTiled(void* tensorMap, int tensorDataType, std::uint32_t tensorRank,
                                void* globalAddress, const std::uint64_t* globalDim,
                                const std::uint64_t* globalStrides, const std::uint32_t* boxDim,
                                const std::uint32_t* elementStrides, int interleave, int swizzle,
                                int l2Promotion, int oobFill) {
  DRIVER_ENTER();
  const char* entry = "cuTensorMapEncodeTiled";
  TensorMap m;
  m.mode = TensorMap::Mode::Tiled;
  if (const char* why =
          begin_map(m, tensorMap, tensorDataType, tensorRank, globalAddress, globalDim,
                    globalStrides, elementStrides, interleave, swizzle, l2Promotion, oobFill))
    return invalid(entry, why);
  if (tensorRank >= 1 && tensorRank <= 5) {
    if (!boxDim) return invalid(entry, "boxDim is null");
    for (unsigned k = 0; k < tensorRank; ++k)
      m.box[k] = static_cast<std::uint16_t>(boxDim[k] > 0xffff ? 0xffff : boxDim[k]);
  } else {
    m.rank = static_cast<std::uint8_t>(tensorRank > 255 ? 255 : tensorRank);
  }
  return finish(entry, tensorMap, m);
}

CUresult cuTensorMapEncodeIm2col(void* tensorMap, int tensorDataType, std::uint32_t tensorRank,
                                 void* globalAddress, const std::uint64_t* globalDim,
                                 const std::uint64_t* globalStrides, const int* pixelBoxLowerCorner,
                                 const int* pixelBoxUpperCorner, std::uint32_t channelsPerPixel,
                                 std::uint32_t pixelsPerColumn, const std::uint32_t* elementStrides,
                                 int interleave, int swizzle, int l2Promotion, int oobFill) {
  DRIVER_ENTER();
  const char* entry = "cuTensorMapEncodeIm2col";
  TensorMap m;
  m.mode = TensorMap::Mode::Im2col;
  if (const char* why =
          begin_map(m, tensorMap, tensorDataType, tensorRank, globalAddress, globalDim,
                    globalStrides, elementStrides, interleave, swizzle, l2Promotion, oobFill))
    return invalid(entry, why);
  if (tensorRank >= 3 && tensorRank <= 5) {
    if (!pixelBoxLowerCorner || !pixelBoxUpperCorner)
      return invalid(entry, "pixelBoxLowerCorner and pixelBoxUpperCorner must not be null");
    const int range = tensorRank == 3 ? 32768 : tensorRank == 4 ? 128 : 16;
    for (unsigned k = 0; k + 2 < tensorRank; ++k) {
      for (int v : {pixelBoxLowerCorner[k], pixelBoxUpperCorner[k]})
        if (v < -range || v >= range)
          return invalid(entry, "pixelBox corner offset " + std::to_string(v) + " outside [" +
                                    std::to_string(-range) + ", " + std::to_string(range - 1) +
                                    "] for rank " + std::to_string(tensorRank));
      m.lower[k] = static_cast<std::int16_t>(pixelBoxLowerCorner[k]);
      m.upper[k] = static_cast<std::int16_t>(pixelBoxUpperCorner[k]);
    }
    // The box of base pixels must not be empty along any spatial dimension.
    for (unsigned k = 0; k + 2 < tensorRank; ++k)
      if (static_cast<std::int64_t>(globalDim[k + 1]) - 1 + m.upper[k] < m.lower[k])
        return invalid(entry, "the pixel bounding box is empty along spatial dimension " +
                                  std::to_string(k + 1));
  } else {
    m.rank = static_cast<std::uint8_t>(tensorRank > 255 ? 255 : tensorRank);
  }
  m.channels_per_pixel =
      static_cast<std::uint16_t>(channelsPerPixel > 0xffff ? 0xffff : channelsPerPixel);
  m.pixels_per_column =
      static_cast<std::uint16_t>(pixelsPerColumn > 0xffff ? 0xffff : pixelsPerColumn);
  return finish(entry, tensorMap, m);
}

CUresult cuTensorMapReplaceAddress(void* tensorMap, void* globalAddress) {
  DRIVER_ENTER();
  const char* entry = "cuTensorMapReplaceAddress";
  TensorMap m;
  if (!tensorMap || !cnuas::ptx::decode_tensor_map(static_cast<std::uint8_t*>(tensorMap), m))
    return invalid(entry, "tensorMap is not a tensor map an encode call made");
  m.address = reinterpret_cast<std::uintptr_t>(globalAddress);
  return finish(entry, tensorMap, m);
}

}  // extern "C"
