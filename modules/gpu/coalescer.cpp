#include "gpu/coalescer.h"

#include <algorithm>

namespace cnuas::gpu {

namespace {

// The bytes lane `l` accessed: one span per lane (a vector access is one
// contiguous access of all its elements).
struct Span {
  std::uint64_t first, end;
};
Span lane_span(const ptx::StepRecord& rec, unsigned l) {
  const std::uint64_t bytes = rec.access_bytes ? rec.access_bytes : 1;
  return {rec.addresses[l], rec.addresses[l] + bytes};
}

void touch(std::uint64_t line, std::uint32_t mask, LineAccess out[64], unsigned& n) {
  for (unsigned k = 0; k < n; ++k)
    if (out[k].line == line) {
      out[k].sectors |= mask;
      return;
    }
  if (n < 64) out[n++] = {line, mask};
}

}  // namespace

unsigned coalesce(const ptx::StepRecord& rec, std::uint32_t line_bytes, std::uint32_t sector_bytes,
                  LineAccess out[64]) {
  unsigned n = 0;
  for (std::uint32_t m = rec.active; m; m &= m - 1) {
    const unsigned l = static_cast<unsigned>(__builtin_ctz(m));
    const Span s = lane_span(rec, l);
    for (std::uint64_t line = s.first / line_bytes * line_bytes; line < s.end; line += line_bytes) {
      const std::uint64_t lo = std::max(s.first, line) - line;
      const std::uint64_t hi = std::min(s.end, line + line_bytes) - line - 1;
      std::uint32_t mask = 0;
      for (std::uint64_t sec = lo / sector_bytes; sec <= hi / sector_bytes; ++sec)
        mask |= 1u << sec;
      touch(line, mask, out, n);
    }
  }
  return n;
}

unsigned shared_wavefronts(const ptx::StepRecord& rec, std::uint32_t banks,
                           std::uint32_t bank_bytes) {
  std::uint64_t words[32 * 16];
  unsigned n = 0;
  for (std::uint32_t m = rec.active; m; m &= m - 1) {
    const unsigned l = static_cast<unsigned>(__builtin_ctz(m));
    const Span s = lane_span(rec, l);
    for (std::uint64_t w = s.first / bank_bytes; w <= (s.end - 1) / bank_bytes && n < 32 * 16; ++w)
      words[n++] = w;
  }
  if (n == 0) return 1;
  std::sort(words, words + n);
  n = static_cast<unsigned>(std::unique(words, words + n) - words);
  std::uint32_t per_bank[128] = {};
  unsigned worst = 1;
  for (unsigned k = 0; k < n; ++k) worst = std::max(worst, ++per_bank[words[k] % banks]);
  return worst;
}

}  // namespace cnuas::gpu
