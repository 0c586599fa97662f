// What a launch tells the L2: an access policy window (cudaAccessPolicyWindow),
// the part of the L2 set aside for persisting lines
// (cudaLimitPersistingL2CacheSize) and the fetch granularity the program asked
// for (cudaLimitMaxL2FetchGranularity).
#pragma once

#include <cstdint>

namespace cnuas::gpu {

// How long a line should stay in the L2 (cudaAccessProperty).
enum class Retention : std::uint8_t { Normal, Streaming, Persisting };

struct L2AccessPolicy {
  // The window [base, base + bytes); no window when bytes is 0.
  std::uint64_t base = 0, bytes = 0;
  // The fraction of the window's lines that get `hit`; the others get `miss`.
  double hit_ratio = 0;
  Retention hit = Retention::Normal, miss = Retention::Normal;
  // Bytes of the L2 persisting lines may hold; 0: none (they behave as normal).
  std::uint64_t set_aside_bytes = 0;
  // The program's cudaLimitMaxL2FetchGranularity, when it set one: a read miss fetches this
  // many bytes around each missed sector (at least the sector, at most the line); 0: the
  // profile's l2.fetch_granularity.
  std::uint32_t fetch_bytes = 0;

  // The retention of an access to `line` (its line-aligned address). Which
  // lines of the window get `hit` is fixed per line, so that a line keeps its
  // property from one access to the next, and spread evenly over the window.
  bool covers(std::uint64_t line) const {
    return bytes != 0 && line >= base && line - base < bytes;
  }
  Retention retention(std::uint64_t line, std::uint32_t line_bytes) const {
    if (!covers(line)) return Retention::Normal;
    const std::uint64_t h = (line / line_bytes) * 0x9E3779B97F4A7C15ull;
    const double u = static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
    return u < hit_ratio ? hit : miss;
  }
};

}  // namespace cnuas::gpu
