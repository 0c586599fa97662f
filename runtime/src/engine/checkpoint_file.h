// The checkpoint file (docs/checkpoint-format.md): an 8-byte magic, the
// format version and one zstd frame with a content checksum holding the
// records, all integers little-endian. The writer compresses as it goes, on
// several threads, so that gigabytes of memory are written at disk speed; the
// reader decompresses as it goes and turns every way a file can be wrong
// (another file, a newer version, truncation, a flipped byte) into
// CheckpointFileError, never into a crash.
#pragma once

#include <zstd.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace cnuas::cuda {

inline constexpr char kCheckpointMagic[8] = {'C', 'N', 'U', 'A', 'S', 'C', 'K', 'P'};
// Version 2 added the CTAS record (checkpoints inside a kernel); version 1
// files, without it, are still read.
inline constexpr std::uint32_t kCheckpointVersion = 2;
inline constexpr std::uint32_t kCheckpointOldestVersion = 1;
inline constexpr const char* kCheckpointFileName = "checkpoint.cnck";

class CheckpointFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class CheckpointWriter {
 public:
  explicit CheckpointWriter(const std::string& path);
  ~CheckpointWriter();
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  void bytes(const void* p, std::size_t n);
  void u32(std::uint32_t v) { bytes(&v, sizeof v); }
  void u64(std::uint64_t v) { bytes(&v, sizeof v); }
  void text(const std::string& s);
  // Ends the frame and closes the file; returns the compressed bytes written.
  std::uint64_t finish();

 private:
  void flush(ZSTD_EndDirective mode);
  std::string path_;
  std::FILE* file_ = nullptr;
  ZSTD_CCtx* ctx_ = nullptr;
  std::vector<char> out_;
  std::uint64_t written_ = 0;
};

class CheckpointReader {
 public:
  // Throws CheckpointFileError when the file is missing, is no checkpoint or
  // has another version.
  explicit CheckpointReader(const std::string& path);
  ~CheckpointReader();
  CheckpointReader(const CheckpointReader&) = delete;
  CheckpointReader& operator=(const CheckpointReader&) = delete;

  void bytes(void* p, std::size_t n);
  void skip(std::uint64_t n);
  std::uint32_t u32();
  std::uint64_t u64();
  // A string of at most `limit` bytes (a longer length is a damaged file).
  std::string text(std::size_t limit = 1 << 20);
  // Expects a 4-byte section tag.
  void tag(const char (&expected)[5]);
  // Expects the end of the frame: its checksum verified, nothing after it.
  void end();
  const std::string& path() const { return path_; }
  std::uint32_t version() const { return version_; }

 private:
  bool refill();  // false at the end of the frame
  std::string path_;
  std::FILE* file_ = nullptr;
  ZSTD_DCtx* ctx_ = nullptr;
  std::vector<char> in_;
  ZSTD_inBuffer input_{nullptr, 0, 0};
  std::vector<char> out_;
  std::size_t out_pos_ = 0, out_end_ = 0;
  bool frame_done_ = false;
  std::uint32_t version_ = 0;
};

}  // namespace cnuas::cuda
