// MD2 (RFC 1319) and HMAC-MD2 (RFC 2104 with MD2's 16-byte block): the
// static CUDA runtime checks its driver with an HMAC-MD2 (export_tables.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace cnuas::cuda {

using Md2Digest = std::array<std::uint8_t, 16>;

// A running MD2 digest: add bytes in any pieces, then finish once.
class Md2 {
 public:
  void add(const void* data, std::size_t bytes, std::uint8_t xor_mask = 0);
  Md2Digest finish();

 private:
  void add_byte(std::uint8_t b);
  void compress();
  std::array<std::uint8_t, 48> x_{};  // state, block, state ^ block
  std::array<std::uint8_t, 16> checksum_{};
  std::uint8_t last_ = 0;  // the checksum byte last updated
  std::size_t fill_ = 0;   // bytes of the current block
};

Md2Digest md2(const void* data, std::size_t bytes);

// HMAC-MD2 with a 16-byte key (MD2's block size, so the key is used as is).
class HmacMd2 {
 public:
  explicit HmacMd2(const Md2Digest& key);
  void add(const void* data, std::size_t bytes) { inner_.add(data, bytes); }
  Md2Digest finish();

 private:
  Md2Digest key_;
  Md2 inner_;
};

}  // namespace cnuas::cuda
