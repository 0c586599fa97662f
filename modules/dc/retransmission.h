// The sending NIC's wire while its transport recovers lost packets (RoCE
// go-back-N or selective repeat): which packets go on the wire again, and when
// the last one has left.
//
// Packets go back to back. A lost packet is noticed by the receiver when the
// next packet after it arrives intact; its NACK reaches the sender one round
// trip after that packet has left the wire. A loss with no packet after it is
// noticed by the sender's retransmit timeout, counted from the end of the lost
// packet. A NACK is acted on once the packet on the wire has left it.
//   go-back-N: the sender goes back to the lost packet and sends it and every
//     packet after it again (the receiver dropped those out of order).
//   selective repeat: the sender sends only the lost packet again, ahead of
//     new packets; the receiver keeps the ones after it.
// When nothing is left to send, the wire waits for the next NACK or timeout
// (the stall); the transfer is on the wire until its last packet has left.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

#include "core/kernel/linear_cost.h"

namespace cnuas {

enum class RecoveryScheme { GoBackN, SelectiveRepeat };

struct PacketTrain {
  std::uint64_t packets;       // at least 1
  std::uint64_t mtu;           // payload bytes of every packet but the last
  std::uint64_t last_payload;  // payload bytes of the last packet
  std::uint64_t header;        // bytes each packet adds on the wire
  std::uint64_t payload(std::uint64_t k) const { return k + 1 == packets ? last_payload : mtu; }
};

struct RecoveryTiming {
  RecoveryScheme scheme = RecoveryScheme::GoBackN;
  std::uint64_t round_trip_ps = 0;  // from a packet leaving the wire to its NACK arriving
  std::uint64_t timeout_ps = 0;     // retransmit timeout, from the end of the lost packet
  std::uint32_t retry_limit = 7;    // losses of one packet the transport recovers from
};

// Which link drops packet `packet` on its `attempt`-th send (0: first), sent
// at `send_ps` (from the wire's start) with `wire_bytes` on the wire: the
// index of that link, or -1 when it arrives intact.
using LossOracle = std::function<int(std::uint64_t packet, std::uint32_t attempt,
                                     std::uint64_t send_ps, std::uint64_t wire_bytes)>;

struct Recovery {
  std::uint64_t wire_ps = 0;   // from the first packet's start to the last one's end
  std::uint64_t stall_ps = 0;  // of that, the wire waiting for NACKs and timeouts
  std::uint64_t drops = 0;     // packets dropped on the way
  std::uint64_t resent_packets = 0, resent_payload_bytes = 0, resent_wire_bytes = 0;
  std::vector<std::uint64_t> drops_by_link;
};

// A packet lost more than retry_limit times: the transport gives up.
struct RetriesExhausted : std::runtime_error {
  RetriesExhausted(std::uint64_t lost_packet, int by_link)
      : std::runtime_error("retries exhausted"), packet(lost_packet), link(by_link) {}
  std::uint64_t packet;
  int link;
};

// The wire's timeline for `train` at the cost `wire` (wire bytes -> ps),
// recovering the losses `lost` reports among `links` links.
Recovery recover(const PacketTrain& train, const LinearCost& wire, const RecoveryTiming& timing,
                 std::size_t links, const LossOracle& lost);

}  // namespace cnuas
