#include "ptx/wgmma_layout.h"

namespace cnuas::ptx {

WgmmaDescriptor decode_wgmma_descriptor(std::uint64_t bits) {
  WgmmaDescriptor d;
  d.start = static_cast<std::uint32_t>(bits & 0x3fff) << 4;
  d.leading = static_cast<std::uint32_t>((bits >> 16) & 0x3fff) << 4;
  d.stride = static_cast<std::uint32_t>((bits >> 32) & 0x3fff) << 4;
  d.base_offset = static_cast<std::uint8_t>((bits >> 49) & 0x7);
  d.swizzle = static_cast<WgmmaSwizzle>((bits >> 62) & 0x3);
  return d;
}

unsigned swizzle_bytes(WgmmaSwizzle s) {
  switch (s) {
    case WgmmaSwizzle::B128:
      return 128;
    case WgmmaSwizzle::B64:
      return 64;
    case WgmmaSwizzle::B32:
      return 32;
    default:
      return 16;
  }
}

std::uint32_t swizzle_address(std::uint32_t address, WgmmaSwizzle s) {
  const std::uint32_t row_bits = swizzle_bytes(s) / 16 - 1;  // 7, 3, 1 or 0
  return address ^ (((address >> 7) & row_bits) << 4);
}

std::uint32_t wgmma_element_address(const WgmmaDescriptor& d, unsigned mn, unsigned k,
                                    unsigned element_bytes, bool mn_major) {
  const unsigned width = swizzle_bytes(d.swizzle);
  const unsigned per_row = width / element_bytes;  // elements in one row of the layout
  if (!mn_major) {
    if (d.swizzle == WgmmaSwizzle::None)  // per_row = the elements of 16 bytes
      return d.start + (mn / 8) * d.stride + (k / per_row) * d.leading + (mn % 8) * 16 +
             (k % per_row) * element_bytes;
    return d.start + (mn / 8) * d.stride + (mn % 8) * width + k * element_bytes;
  }
  // MN-major: the two offsets trade places between the interleaved and swizzled layouts.
  const unsigned mn_stride = d.swizzle == WgmmaSwizzle::None ? d.stride : d.leading;
  const unsigned k_stride = d.swizzle == WgmmaSwizzle::None ? d.leading : d.stride;
  return d.start + (mn / per_row) * mn_stride + (k / 8) * k_stride + (k % 8) * width +
         (mn % per_row) * element_bytes;
}

std::string wgmma_descriptor_problem(const WgmmaDescriptor& d) {
  if (d.swizzle == WgmmaSwizzle::None || d.base_offset == 0) return {};
  const unsigned phase = (d.start >> 7) & 7;
  if (d.base_offset == phase) return {};
  return "matrix descriptor base offset " + std::to_string(d.base_offset) + " with start address " +
         std::to_string(d.start) +
         " (the engine takes the swizzle phase from the address bits; accepted base offsets: 0 "
         "or (start >> 7) & 7 = " +
         std::to_string(phase) + ")";
}

}  // namespace cnuas::ptx
