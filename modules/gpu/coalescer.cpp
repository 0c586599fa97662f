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

namespace {

// The common case: every lane reads one word, and no two lanes read different
// words of one bank. Returns false when that does not hold.
bool conflict_free(const ptx::StepRecord& rec, std::uint32_t banks, std::uint32_t bank_bytes) {
  if (banks > 64 || rec.access_bytes > bank_bytes) return false;
  std::uint64_t used = 0;
  std::uint64_t word_in[64];
  for (std::uint32_t m = rec.active; m; m &= m - 1) {
    const Span s = lane_span(rec, static_cast<unsigned>(__builtin_ctz(m)));
    const std::uint64_t w = s.first / bank_bytes;
    if ((s.end - 1) / bank_bytes != w) return false;
    const std::uint32_t b = static_cast<std::uint32_t>(w % banks);
    if (!(used >> b & 1)) {
      used |= std::uint64_t{1} << b;
      word_in[b] = w;
    } else if (word_in[b] != w) {
      return false;
    }
  }
  return true;
}

}  // namespace

unsigned shared_wavefronts(const ptx::StepRecord& rec, std::uint32_t banks,
                           std::uint32_t bank_bytes) {
  if (conflict_free(rec, banks, bank_bytes)) return 1;
  // Distinct words per bank, kept in small per-bank lists (a warp touches at
  // most 32 x 16 words, and a bank's list is short unless it conflicts).
  constexpr unsigned kMaxWords = 32 * 16;
  std::uint64_t words[kMaxWords];
  std::uint16_t next[kMaxWords];
  std::uint16_t head[128];
  std::uint32_t count[128];
  const std::uint32_t nbanks = std::min<std::uint32_t>(banks, 128);
  std::fill(head, head + nbanks, std::uint16_t{0xffff});
  std::fill(count, count + nbanks, 0u);
  unsigned n = 0, worst = 1;
  for (std::uint32_t m = rec.active; m; m &= m - 1) {
    const Span s = lane_span(rec, static_cast<unsigned>(__builtin_ctz(m)));
    for (std::uint64_t w = s.first / bank_bytes; w <= (s.end - 1) / bank_bytes && n < kMaxWords;
         ++w) {
      const std::uint32_t b = static_cast<std::uint32_t>(w % nbanks);
      bool seen = false;
      for (std::uint16_t k = head[b]; k != 0xffff && !seen; k = next[k]) seen = words[k] == w;
      if (seen) continue;  // the same word: a broadcast
      words[n] = w;
      next[n] = head[b];
      head[b] = static_cast<std::uint16_t>(n++);
      worst = std::max(worst, ++count[b]);
    }
  }
  return worst;
}

}  // namespace cnuas::gpu
