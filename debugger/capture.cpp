#include "capture.h"

#include <cstring>
#include <fstream>
#include <iterator>

#include <fmt/format.h>
#include <zstd.h>

#include "core/kernel/errors.h"

namespace cnuas::debugger {
namespace {

constexpr char kMagic[8] = {'C', 'N', 'U', 'A', 'S', 'C', 'A', 'P'};
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kHeaderBytes = 24;  // magic, version, flags, body bytes

class Writer {
 public:
  void u32(std::uint32_t v) { raw(&v, 4); }
  void u64(std::uint64_t v) { raw(&v, 8); }
  void bytes(const void* p, std::size_t n) {
    u64(n);
    raw(p, n);
  }
  void bytes(const std::vector<std::uint8_t>& v) { bytes(v.data(), v.size()); }
  void str(const std::string& s) { bytes(s.data(), s.size()); }
  std::vector<std::uint8_t> out;

 private:
  void raw(const void* p, std::size_t n) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    out.insert(out.end(), b, b + n);
  }
};

class Reader {
 public:
  Reader(const std::vector<std::uint8_t>& in, const std::string& path) : in_(in), path_(path) {}
  std::uint32_t u32(const char* what) {
    std::uint32_t v;
    raw(&v, 4, what);
    return v;
  }
  std::uint64_t u64(const char* what) {
    std::uint64_t v;
    raw(&v, 8, what);
    return v;
  }
  std::vector<std::uint8_t> bytes(const char* what) {
    const std::uint64_t n = u64(what);
    if (n > in_.size() - at_)
      fail(what, fmt::format("says {} bytes, {} remain", n, in_.size() - at_));
    std::vector<std::uint8_t> v(in_.begin() + static_cast<std::ptrdiff_t>(at_),
                                in_.begin() + static_cast<std::ptrdiff_t>(at_ + n));
    at_ += n;
    return v;
  }
  std::string str(const char* what) {
    const auto v = bytes(what);
    return std::string(v.begin(), v.end());
  }
  bool done() const { return at_ == in_.size(); }
  [[noreturn]] void fail(const char* what, const std::string& why) const {
    throw InputError(
        fmt::format("{}: corrupt capture: {} at body byte {}: {}", path_, what, at_, why));
  }

 private:
  void raw(void* p, std::size_t n, const char* what) {
    if (n > in_.size() - at_) fail(what, "the body ends first");
    std::memcpy(p, in_.data() + at_, n);
    at_ += n;
  }
  const std::vector<std::uint8_t>& in_;
  const std::string& path_;
  std::size_t at_ = 0;
};

}  // namespace

void write_capture(const Capture& c, const std::string& path) {
  Writer w;
  w.str(c.kernel);
  w.u32(c.occurrence);
  w.str(c.ptx_origin);
  w.str(c.ptx);
  for (const std::uint32_t* d : {c.grid, c.block, c.cluster})
    for (int k = 0; k < 3; ++k) w.u32(d[k]);
  w.u32(c.dynamic_shared_bytes);
  w.u32(c.stack_bytes);
  w.u32(c.sm_count);
  w.bytes(c.params);
  w.u32(c.has_outputs ? 1 : 0);
  w.u64(c.buffers.size());
  for (const CapturedBuffer& b : c.buffers) {
    w.u64(b.base);
    w.bytes(b.before);
    w.bytes(b.after);
  }
  w.u64(c.variables.size());
  for (const CapturedVariable& v : c.variables) {
    w.str(v.name);
    w.bytes(v.before);
    w.bytes(v.after);
  }
  std::vector<std::uint8_t> packed(ZSTD_compressBound(w.out.size()));
  const std::size_t n = ZSTD_compress(packed.data(), packed.size(), w.out.data(), w.out.size(), 3);
  if (ZSTD_isError(n)) throw InternalError(std::string("zstd: ") + ZSTD_getErrorName(n));
  std::ofstream out(path, std::ios::binary);
  std::uint32_t header[2] = {kVersion, 0};
  const std::uint64_t body = w.out.size();
  out.write(kMagic, 8);
  out.write(reinterpret_cast<const char*>(header), 8);
  out.write(reinterpret_cast<const char*>(&body), 8);
  out.write(reinterpret_cast<const char*>(packed.data()), static_cast<std::streamsize>(n));
  out.close();
  if (!out) throw InputError(fmt::format("cannot write the capture '{}'", path));
}

Capture read_capture(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot open the capture '{}'", path));
  const std::vector<std::uint8_t> file((std::istreambuf_iterator<char>(in)),
                                       std::istreambuf_iterator<char>());
  if (file.size() < kHeaderBytes || std::memcmp(file.data(), kMagic, 8) != 0)
    throw InputError(fmt::format(
        "{}: not a kernel capture (no CNUASCAP header); `cnuas debug capture` writes them", path));
  std::uint32_t version;
  std::uint64_t body_bytes;
  std::memcpy(&version, file.data() + 8, 4);
  std::memcpy(&body_bytes, file.data() + 16, 8);
  if (version != kVersion)
    throw InputError(fmt::format("{}: capture format version {}; this cnuas reads version {}", path,
                                 version, kVersion));
  const std::uint64_t expected =
      ZSTD_getFrameContentSize(file.data() + kHeaderBytes, file.size() - kHeaderBytes);
  if (expected != body_bytes || body_bytes > (std::uint64_t{1} << 40))
    throw InputError(
        fmt::format("{}: corrupt capture: the compressed body does not hold the {} "
                    "bytes the header announces",
                    path, body_bytes));
  std::vector<std::uint8_t> body(body_bytes);
  const std::size_t got = ZSTD_decompress(body.data(), body.size(), file.data() + kHeaderBytes,
                                          file.size() - kHeaderBytes);
  if (ZSTD_isError(got) || got != body_bytes)
    throw InputError(
        fmt::format("{}: corrupt capture: the compressed body does not decompress ({})", path,
                    ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short"));
  Reader r(body, path);
  Capture c;
  c.kernel = r.str("kernel name");
  c.occurrence = r.u32("occurrence");
  c.ptx_origin = r.str("PTX origin");
  c.ptx = r.str("PTX text");
  for (std::uint32_t* d : {c.grid, c.block, c.cluster})
    for (int k = 0; k < 3; ++k) d[k] = r.u32("launch dimensions");
  c.dynamic_shared_bytes = r.u32("dynamic shared bytes");
  c.stack_bytes = r.u32("stack bytes");
  c.sm_count = r.u32("SM count");
  c.params = r.bytes("parameter buffer");
  c.has_outputs = r.u32("outputs flag") != 0;
  const std::uint64_t buffers = r.u64("buffer count");
  for (std::uint64_t i = 0; i < buffers; ++i) {
    CapturedBuffer b;
    b.base = r.u64("buffer base");
    b.before = r.bytes("buffer contents");
    b.after = r.bytes("buffer outputs");
    if (!b.after.empty() && b.after.size() != b.before.size())
      r.fail("buffer outputs", "its size differs from the buffer's");
    c.buffers.push_back(std::move(b));
  }
  const std::uint64_t variables = r.u64("variable count");
  for (std::uint64_t i = 0; i < variables; ++i) {
    CapturedVariable v;
    v.name = r.str("variable name");
    v.before = r.bytes("variable contents");
    v.after = r.bytes("variable outputs");
    c.variables.push_back(std::move(v));
  }
  if (!r.done()) r.fail("end", "bytes follow the last field");
  for (const std::uint32_t* d : {c.grid, c.block})
    if (d[0] == 0 || d[1] == 0 || d[2] == 0)
      throw InputError(fmt::format("{}: corrupt capture: a launch dimension is 0", path));
  return c;
}

}  // namespace cnuas::debugger
