#include "dc/retransmission.h"

#include <deque>
#include <unordered_map>

#include "core/inputs/rational.h"

namespace cnuas {
namespace {

std::uint64_t checked_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t sum;
  if (__builtin_add_overflow(a, b, &sum)) throw OverflowError();
  return sum;
}

// The wire as runs of back-to-back bytes: the end of a run is its start plus
// the run's bytes at line rate, rounded up once (so a train with no losses
// takes exactly the time of its bytes).
class WireClock {
 public:
  explicit WireClock(const LinearCost& wire) : wire_(wire) {}
  std::uint64_t now() const { return checked_add(run_start_, wire_.ceil_at(run_bytes_)); }
  // Sends `bytes`; returns when they started.
  std::uint64_t send(std::uint64_t bytes) {
    const std::uint64_t start = now();
    if (__builtin_add_overflow(run_bytes_, bytes, &run_bytes_)) throw OverflowError();
    return start;
  }
  // Idle until `t` (nothing to send before); returns the idle time.
  std::uint64_t idle_until(std::uint64_t t) {
    const std::uint64_t n = now();
    if (t <= n) return 0;
    run_start_ = t;
    run_bytes_ = 0;
    return t - n;
  }

 private:
  const LinearCost& wire_;
  std::uint64_t run_start_ = 0, run_bytes_ = 0;
};

class Sender {
 public:
  Sender(const PacketTrain& train, const LinearCost& wire, const RecoveryTiming& timing,
         std::size_t links, const LossOracle& lost)
      : train_(train), clock_(wire), timing_(timing), lost_(lost) {
    result_.drops_by_link.assign(links, 0);
  }

  Recovery go_back_n();
  Recovery selective_repeat();

 private:
  struct Sent {
    std::uint64_t end;  // when it left the wire
    int dropped_by;     // -1: arrived
  };
  Sent send(std::uint64_t k) {
    std::uint32_t attempt = 0;
    const std::uint64_t bytes = train_.payload(k) + train_.header;
    if (k < high_) {  // sent before: a retransmission
      attempt = ++resends_[k];
      ++result_.resent_packets;
      result_.resent_payload_bytes += train_.payload(k);
      result_.resent_wire_bytes += bytes;
    }
    high_ = std::max(high_, k + 1);
    const std::uint64_t start = clock_.send(bytes);
    const int link = lost_(k, attempt, start, bytes);
    if (link >= 0) {
      ++result_.drops;
      ++result_.drops_by_link[static_cast<std::size_t>(link)];
    }
    return {clock_.now(), link};
  }
  // A loss the transport must recover from; past retry_limit it gives up.
  void count_loss(std::uint64_t k, int link) {
    if (++losses_[k] > timing_.retry_limit) throw RetriesExhausted(k, link);
  }
  Recovery finish() {
    result_.wire_ps = clock_.now();
    return result_;
  }

  const PacketTrain& train_;
  WireClock clock_;
  const RecoveryTiming& timing_;
  const LossOracle& lost_;
  std::uint64_t high_ = 0;  // packets below this were sent at least once
  std::unordered_map<std::uint64_t, std::uint32_t> resends_, losses_;
  Recovery result_;
};

Recovery Sender::go_back_n() {
  // The first packet the receiver is missing, if any, and when the sender learns of it.
  bool missing = false, noticed = false;
  std::uint64_t lost_packet = 0, lost_end = 0, nack_at = 0;
  std::uint64_t next = 0;
  for (;;) {
    if (missing && noticed && clock_.now() >= nack_at) {
      next = lost_packet;  // go back
      missing = noticed = false;
    }
    if (next == train_.packets) {
      if (!missing) break;
      if (!noticed) nack_at = checked_add(lost_end, timing_.timeout_ps);
      noticed = true;
      result_.stall_ps += clock_.idle_until(nack_at);
      continue;
    }
    const Sent s = send(next);
    if (!missing && s.dropped_by >= 0) {
      count_loss(next, s.dropped_by);
      missing = true;
      lost_packet = next;
      lost_end = s.end;
    } else if (missing && !noticed && s.dropped_by < 0) {
      noticed = true;  // an intact packet out of order: the receiver NACKs
      nack_at = checked_add(s.end, timing_.round_trip_ps);
    }
    ++next;
  }
  return finish();
}

Recovery Sender::selective_repeat() {
  struct Nack {
    std::uint64_t packet, at;
  };
  std::deque<Nack> nacks;       // in the order they arrive
  std::vector<Nack> unnoticed;  // lost, and no packet after them arrived yet: (packet, its end)
  std::uint64_t next = 0;
  for (;;) {
    std::uint64_t k;
    if (!nacks.empty() && nacks.front().at <= clock_.now()) {
      k = nacks.front().packet;
      nacks.pop_front();
    } else if (next < train_.packets) {
      k = next++;
    } else if (!nacks.empty()) {
      result_.stall_ps += clock_.idle_until(nacks.front().at);
      continue;
    } else if (!unnoticed.empty()) {
      // Nothing after them arrived: the sender's timer notices them.
      for (const Nack& u : unnoticed)
        nacks.push_back({u.packet, checked_add(u.at, timing_.timeout_ps)});
      unnoticed.clear();
      continue;
    } else {
      break;
    }
    const Sent s = send(k);
    if (s.dropped_by >= 0) {
      count_loss(k, s.dropped_by);
      unnoticed.push_back({k, s.end});
      continue;
    }
    // An intact packet after them: the receiver NACKs each gap.
    for (const Nack& u : unnoticed)
      nacks.push_back({u.packet, checked_add(s.end, timing_.round_trip_ps)});
    unnoticed.clear();
  }
  return finish();
}

}  // namespace

Recovery recover(const PacketTrain& train, const LinearCost& wire, const RecoveryTiming& timing,
                 std::size_t links, const LossOracle& lost) {
  Sender sender(train, wire, timing, links, lost);
  return timing.scheme == RecoveryScheme::GoBackN ? sender.go_back_n() : sender.selective_repeat();
}

}  // namespace cnuas
