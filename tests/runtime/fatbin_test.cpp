// The fat-binary reader against containers built here with the documented
// layout: plain, zstd- and LZ4-compressed PTX entries, several containers back
// to back, selection by compute capability, and truncated or corrupt input.
#include <gtest/gtest.h>
#include <lz4.h>
#include <zstd.h>

#include <cstring>
#include <string>
#include <vector>

#include "fatbin.h"

namespace cnuas::cuda {
namespace {

enum class Packing { Plain, Zstd, Lz4 };

template <typename T>
void put(std::vector<std::uint8_t>& out, std::size_t at, T v) {
  std::memcpy(out.data() + at, &v, sizeof v);
}

// One entry: a 64-byte header, then the payload padded to 8 bytes.
std::vector<std::uint8_t> entry(std::uint16_t kind, unsigned arch, const std::string& text,
                                Packing packing) {
  std::string payload = text;
  std::uint64_t flags = 0x11, uncompressed = 0;
  if (packing == Packing::Zstd) {
    payload.resize(ZSTD_compressBound(text.size()));
    payload.resize(ZSTD_compress(payload.data(), payload.size(), text.data(), text.size(), 3));
    flags |= 0x8000;
    uncompressed = text.size();
  } else if (packing == Packing::Lz4) {
    payload.resize(static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(text.size()))));
    payload.resize(static_cast<std::size_t>(
        LZ4_compress_default(text.data(), payload.data(), static_cast<int>(text.size()),
                             static_cast<int>(payload.size()))));
    flags |= 0x2000;
    uncompressed = text.size();
  }
  const std::size_t padded = (payload.size() + 7) / 8 * 8;
  std::vector<std::uint8_t> out(64 + padded, 0);
  put<std::uint16_t>(out, 0, kind);
  put<std::uint16_t>(out, 2, 0x0101);
  put<std::uint32_t>(out, 4, 64);
  put<std::uint64_t>(out, 8, padded);
  put<std::uint32_t>(out, 16,
                     packing == Packing::Plain ? 0 : static_cast<std::uint32_t>(payload.size()));
  put<std::uint32_t>(out, 28, arch);
  put<std::uint64_t>(out, 40, flags);
  put<std::uint64_t>(out, 56, uncompressed);
  std::memcpy(out.data() + 64, payload.data(), payload.size());
  return out;
}

std::vector<std::uint8_t> container(const std::vector<std::vector<std::uint8_t>>& entries) {
  std::vector<std::uint8_t> out(16, 0);
  put<std::uint32_t>(out, 0, kFatbinMagic);
  put<std::uint16_t>(out, 4, 1);
  put<std::uint16_t>(out, 6, 16);
  for (const auto& e : entries) out.insert(out.end(), e.begin(), e.end());
  put<std::uint64_t>(out, 8, out.size() - 16);
  return out;
}

const std::string kPtx80 = ".version 8.0\n.target sm_80\n// eighty\n";
const std::string kPtx90 = ".version 9.0\n.target sm_90\n" + std::string(3000, 'x') + "\n";

TEST(Fatbin, ReadsPlainZstdAndLz4Entries) {
  for (Packing p : {Packing::Plain, Packing::Zstd, Packing::Lz4}) {
    const auto bin = container({entry(2, 90, "ELF", Packing::Plain), entry(1, 90, kPtx90, p)});
    const auto entries = parse_fatbin(bin.data(), bin.size(), false);
    ASSERT_EQ(entries.size(), 2u);
    EXPECT_EQ(entries[0].kind, FatbinEntry::Kind::Cubin);
    EXPECT_EQ(entries[1].kind, FatbinEntry::Kind::Ptx);
    EXPECT_EQ(entries[1].arch, 90u);
    EXPECT_EQ(entries[1].text, kPtx90) << "packing " << static_cast<int>(p);
    // Listing without text (what the driver does when a library loads a
    // fat binary) gives the same entries and decompresses nothing.
    const auto listed = parse_fatbin(bin.data(), bin.size(), false, false);
    ASSERT_EQ(listed.size(), 2u);
    EXPECT_EQ(listed[1].kind, FatbinEntry::Kind::Ptx);
    EXPECT_EQ(listed[1].arch, 90u);
    EXPECT_TRUE(listed[1].text.empty());
    EXPECT_EQ(entry_list(listed), "cubin sm 90, PTX compute 90");
  }
}

TEST(Fatbin, FollowsContainersAndSelectsTheHighestArchNotAboveTheDevice) {
  auto bin = container({entry(1, 80, kPtx80, Packing::Zstd)});
  const auto second = container(
      {entry(1, 90, kPtx90, Packing::Lz4), entry(1, 100, "// hundred\n", Packing::Plain)});
  bin.insert(bin.end(), second.begin(), second.end());
  EXPECT_EQ(parse_fatbin(bin.data(), bin.size(), false).size(), 1u);
  const auto all = parse_fatbin(bin.data(), bin.size(), true);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(select_ptx(all, 90)->text, kPtx90);
  EXPECT_EQ(select_ptx(all, 89)->text, kPtx80);
  EXPECT_EQ(select_ptx(all, 120)->arch, 100u);
  EXPECT_EQ(select_ptx(all, 75), nullptr);
  const std::string advice = missing_ptx_advice(all, 75);
  EXPECT_NE(advice.find("compute capability 7.5"), std::string::npos) << advice;
  EXPECT_NE(advice.find("-gencode arch=compute_75,code=compute_75"), std::string::npos);
}

TEST(Fatbin, RejectsTruncatedAndCorruptInput) {
  auto bin = container({entry(1, 90, kPtx90, Packing::Zstd)});
  EXPECT_THROW(parse_fatbin(bin.data(), bin.size() - 9, false), FatbinError);
  auto bad_magic = bin;
  bad_magic[0] ^= 0xFF;
  EXPECT_THROW(parse_fatbin(bad_magic.data(), bad_magic.size(), false), FatbinError);
  auto corrupt = bin;
  corrupt[16 + 64 + 10] ^= 0x5A;  // inside the zstd frame
  try {
    parse_fatbin(corrupt.data(), corrupt.size(), false);
    FAIL() << "corrupt zstd payload accepted";
  } catch (const FatbinError& e) {
    EXPECT_NE(std::string(e.what()).find("offset 16"), std::string::npos) << e.what();
  }
  auto huge = bin;
  put<std::uint64_t>(huge, 16 + 56, std::uint64_t{1} << 40);  // implausible uncompressed size
  EXPECT_THROW(parse_fatbin(huge.data(), huge.size(), false), FatbinError);
}

// Fuzzing finds: an entry whose header size runs past its container (the
// overrun check wrapped around and the reader decompressed whatever lay
// beyond), a container header size below 16, and a size field that claims
// more than the image holds.
std::string fatbin_error(const std::vector<std::uint8_t>& bin, std::size_t limit) {
  try {
    parse_fatbin(bin.data(), limit, false);
  } catch (const FatbinError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(Fatbin, SizeFieldsThatOverrunAreReportedNotFollowed) {
  const auto bin = container({entry(1, 90, kPtx90, Packing::Zstd)});
  auto long_entry = bin;
  put<std::uint32_t>(long_entry, 16 + 4, 0xc250);
  EXPECT_NE(fatbin_error(long_entry, long_entry.size())
                .find("fatbin entry at offset 16: header 49744 and payload"),
            std::string::npos)
      << fatbin_error(long_entry, long_entry.size());
  auto short_header = bin;
  put<std::uint16_t>(short_header, 6, 0);
  EXPECT_NE(fatbin_error(short_header, short_header.size()).find("header size 0 is below"),
            std::string::npos);
  // libFuzzer: a header size of 256 and a payload size of 2^64 - 256 summed to
  // a container of 0 bytes, and following containers looped on it forever.
  auto wrapped = bin;
  put<std::uint16_t>(wrapped, 6, 256);
  put<std::uint64_t>(wrapped, 8, ~std::uint64_t{0} - 255);
  EXPECT_NE(fatbin_error(wrapped, wrapped.size()).find("more than 64 bits hold"),
            std::string::npos);
  try {
    parse_fatbin(wrapped.data(), wrapped.size(), true);
    ADD_FAILURE() << "a wrapped container size was followed";
  } catch (const FatbinError&) {
  }
  auto long_container = bin;
  put<std::uint64_t>(long_container, 8, std::uint64_t{1} << 46);
  EXPECT_NE(fatbin_error(long_container, long_container.size())
                .find("claims " + std::to_string((std::uint64_t{1} << 46) + 16) + " bytes, " +
                      std::to_string(bin.size()) + " are available"),
            std::string::npos);
}

// The read limit of a container inside this test program's image is the rest
// of its loaded segment, not the header's claim; outside every loaded object
// (a heap buffer) it is the claim.
TEST(Fatbin, ReadLimitEndsWithTheLoadedSegment) {
  static const std::uint8_t in_image[32] = {0x50, 0xed, 0x55, 0xba, 1,    0,    16, 0,
                                            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0,  0};
  const std::size_t limit = fatbin_read_limit(in_image);
  EXPECT_GE(limit, sizeof in_image);
  EXPECT_LT(limit, std::size_t{1} << 40);  // not the 2^48-byte claim
  const auto heap = container({entry(1, 90, kPtx80, Packing::Plain)});
  EXPECT_EQ(fatbin_read_limit(heap.data()), heap.size());
}

}  // namespace
}  // namespace cnuas::cuda
