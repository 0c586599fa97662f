#include "dc/packet_loss.h"

#include <cmath>

namespace cnuas {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

double packet_loss_probability(double ber, std::uint64_t bits) {
  if (ber <= 0 || bits == 0) return 0;
  // expm1/log1p keep the tiny probabilities of low error rates exact to the last bits.
  return -std::expm1(static_cast<double>(bits) * std::log1p(-ber));
}

double packet_draw(std::uint64_t link, std::uint64_t operation, std::uint64_t packet,
                   std::uint64_t attempt) {
  // Chained so that every key changes every bit of the result.
  std::uint64_t h = splitmix64(link);
  h = splitmix64(h ^ operation);
  h = splitmix64(h ^ packet);
  h = splitmix64(h ^ attempt);
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

}  // namespace cnuas
