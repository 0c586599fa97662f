#include "fatbin.h"

#include <link.h>

#include <cstring>

#include <fmt/format.h>
#include <lz4.h>
#include <zstd.h>

namespace cnuas::cuda {
namespace {

template <typename T>
T read_le(const std::uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Entry header fields (offsets in bytes from the entry start).
constexpr std::size_t kEntryKind = 0, kEntryHeaderSize = 4, kEntryPaddedSize = 8,
                      kEntryCompressedSize = 16, kEntryArch = 28, kEntryFlags = 40,
                      kEntryUncompressedSize = 56, kEntryMinHeader = 64;
constexpr std::uint64_t kFlagLz4 = 0x2000, kFlagZstd = 0x8000;
constexpr std::uint64_t kMaxPtxBytes = 1ull << 30;  // the largest library PTX is tens of MB

std::string decompress(const std::uint8_t* payload, std::uint64_t stored, std::uint64_t flags,
                       std::uint64_t uncompressed, std::size_t at) {
  if (!(flags & (kFlagLz4 | kFlagZstd))) {
    std::string text(reinterpret_cast<const char*>(payload), stored);
    return text.substr(0, text.find('\0'));  // padded with NULs
  }
  if (uncompressed == 0 || uncompressed > kMaxPtxBytes)
    throw FatbinError(fmt::format(
        "fatbin entry at offset {}: uncompressed size {} is not plausible", at, uncompressed));
  // Claims the payload cannot back are refused before the buffer is made (a
  // corrupt size field must not cost gigabytes): zstd frames state their
  // size; LZ4 expands at most 255-fold.
  if (flags & kFlagZstd) {
    const unsigned long long framed = ZSTD_getFrameContentSize(payload, stored);
    if (framed != ZSTD_CONTENTSIZE_UNKNOWN && framed != uncompressed)
      throw FatbinError(
          fmt::format("fatbin entry at offset {}: the zstd frame holds {} bytes, the entry says {}",
                      at, framed == ZSTD_CONTENTSIZE_ERROR ? 0 : framed, uncompressed));
  } else if (uncompressed / 255 > stored) {
    throw FatbinError(fmt::format("fatbin entry at offset {}: {} LZ4 bytes cannot hold {} bytes",
                                  at, stored, uncompressed));
  }
  std::string out(uncompressed, '\0');
  if (flags & kFlagZstd) {
    const std::size_t n = ZSTD_decompress(out.data(), out.size(), payload, stored);
    if (ZSTD_isError(n) || n != uncompressed)
      throw FatbinError(
          fmt::format("fatbin entry at offset {}: zstd payload does not decompress "
                      "to {} bytes ({})",
                      at, uncompressed, ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short output"));
  } else {
    const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(payload), out.data(),
                                      static_cast<int>(stored), static_cast<int>(out.size()));
    if (n < 0 || static_cast<std::uint64_t>(n) != uncompressed)
      throw FatbinError(
          fmt::format("fatbin entry at offset {}: LZ4 payload does not decompress to {} bytes", at,
                      uncompressed));
  }
  return out.substr(0, out.find('\0'));
}

}  // namespace

std::size_t fatbin_container_size(const std::uint8_t* data) {
  if (read_le<std::uint32_t>(data) != kFatbinMagic)
    throw FatbinError(fmt::format("no fat binary here: magic {:#x}, expected {:#x}",
                                  read_le<std::uint32_t>(data), kFatbinMagic));
  const std::uint64_t header = read_le<std::uint16_t>(data + 6),
                      payload = read_le<std::uint64_t>(data + 8);
  // A wrapped sum would make a container of no bytes, and the reader loop on it.
  if (payload > UINT64_MAX - header)
    throw FatbinError(fmt::format("fat binary header claims {} + {} bytes, more than 64 bits hold",
                                  header, payload));
  return header + payload;
}

namespace {

struct SegmentSearch {
  std::uintptr_t address;
  std::size_t bytes_left = 0;
  bool found = false;
};

int find_segment(dl_phdr_info* info, std::size_t, void* data) {
  auto& search = *static_cast<SegmentSearch*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const std::uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (search.address >= start && search.address - start < ph.p_memsz) {
      search.bytes_left = ph.p_memsz - (search.address - start);
      search.found = true;
      return 1;
    }
  }
  return 0;
}

}  // namespace

std::size_t fatbin_read_limit(const std::uint8_t* data) {
  SegmentSearch search{reinterpret_cast<std::uintptr_t>(data)};
  dl_iterate_phdr(find_segment, &search);
  if (!search.found) return fatbin_container_size(data);
  if (search.bytes_left < 16)
    throw FatbinError(fmt::format("fat binary header at {} runs past the end of its image",
                                  static_cast<const void*>(data)));
  return search.bytes_left;
}

std::vector<FatbinEntry> parse_fatbin(const std::uint8_t* data, std::size_t limit, bool follow,
                                      bool text) {
  std::vector<FatbinEntry> entries;
  std::size_t at = 0;
  do {
    if (limit - at < 16)
      throw FatbinError(fmt::format("fat binary header at offset {} is truncated", at));
    const std::size_t header = read_le<std::uint16_t>(data + at + 6);
    const std::size_t size = fatbin_container_size(data + at);
    if (header < 16)
      throw FatbinError(fmt::format(
          "fat binary at offset {}: header size {} is below the 16 bytes of a header", at, header));
    if (size > limit - at)
      throw FatbinError(fmt::format("fat binary at offset {} claims {} bytes, {} are available", at,
                                    size, limit - at));
    std::size_t e = at + header;
    const std::size_t end = at + size;
    while (e < end) {
      if (end - e < kEntryMinHeader)
        throw FatbinError(fmt::format("fatbin entry at offset {} is truncated", e));
      const std::uint32_t entry_header = read_le<std::uint32_t>(data + e + kEntryHeaderSize);
      const std::uint64_t padded = read_le<std::uint64_t>(data + e + kEntryPaddedSize);
      if (entry_header < kEntryMinHeader || entry_header > end - e ||
          padded > end - e - entry_header)
        throw FatbinError(
            fmt::format("fatbin entry at offset {}: header {} and payload {} bytes overrun the "
                        "container ending at {}",
                        e, entry_header, padded, end));
      FatbinEntry entry;
      const std::uint16_t kind = read_le<std::uint16_t>(data + e + kEntryKind);
      entry.kind = kind == 1   ? FatbinEntry::Kind::Ptx
                   : kind == 2 ? FatbinEntry::Kind::Cubin
                               : FatbinEntry::Kind::Other;
      entry.arch = read_le<std::uint32_t>(data + e + kEntryArch);
      if (entry.kind == FatbinEntry::Kind::Ptx && text) {
        const std::uint64_t flags = read_le<std::uint64_t>(data + e + kEntryFlags);
        std::uint64_t stored = read_le<std::uint32_t>(data + e + kEntryCompressedSize);
        if (stored == 0 || stored > padded) stored = padded;
        entry.text = decompress(data + e + entry_header, stored, flags,
                                read_le<std::uint64_t>(data + e + kEntryUncompressedSize), e);
      }
      entries.push_back(std::move(entry));
      e += entry_header + padded;
    }
    at = end;
  } while (follow && at + 16 <= limit && read_le<std::uint32_t>(data + at) == kFatbinMagic);
  return entries;
}

const FatbinEntry* select_ptx(const std::vector<FatbinEntry>& entries, unsigned arch) {
  const FatbinEntry* best = nullptr;
  for (const FatbinEntry& e : entries)
    if (e.kind == FatbinEntry::Kind::Ptx && e.arch <= arch && (!best || e.arch > best->arch))
      best = &e;
  return best;
}

std::string entry_list(const std::vector<FatbinEntry>& entries) {
  std::string found;
  for (const FatbinEntry& e : entries) {
    if (!found.empty()) found += ", ";
    found +=
        fmt::format("{} {}", e.kind == FatbinEntry::Kind::Ptx ? "PTX compute" : "cubin sm", e.arch);
  }
  return found.empty() ? "nothing" : found;
}

std::string missing_ptx_advice(const std::vector<FatbinEntry>& entries, unsigned arch) {
  return fmt::format(
      "the program embeds no PTX for compute capability {}.{} or below (it has: {}); the "
      "simulator runs PTX, so rebuild with -gencode arch=compute_{},code=compute_{}",
      arch / 10, arch % 10, entry_list(entries), arch, arch);
}

}  // namespace cnuas::cuda
