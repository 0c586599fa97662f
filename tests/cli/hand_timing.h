// Occupancies and latencies worked out by hand from profile figures, for tests
// that pin the shipped platforms. Each function is the formula docs/models
// gives for one element, written with its own exact fractions (not the
// simulator's Rational), so an expected value never comes from the code it
// checks. Times are picoseconds; an occupancy and a latency are each exact and
// rounded up once (docs/concepts.md).
#pragma once

#include <cstdint>

namespace cnuas::testing_support {

__extension__ using Wide = unsigned __int128;
inline constexpr Wide kKiB = 1024, kMiB = 1024 * kKiB, kGiB = 1024 * kMiB;

// A non-negative exact fraction, enough for sums and maxima of service terms.
struct Exact {
  Wide num;
  Wide den = 1;
};

inline Exact operator+(Exact a, Exact b) {
  return {a.num * b.den + b.num * a.den, a.den * b.den};
}
inline bool operator<(Exact a, Exact b) {
  return a.num * b.den < b.num * a.den;
}
inline Exact larger(Exact a, Exact b) {
  return a < b ? b : a;
}
inline std::uint64_t ceil_ps(Exact t) {
  return static_cast<std::uint64_t>((t.num + t.den - 1) / t.den);
}

constexpr Wide kPsPerSecond = 1'000'000'000'000;

inline Exact ps(Wide value) {
  return {value, 1};
}

// `amount` units (bytes, flops, ...) at `per_second` units per second.
inline Exact at_rate(Wide amount, Wide per_second) {
  return {amount * kPsPerSecond, per_second};
}

// cnuas.pcie_root: a DMA's occupancy of its link: the payload plus
// `tlp_overhead` per max_payload TLP, at GT/s x 128/130 (Gen3-5 line code) x
// width x (100 - dllp_percent) %.
inline Exact pcie_dma(Wide bytes, Wide gigatransfers, Wide width, Wide dllp_percent,
                      Wide max_payload = 256, Wide tlp_overhead = 26) {
  const Wide tlps = (bytes + max_payload - 1) / max_payload;
  const Wide wire_bits = (bytes + tlps * tlp_overhead) * 8;
  return {wire_bits * kPsPerSecond * 130 * 100,
          gigatransfers * 1'000'000'000 * 128 * width * (100 - dllp_percent)};
}

// cnuas.nic: the wire's occupancy for one message: the payload plus a header
// per mtu packet at the line rate.
inline Exact nic_wire(Wide bytes, Wide line_bytes_per_second, Wide mtu, Wide header) {
  const Wide packets = (bytes + mtu - 1) / mtu;
  return at_rate(bytes + packets * header, line_bytes_per_second);
}

}  // namespace cnuas::testing_support
