// Whether a packet crossing a link with bit errors arrives with a bad CRC.
//
// Each decision is a hash of (link, operation, packet, attempt): no random
// state is carried between decisions, so the outcome does not depend on the
// order in which the simulator books stages, and the same inputs drop the
// same packets in every run.
#pragma once

#include <cstdint>

namespace cnuas {

// The probability that at least one of `bits` bits is flipped when each one
// flips independently with probability `ber`: 1 - (1 - ber)^bits.
double packet_loss_probability(double ber, std::uint64_t bits);

// A uniform number in [0, 1) from the splitmix64 hash of the four keys.
double packet_draw(std::uint64_t link, std::uint64_t operation, std::uint64_t packet,
                   std::uint64_t attempt);

// The packet is dropped (CRC mismatch) when its draw falls below the probability.
inline bool packet_lost(std::uint64_t link, std::uint64_t operation, std::uint64_t packet,
                        std::uint64_t attempt, double probability) {
  return probability > 0 && packet_draw(link, operation, packet, attempt) < probability;
}

}  // namespace cnuas
