// Where wgmma finds an element of a shared-memory operand: the 64-bit matrix
// descriptor and the canonical layouts of PTX ISA 9.0 (section "Matrix
// Descriptor" of the asynchronous warpgroup-level matrix instructions).
#pragma once

#include <cstdint>
#include <string>

namespace cnuas::ptx {

enum class WgmmaSwizzle : std::uint8_t { None, B128, B64, B32 };  // the descriptor's encoding

struct WgmmaDescriptor {
  std::uint32_t start = 0;       // bytes, 16-byte aligned (bits 0-13, in 16-byte units)
  std::uint32_t leading = 0;     // leading dimension byte offset (bits 16-29)
  std::uint32_t stride = 0;      // stride dimension byte offset (bits 32-45)
  std::uint8_t base_offset = 0;  // bits 49-51
  WgmmaSwizzle swizzle = WgmmaSwizzle::None;  // bits 62-63
};

WgmmaDescriptor decode_wgmma_descriptor(std::uint64_t bits);

// The width in bytes of a swizzled row (128, 64, 32), 16 without swizzling.
unsigned swizzle_bytes(WgmmaSwizzle s);

// The swizzle applied to a shared-memory byte address: 16-byte chunk bits
// 4.. XOR the row bits 7.. (3, 2 or 1 bits for 128B, 64B, 32B).
std::uint32_t swizzle_address(std::uint32_t address, WgmmaSwizzle s);

// The byte address of element (mn, k) of an operand with elements of
// `element_bytes` bytes (A: mn = row m; B: mn = column n), before the final
// swizzle is applied, for a K-major (mn_major = false) or MN-major layout:
//   K-major, no swizzle: 8x16-byte core matrices, k/(16/eb) at `leading`, mn/8 at `stride`;
//   K-major, swizzled:   rows of the swizzle width at mn % 8, mn/8 at `stride`;
//   MN-major, no swizzle: 16 bytes of mn contiguous, k % 8 at 16 bytes, k/8 at `leading`,
//                         mn/(16/eb) at `stride`;
//   MN-major, swizzled:  the swizzle width of mn contiguous, k % 8 at that width, k/8 at
//                        `stride`, mn/(width/eb) at `leading`.
std::uint32_t wgmma_element_address(const WgmmaDescriptor& d, unsigned mn, unsigned k,
                                    unsigned element_bytes, bool mn_major);

// The final shared-memory address of element (mn, k).
inline std::uint32_t wgmma_smem_address(const WgmmaDescriptor& d, unsigned mn, unsigned k,
                                        unsigned element_bytes, bool mn_major) {
  return swizzle_address(wgmma_element_address(d, mn, k, element_bytes, mn_major), d.swizzle);
}

// Empty when the descriptor can be used as the engine reads it, else why not: the base
// offset must be 0 or the start address's row phase ((start >> 7) & 7), which the engine
// already takes from the address bits it swizzles.
std::string wgmma_descriptor_problem(const WgmmaDescriptor& d);

}  // namespace cnuas::ptx
