#include "driver/md2.h"

namespace cnuas::cuda {
namespace {

// RFC 1319's permutation of 0..255 built from the digits of pi.
constexpr std::uint8_t kPiSubst[256] = {
    41,  46,  67,  201, 162, 216, 124, 1,   61,  54,  84,  161, 236, 240, 6,   19,  98,  167, 5,
    243, 192, 199, 115, 140, 152, 147, 43,  217, 188, 76,  130, 202, 30,  155, 87,  60,  253, 212,
    224, 22,  103, 66,  111, 24,  138, 23,  229, 18,  190, 78,  196, 214, 218, 158, 222, 73,  160,
    251, 245, 142, 187, 47,  238, 122, 169, 104, 121, 145, 21,  178, 7,   63,  148, 194, 16,  137,
    11,  34,  95,  33,  128, 127, 93,  154, 90,  144, 50,  39,  53,  62,  204, 231, 191, 247, 151,
    3,   255, 25,  48,  179, 72,  165, 181, 209, 215, 94,  146, 42,  172, 86,  170, 198, 79,  184,
    56,  210, 150, 164, 125, 182, 118, 252, 107, 226, 156, 116, 4,   241, 69,  157, 112, 89,  100,
    113, 135, 32,  134, 91,  207, 101, 230, 45,  168, 2,   27,  96,  37,  173, 174, 176, 185, 246,
    28,  70,  97,  105, 52,  64,  126, 15,  85,  71,  163, 35,  221, 81,  175, 58,  195, 92,  249,
    206, 186, 197, 234, 38,  44,  83,  13,  110, 133, 40,  132, 9,   211, 223, 205, 244, 65,  129,
    77,  82,  106, 220, 55,  200, 108, 193, 171, 250, 36,  225, 123, 8,   12,  189, 177, 74,  120,
    136, 149, 139, 227, 99,  232, 109, 233, 203, 213, 254, 59,  0,   29,  57,  242, 239, 183, 14,
    102, 88,  208, 228, 166, 119, 114, 248, 235, 117, 75,  10,  49,  68,  80,  180, 143, 237, 31,
    26,  219, 153, 141, 51,  159, 17,  131, 20};

}  // namespace

void Md2::add_byte(std::uint8_t b) {
  x_[16 + fill_] = b;
  x_[32 + fill_] = static_cast<std::uint8_t>(x_[fill_] ^ b);
  // The checksum as RFC 1319's errata corrects it: C[j] ^= S[M[j] ^ L].
  checksum_[fill_] ^= kPiSubst[b ^ last_];
  last_ = checksum_[fill_];
  if (++fill_ == 16) {
    compress();
    fill_ = 0;
  }
}

void Md2::compress() {
  std::uint8_t t = 0;
  for (unsigned round = 0; round < 18; ++round) {
    for (std::uint8_t& v : x_) t = v ^= kPiSubst[t];
    t = static_cast<std::uint8_t>(t + round);
  }
}

void Md2::add(const void* data, std::size_t bytes, std::uint8_t xor_mask) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  for (std::size_t i = 0; i < bytes; ++i) add_byte(static_cast<std::uint8_t>(p[i] ^ xor_mask));
}

Md2Digest Md2::finish() {
  // Pad with n bytes of value n (1..16), then digest the checksum as a block.
  const auto pad = static_cast<std::uint8_t>(16 - fill_);
  for (unsigned i = 0; i < pad; ++i) add_byte(pad);
  const std::array<std::uint8_t, 16> checksum = checksum_;
  for (std::uint8_t c : checksum) add_byte(c);
  Md2Digest out;
  for (std::size_t i = 0; i < 16; ++i) out[i] = x_[i];
  return out;
}

Md2Digest md2(const void* data, std::size_t bytes) {
  Md2 h;
  h.add(data, bytes);
  return h.finish();
}

HmacMd2::HmacMd2(const Md2Digest& key) : key_(key) {
  inner_.add(key_.data(), key_.size(), 0x36);
}

Md2Digest HmacMd2::finish() {
  const Md2Digest inner = inner_.finish();
  Md2 outer;
  outer.add(key_.data(), key_.size(), 0x5c);
  outer.add(inner.data(), inner.size());
  return outer.finish();
}

}  // namespace cnuas::cuda
