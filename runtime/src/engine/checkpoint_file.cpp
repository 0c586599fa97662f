#include "engine/checkpoint_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include <fmt/format.h>

namespace cnuas::cuda {
namespace {

// Level 1 with a worker per core: compression keeps up with a disk; a
// checkpoint is mostly written once and read once.
constexpr int kLevel = 1;

}  // namespace

CheckpointWriter::CheckpointWriter(const std::string& path) : path_(path) {
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_)
    throw CheckpointFileError(
        fmt::format("cannot write checkpoint '{}': {}", path, std::strerror(errno)));
  ctx_ = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(ctx_, ZSTD_c_compressionLevel, kLevel);
  ZSTD_CCtx_setParameter(ctx_, ZSTD_c_checksumFlag, 1);
  // Ignored (an error code) by a libzstd built without threads.
  ZSTD_CCtx_setParameter(ctx_, ZSTD_c_nbWorkers,
                         static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  out_.resize(ZSTD_CStreamOutSize());
  std::uint32_t header[2] = {kCheckpointVersion, 0};
  if (std::fwrite(kCheckpointMagic, 1, sizeof kCheckpointMagic, file_) != sizeof kCheckpointMagic ||
      std::fwrite(header, 1, sizeof header, file_) != sizeof header)
    throw CheckpointFileError(fmt::format("cannot write checkpoint '{}'", path));
  written_ = sizeof kCheckpointMagic + sizeof header;
}

CheckpointWriter::~CheckpointWriter() {
  if (file_) std::fclose(file_);
  ZSTD_freeCCtx(ctx_);
}

void CheckpointWriter::bytes(const void* p, std::size_t n) {
  ZSTD_inBuffer in{p, n, 0};
  while (in.pos < in.size) {
    ZSTD_outBuffer out{out_.data(), out_.size(), 0};
    const std::size_t r = ZSTD_compressStream2(ctx_, &out, &in, ZSTD_e_continue);
    if (ZSTD_isError(r))
      throw CheckpointFileError(
          fmt::format("cannot compress checkpoint '{}': {}", path_, ZSTD_getErrorName(r)));
    if (out.pos && std::fwrite(out_.data(), 1, out.pos, file_) != out.pos)
      throw CheckpointFileError(
          fmt::format("cannot write checkpoint '{}': {}", path_, std::strerror(errno)));
    written_ += out.pos;
  }
}

void CheckpointWriter::text(const std::string& s) {
  u32(static_cast<std::uint32_t>(s.size()));
  bytes(s.data(), s.size());
}

void CheckpointWriter::flush(ZSTD_EndDirective mode) {
  ZSTD_inBuffer in{nullptr, 0, 0};
  std::size_t left = 0;
  do {
    ZSTD_outBuffer out{out_.data(), out_.size(), 0};
    left = ZSTD_compressStream2(ctx_, &out, &in, mode);
    if (ZSTD_isError(left))
      throw CheckpointFileError(
          fmt::format("cannot compress checkpoint '{}': {}", path_, ZSTD_getErrorName(left)));
    if (out.pos && std::fwrite(out_.data(), 1, out.pos, file_) != out.pos)
      throw CheckpointFileError(
          fmt::format("cannot write checkpoint '{}': {}", path_, std::strerror(errno)));
    written_ += out.pos;
  } while (left != 0);
}

std::uint64_t CheckpointWriter::finish() {
  flush(ZSTD_e_end);
  const int closed = std::fclose(file_);
  file_ = nullptr;
  if (closed != 0)
    throw CheckpointFileError(
        fmt::format("cannot write checkpoint '{}': {}", path_, std::strerror(errno)));
  return written_;
}

CheckpointReader::CheckpointReader(const std::string& path) : path_(path) {
  file_ = std::fopen(path.c_str(), "rb");
  if (!file_)
    throw CheckpointFileError(
        fmt::format("cannot read checkpoint '{}': {}", path, std::strerror(errno)));
  char magic[sizeof kCheckpointMagic];
  std::uint32_t header[2] = {0, 0};
  if (std::fread(magic, 1, sizeof magic, file_) != sizeof magic ||
      std::memcmp(magic, kCheckpointMagic, sizeof magic) != 0)
    throw CheckpointFileError(fmt::format(
        "'{}' is no Cnuas checkpoint (it does not start with CNUASCKP; write one with cnuas "
        "exec --checkpoint DIR --checkpoint-at KERNEL)",
        path));
  if (std::fread(header, 1, sizeof header, file_) != sizeof header)
    throw CheckpointFileError(fmt::format("checkpoint '{}' is truncated in its header", path));
  if (header[0] < kCheckpointOldestVersion || header[0] > kCheckpointVersion)
    throw CheckpointFileError(
        fmt::format("checkpoint '{}' has format version {}; this Cnuas reads versions {} to {}",
                    path, header[0], kCheckpointOldestVersion, kCheckpointVersion));
  version_ = header[0];
  if (header[1] != 0)
    throw CheckpointFileError(fmt::format(
        "checkpoint '{}' is damaged: its reserved header field is {}, not 0", path, header[1]));
  ctx_ = ZSTD_createDCtx();
  in_.resize(ZSTD_DStreamInSize());
  out_.resize(ZSTD_DStreamOutSize());
}

CheckpointReader::~CheckpointReader() {
  if (file_) std::fclose(file_);
  ZSTD_freeDCtx(ctx_);
}

bool CheckpointReader::refill() {
  out_pos_ = out_end_ = 0;
  while (!frame_done_) {
    if (input_.pos == input_.size) {
      const std::size_t n = std::fread(in_.data(), 1, in_.size(), file_);
      if (n == 0) throw CheckpointFileError(fmt::format("checkpoint '{}' is truncated", path_));
      input_ = {in_.data(), n, 0};
    }
    ZSTD_outBuffer out{out_.data(), out_.size(), 0};
    const std::size_t r = ZSTD_decompressStream(ctx_, &out, &input_);
    if (ZSTD_isError(r))
      throw CheckpointFileError(
          fmt::format("checkpoint '{}' is damaged: {}", path_, ZSTD_getErrorName(r)));
    if (r == 0) frame_done_ = true;  // the checksum matched
    out_end_ = out.pos;
    if (out_end_ > 0) return true;
  }
  return false;
}

void CheckpointReader::bytes(void* p, std::size_t n) {
  auto* to = static_cast<char*>(p);
  while (n > 0) {
    if (out_pos_ == out_end_ && !refill())
      throw CheckpointFileError(
          fmt::format("checkpoint '{}' is damaged: its records end early", path_));
    const std::size_t take = std::min(n, out_end_ - out_pos_);
    if (to) {
      std::memcpy(to, out_.data() + out_pos_, take);
      to += take;
    }
    out_pos_ += take;
    n -= take;
  }
}

void CheckpointReader::skip(std::uint64_t n) {
  while (n > 0) {
    const std::size_t step = static_cast<std::size_t>(std::min<std::uint64_t>(n, 1u << 30));
    bytes(nullptr, step);
    n -= step;
  }
}

std::uint32_t CheckpointReader::u32() {
  std::uint32_t v = 0;
  bytes(&v, sizeof v);
  return v;
}

std::uint64_t CheckpointReader::u64() {
  std::uint64_t v = 0;
  bytes(&v, sizeof v);
  return v;
}

std::string CheckpointReader::text(std::size_t limit) {
  const std::uint32_t n = u32();
  if (n > limit)
    throw CheckpointFileError(
        fmt::format("checkpoint '{}' is damaged: a string of {} bytes", path_, n));
  std::string s(n, '\0');
  bytes(s.data(), n);
  return s;
}

void CheckpointReader::tag(const char (&expected)[5]) {
  char got[4];
  bytes(got, 4);
  if (std::memcmp(got, expected, 4) != 0)
    throw CheckpointFileError(fmt::format(
        "checkpoint '{}' is damaged: section '{}' expected, found other bytes", path_, expected));
}

void CheckpointReader::end() {
  if (out_pos_ != out_end_ || refill())
    throw CheckpointFileError(
        fmt::format("checkpoint '{}' is damaged: bytes after its last record", path_));
  if (input_.pos != input_.size || std::fgetc(file_) != EOF)
    throw CheckpointFileError(
        fmt::format("checkpoint '{}' is damaged: bytes after its compressed frame", path_));
}

}  // namespace cnuas::cuda
