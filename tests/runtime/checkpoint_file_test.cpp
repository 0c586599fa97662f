// The checkpoint file's reader (runtime/src/engine/checkpoint_file.h): what
// the writer wrote reads back; every truncation and every changed byte of a
// small file is reported as CheckpointFileError, never a crash or
// different data read back.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "engine/checkpoint_file.h"

namespace cnuas::cuda {
namespace {

std::string scratch(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("cnuas_checkpoint_file_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

std::vector<char> read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_all(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<long>(bytes.size()));
}

// A record the way the runtime writes them: a tag, numbers, a string, bytes.
void write_sample(const std::string& path) {
  CheckpointWriter w(path);
  w.bytes("TEST", 4);
  w.u32(7);
  w.u64(0x0123456789abcdefull);
  w.text("kernel");
  std::vector<unsigned char> data(3000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i * 31);
  w.bytes(data.data(), data.size());
  w.bytes("END!", 4);
  w.finish();
}

// Reads the sample back through; throws CheckpointFileError on any damage.
void read_sample(const std::string& path) {
  CheckpointReader r(path);
  r.tag("TEST");
  if (r.u32() != 7 || r.u64() != 0x0123456789abcdefull || r.text() != "kernel")
    throw std::logic_error("different values read back");
  std::vector<unsigned char> data(3000);
  r.bytes(data.data(), data.size());
  for (std::size_t i = 0; i < data.size(); ++i)
    if (data[i] != static_cast<unsigned char>(i * 31))
      throw std::logic_error("different bytes read back");
  r.tag("END!");
  r.end();
}

TEST(CheckpointFile, WhatIsWrittenReadsBack) {
  const std::string path = scratch("round_trip");
  write_sample(path);
  EXPECT_NO_THROW(read_sample(path));
  const std::vector<char> bytes = read_all(path);
  ASSERT_GE(bytes.size(), 16u);
  EXPECT_EQ(std::string(bytes.data(), 8), "CNUASCKP");
  EXPECT_EQ(bytes[8], 2);  // version 2 (docs/checkpoint-format.md), little-endian
  std::filesystem::remove(path);
}

TEST(CheckpointFile, EveryTruncationIsRefused) {
  const std::string path = scratch("whole"), cut = scratch("cut");
  write_sample(path);
  const std::vector<char> bytes = read_all(path);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    write_all(cut, std::vector<char>(bytes.begin(), bytes.begin() + static_cast<long>(n)));
    EXPECT_THROW(read_sample(cut), CheckpointFileError) << "cut to " << n << " bytes";
  }
  std::filesystem::remove(path);
  std::filesystem::remove(cut);
}

// A changed byte of the records or of the compressed blocks is refused (the
// frame's checksum covers the content). A few bits of the zstd frame header
// (its window size) change how the frame is decoded but not what it holds:
// such a file reads back the identical content, checked by read_sample, so
// no change ever gives different data.
TEST(CheckpointFile, EveryChangedByteIsRefusedOrHarmless) {
  const std::string path = scratch("original"), changed = scratch("changed");
  write_sample(path);
  const std::vector<char> bytes = read_all(path);
  constexpr std::size_t kFrameStart = 16, kMaxFrameHeader = 18;  // zstd format
  for (std::size_t at = 0; at < bytes.size(); ++at) {
    std::vector<char> copy = bytes;
    copy[at] = static_cast<char>(copy[at] ^ 0x5a);
    write_all(changed, copy);
    bool refused = false;
    try {
      read_sample(changed);  // throws std::logic_error on different content
    } catch (const CheckpointFileError&) {
      refused = true;
    }
    if (!refused) {
      EXPECT_TRUE(at >= kFrameStart && at < kFrameStart + kMaxFrameHeader)
          << "byte " << at << " changed and the file was accepted";
    }
  }
  std::vector<char> longer = bytes;
  longer.push_back('x');
  write_all(changed, longer);
  EXPECT_THROW(read_sample(changed), CheckpointFileError) << "a byte appended";
  std::filesystem::remove(path);
  std::filesystem::remove(changed);
}

}  // namespace
}  // namespace cnuas::cuda
