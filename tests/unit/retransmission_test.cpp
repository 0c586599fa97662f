// The sending wire's timeline while the transport recovers lost packets
// (modules/dc/retransmission.h), with losses chosen by hand, and the per-packet
// loss probability against its closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <utility>

#include "dc/packet_loss.h"
#include "dc/retransmission.h"

namespace cnuas {
namespace {

constexpr std::uint64_t us = 1'000'000;

// 10 packets of 1000 B, no header, at 1 GB/s: 1 us each on the wire.
const PacketTrain kTen{10, 1000, 1000, 0};
const LinearCost kOneGBps(Rational(0), Rational(1000));  // ps per byte

// Loses the (packet, attempt) pairs listed, on link 0.
LossOracle losing(std::set<std::pair<std::uint64_t, std::uint32_t>> lost) {
  return [lost](std::uint64_t packet, std::uint32_t attempt, std::uint64_t, std::uint64_t) {
    return lost.count({packet, attempt}) ? 0 : -1;
  };
}

RecoveryTiming timing(RecoveryScheme scheme) {
  RecoveryTiming t;
  t.scheme = scheme;
  t.round_trip_ps = 2'500'000;  // 2.5 us
  t.timeout_ps = 20 * us;
  return t;
}

}  // namespace

// No loss: the train's bytes at line rate, rounded up once: 2500 B in 3
// packets (1000, 1000, 500) with 10 B headers = 2530 B at 3 GB/s (1000/3 ps
// per byte): 843333.3 -> 843334 ps.
TEST(Retransmission, WithoutLossesTheWireTakesTheTrainsBytes) {
  const LinearCost third(Rational(0), Rational(1000, 3));
  const Recovery r =
      recover({3, 1000, 500, 10}, third, timing(RecoveryScheme::GoBackN), 1, losing({}));
  EXPECT_EQ(r.wire_ps, 843'334u);
  EXPECT_EQ(r.drops, 0u);
  EXPECT_EQ(r.resent_packets, 0u);
}

// Packet 3 lost once. Packets 0..3 leave at [0,4) us; 4 arrives intact at 5
// us, out of order: its NACK reaches the sender 2.5 us later, at 7.5 us. The
// sender has sent 5 [5,6), 6 [6,7) and 7 [7,8) meanwhile and acts on the NACK
// when 7 has left (8 us).
// go-back-N: 3..9 again over [8,15): 15 us, 5 of them resends (3..7).
// selective repeat: 3 alone [8,9), then 8 and 9: 11 us, 1 resend.
TEST(Retransmission, GoBackNResendsWhatFollowedTheLossSelectiveRepeatOnlyTheLoss) {
  const Recovery g = recover(kTen, kOneGBps, timing(RecoveryScheme::GoBackN), 1, losing({{3, 0}}));
  EXPECT_EQ(g.wire_ps, 15 * us);
  EXPECT_EQ(g.resent_packets, 5u);
  EXPECT_EQ(g.resent_payload_bytes, 5000u);
  EXPECT_EQ(g.drops, 1u);
  EXPECT_EQ(g.stall_ps, 0u);
  const Recovery s =
      recover(kTen, kOneGBps, timing(RecoveryScheme::SelectiveRepeat), 1, losing({{3, 0}}));
  EXPECT_EQ(s.wire_ps, 11 * us);
  EXPECT_EQ(s.resent_packets, 1u);
  EXPECT_EQ(s.resent_wire_bytes, 1000u);
  EXPECT_EQ(s.stall_ps, 0u);
  // The same drop costs go-back-N 4 packets (4 us) more.
  EXPECT_EQ(g.wire_ps - s.wire_ps, 4 * us);
}

// Packets 3 and 4 lost: 5 is the first intact one after the gap (ends at 6
// us): NACK at 8.5 us, acted on when 8 has left (9 us).
// go-back-N: 3..9 over [9,16): 16 us, resends 3..8 (6).
// selective repeat: 3 [9,10), 4 [10,11), then 9 [11,12): 12 us, 2 resends.
TEST(Retransmission, ConsecutiveLossesAreNoticedOnTheNextIntactPacket) {
  const Recovery g =
      recover(kTen, kOneGBps, timing(RecoveryScheme::GoBackN), 1, losing({{3, 0}, {4, 0}}));
  EXPECT_EQ(g.wire_ps, 16 * us);
  EXPECT_EQ(g.resent_packets, 6u);
  EXPECT_EQ(g.drops, 2u);
  const Recovery s =
      recover(kTen, kOneGBps, timing(RecoveryScheme::SelectiveRepeat), 1, losing({{3, 0}, {4, 0}}));
  EXPECT_EQ(s.wire_ps, 12 * us);
  EXPECT_EQ(s.resent_packets, 2u);
}

// The last packet lost: nothing after it reveals the gap, so the sender's
// timeout does, 20 us after it left (10 us): the wire waits [10,30) and sends
// it again [30,31), under either scheme.
TEST(Retransmission, ALostLastPacketWaitsForTheTimeout) {
  for (RecoveryScheme scheme : {RecoveryScheme::GoBackN, RecoveryScheme::SelectiveRepeat}) {
    const Recovery r = recover(kTen, kOneGBps, timing(scheme), 1, losing({{9, 0}}));
    EXPECT_EQ(r.wire_ps, 31 * us);
    EXPECT_EQ(r.stall_ps, 20 * us);
    EXPECT_EQ(r.resent_packets, 1u);
  }
}

// A resend lost again is recovered again: packet 3 lost on attempts 0 and 1
// under selective repeat. First resend [8,9) (as above) is lost; 8 [9,10)
// reveals it: NACK at 12.5 us; 9 [10,11); nothing new, the wire waits
// [11,12.5) and sends 3 a third time [12.5,13.5).
TEST(Retransmission, ALostResendIsRecoveredAgain) {
  const Recovery r =
      recover(kTen, kOneGBps, timing(RecoveryScheme::SelectiveRepeat), 1, losing({{3, 0}, {3, 1}}));
  EXPECT_EQ(r.wire_ps, 13'500'000u);
  EXPECT_EQ(r.stall_ps, 1'500'000u);
  EXPECT_EQ(r.resent_packets, 2u);
  EXPECT_EQ(r.drops, 2u);
}

// retry_limit 2: a packet lost 3 times makes the transport give up.
TEST(Retransmission, ThePacketLostPastTheRetryLimitStopsTheTransport) {
  RecoveryTiming t = timing(RecoveryScheme::SelectiveRepeat);
  t.retry_limit = 2;
  EXPECT_NO_THROW(recover(kTen, kOneGBps, t, 1, losing({{5, 0}, {5, 1}})));
  try {
    recover(kTen, kOneGBps, t, 1, losing({{5, 0}, {5, 1}, {5, 2}}));
    FAIL() << "no RetriesExhausted";
  } catch (const RetriesExhausted& e) {
    EXPECT_EQ(e.packet, 5u);
    EXPECT_EQ(e.link, 0);
  }
}

// 1 - (1 - ber)^bits, written as a plain power (exact enough at these sizes).
TEST(PacketLoss, ProbabilityIsOneMinusTheChanceThatNoBitFlips) {
  EXPECT_EQ(packet_loss_probability(0, 8000), 0.0);
  for (double ber : {1e-12, 1e-9, 1e-6, 1.2e-5, 1e-2})
    for (std::uint64_t bits : {std::uint64_t{8}, std::uint64_t{8000}, std::uint64_t{33'280}})
      EXPECT_NEAR(packet_loss_probability(ber, bits), 1 - std::pow(1 - ber, bits),
                  1e-12 + 1e-9 * (1 - std::pow(1 - ber, bits)))
          << ber << " " << bits;
}

// The draws are uniform: of 200000, the share below q is q within 5 sigma
// (binomial: sigma = sqrt(n q (1 - q))), and every key changes the draw.
TEST(PacketLoss, DrawsAreUniformAndDependOnEveryKey) {
  const std::uint64_t n = 200'000;
  for (double q : {0.001, 0.0769, 0.5}) {
    std::uint64_t below = 0;
    for (std::uint64_t k = 0; k < n; ++k) below += packet_draw(7, 3, k, 0) < q;
    const double sigma = std::sqrt(n * q * (1 - q));
    EXPECT_NEAR(static_cast<double>(below), n * q, 5 * sigma) << q;
  }
  const double d = packet_draw(1, 2, 3, 4);
  EXPECT_NE(d, packet_draw(0, 2, 3, 4));
  EXPECT_NE(d, packet_draw(1, 0, 3, 4));
  EXPECT_NE(d, packet_draw(1, 2, 0, 4));
  EXPECT_NE(d, packet_draw(1, 2, 3, 0));
  EXPECT_EQ(d, packet_draw(1, 2, 3, 4));  // no state: the same keys, the same draw
}

}  // namespace cnuas
