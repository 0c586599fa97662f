// MD2 against RFC 1319's test suite, and HMAC-MD2 against RFC 2104's
// definition, H((K ^ opad) || H((K ^ ipad) || m)), spelled out with whole buffers.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "driver/md2.h"

namespace cnuas::cuda {
namespace {

std::string hex(const Md2Digest& d) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (std::uint8_t b : d) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

std::string md2_hex(const std::string& text) {
  return hex(md2(text.data(), text.size()));
}

TEST(Md2, Rfc1319TestSuite) {
  EXPECT_EQ(md2_hex(""), "8350e5a3e24c153df2275c9f80692773");
  EXPECT_EQ(md2_hex("a"), "32ec01ec4a6dac72c0ab96fb34c0b5d1");
  EXPECT_EQ(md2_hex("abc"), "da853b0d3f88d99b30283a69e6ded6bb");
  EXPECT_EQ(md2_hex("message digest"), "ab4f496bfb2a530b219ff33031fe06b0");
  EXPECT_EQ(md2_hex("abcdefghijklmnopqrstuvwxyz"), "4e8ddff3650292ab5a4108c3aa47940b");
  EXPECT_EQ(md2_hex("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"),
            "da33def2a42df13975352846c30338cd");
  EXPECT_EQ(md2_hex("1234567890123456789012345678901234567890"
                    "1234567890123456789012345678901234567890"),
            "d5976f79d83d3a0dc9806c3c66f3efd8");
}

TEST(Md2, PiecesGiveTheSameDigestAsOneBuffer) {
  const std::string text = "a message longer than one sixteen-byte block of MD2";
  Md2 h;
  for (char c : text) h.add(&c, 1);
  EXPECT_EQ(hex(h.finish()), md2_hex(text));
}

TEST(HmacMd2, IsRfc2104WithMd2sSixteenByteBlock) {
  Md2Digest key;
  for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<std::uint8_t>(0xa0 + 3 * i);
  const std::string message = "the driver's inputs";
  std::string inner, outer;
  for (std::uint8_t k : key) inner += static_cast<char>(k ^ 0x36);
  inner += message;
  const Md2Digest inner_digest = md2(inner.data(), inner.size());
  for (std::uint8_t k : key) outer += static_cast<char>(k ^ 0x5c);
  outer.append(reinterpret_cast<const char*>(inner_digest.data()), inner_digest.size());
  HmacMd2 mac(key);
  mac.add(message.data(), 7);
  mac.add(message.data() + 7, message.size() - 7);
  EXPECT_EQ(hex(mac.finish()), md2_hex(outer));
}

}  // namespace
}  // namespace cnuas::cuda
