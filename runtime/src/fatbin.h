// NVIDIA fat binaries as nvcc embeds them: containers of PTX and cubin entries,
// each entry possibly compressed (zstd in CUDA 13, LZ4 with -compress-mode=speed
// and in older toolkits). Only PTX is used: cubins need a real GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace cnuas::cuda {

struct FatbinEntry {
  enum class Kind { Ptx, Cubin, Other } kind = Kind::Other;
  unsigned arch = 0;  // compute capability x 10: 90 for sm_90 / compute_90
  std::string text;   // PTX source, decompressed (empty for other kinds)
};

struct FatbinError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

constexpr std::uint32_t kFatbinMagic = 0xBA55ED50u;
constexpr std::uint32_t kFatbinWrapperMagic = 0x466243B1u;
// A wrapper of this version points at its translation units' fat binaries
// (relocatable device code, linked by nvlink).
constexpr int kFatbinWrapperLinkVersion = 2;

// Parses the container at `data` and, when `follow` is set, the containers that
// follow it back to back within `limit` bytes (a whole .nv_fatbin section).
// Throws FatbinError naming the offset and what was wrong.
// With `text` false, PTX entries are listed but not decompressed.
std::vector<FatbinEntry> parse_fatbin(const std::uint8_t* data, std::size_t limit, bool follow,
                                      bool text = true);

// The size of the container at `data` (header included), read from its header.
std::size_t fatbin_container_size(const std::uint8_t* data);

// The bytes the reader may look at for a container at `data`: to the end of
// the loaded segment of the program or library that holds it, so that a
// corrupt size field is reported rather than followed out of the image; the
// header's own claim when `data` lies outside every loaded object (a buffer
// the program built). Throws FatbinError when not even a header fits.
std::size_t fatbin_read_limit(const std::uint8_t* data);

// The PTX entry for the highest architecture not above `arch`, or nullptr.
const FatbinEntry* select_ptx(const std::vector<FatbinEntry>& entries, unsigned arch);

// The entries, for messages: "PTX compute 120, cubin sm 90" ("nothing" for none).
std::string entry_list(const std::vector<FatbinEntry>& entries);

// What to tell a user whose binary has no usable PTX for `arch`.
std::string missing_ptx_advice(const std::vector<FatbinEntry>& entries, unsigned arch);

}  // namespace cnuas::cuda
