// Launch replay: the functional engine is deterministic, so a launch whose
// kernel, configuration, parameter bytes, texture objects and device memory
// (every mapped byte, device-owned or adopted host memory) are the same as an
// earlier launch's ends in the same memory and statistics. Programs that time
// a kernel by repeating it on the same data (most CUDA samples) would pay the
// whole execution for every repetition; this pays it once and then hashes the
// memory (XXH3-128) and copies back what the launch changed.
//
// What the outcome depends on is all in the key: memory through a hash of
// every mapped chunk (untouched chunks are not read, they are known zeros),
// the launch through its configuration. What it affects is memory and the
// statistics: a launch that called a builtin (printf, malloc, assert, the
// device runtime) touched state outside device memory and is never replayed.
// Faults are exceptions and are never recorded. The performance model does
// not go through Executor::launch and is never replayed.
//
// Cost control: hashing is paid only for a launch seen before whose earlier
// execution issued enough warp instructions to dwarf hashing the memory
// (kHashBytesPerWarpInstruction), and a launch that misses a few times in a
// row (its data changes every time) is not tried again.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ptx/executor.h"
#include "ptx/host_backing.h"

namespace cnuas::ptx {

class LaunchReplay {
 public:
  using Key = std::pair<std::uint64_t, std::uint64_t>;  // a 128-bit hash

  // Bytes of memory hashed per warp instruction the earlier execution
  // issued, at most: about 6 ns of hashing against about 30 ns of execution.
  static constexpr std::uint64_t kHashBytesPerWarpInstruction = 64;
  // Misses in a row after which a launch is not tried again: few for one
  // that never replayed, more for one that did (after a change of its
  // inputs, a launch whose output is also in memory misses twice before
  // memory settles).
  static constexpr unsigned kMissesBeforeGivingUp = 3;
  static constexpr unsigned kMissesAfterReplaysBeforeGivingUp = 8;
  // Bytes of recorded outcomes kept at most (oldest dropped first).
  static constexpr std::uint64_t kStoredBytesLimit = 1ull << 30;

  explicit LaunchReplay(DeviceMemory& memory) : memory_(memory) {}

  void set_enabled(bool on) { enabled_ = on; }
  std::uint64_t replayed() const { return replayed_; }

  LaunchStats launch(const LoadedModule& module, const std::string& kernel,
                     const LaunchConfig& config, const std::function<LaunchStats()>& execute);

 private:
  // A piece of mapped memory: one 2 MiB chunk of reserved memory, or up to
  // 2 MiB of adopted host memory.
  struct Piece {
    std::uint64_t device;
    std::uint8_t* host;
    std::uint64_t bytes;
    host_backing::ChunkState state;
  };
  struct Snapshot {
    std::vector<Piece> pieces;
    std::vector<Key> hashes;  // per piece, once hashed
    Key state{};              // all pieces, once hashed
    std::uint64_t readable_bytes = 0;
    bool scratch = false;  // a refused touch: the memory is not what the program wrote
  };
  struct Outcome {
    LaunchStats stats;
    std::vector<std::pair<std::size_t, std::vector<std::uint8_t>>> changed;  // piece, bytes after
    std::uint64_t bytes = 0;
  };
  struct History {
    std::uint64_t warp_instructions = 0;  // of the last execution
    unsigned misses = 0;                  // in a row
    bool replayed = false;                // ever
    bool given_up = false;
  };

  Snapshot pieces() const;
  static void hash(Snapshot& s);
  void store(const Key& signature, const Key& state, Outcome outcome);
  void forget(const Key& signature);

  DeviceMemory& memory_;
  bool enabled_ = true;
  std::uint64_t replayed_ = 0;
  std::map<Key, History> history_;                   // by signature
  std::map<std::pair<Key, Key>, Outcome> outcomes_;  // by signature and memory state
  std::vector<std::pair<Key, Key>> stored_order_;    // oldest first
  std::uint64_t stored_bytes_ = 0;
};

}  // namespace cnuas::ptx
