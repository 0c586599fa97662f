// Proves that a group of CTAs repeats itself for ever.
//
// The engine is deterministic and a round (every warp of the group gets its
// turn) depends only on the group's state and the memory it reads. So when the
// group ends a round in the state it ended an earlier round in, and wrote no
// global memory in between, it will repeat those rounds for ever unless
// something outside the group changes memory: another grid, a copy, the host.
// Round ends are compared by Brent's cycle detection (one saved state, moved
// after 1, 2, 4 ... comparisons); a comparison copies the whole state, so it is
// made at most once per state byte of warp instructions issued, a few per cent
// of the execution however large the group.
#pragma once

#include <cstdint>
#include <vector>

#include "exec_state.h"

namespace cnuas::ptx {

class CycleWatch {
 public:
  // After a round that issued `instructions` warp instructions and wrote
  // global memory (`wrote`) or not: true once the group is proven to cycle.
  bool after_round(const std::vector<Executor::Cta::State*>& ctas, std::uint64_t instructions,
                   bool wrote);
  // The group's members changed: what was seen says nothing any more.
  void reset();

 private:
  std::vector<std::uint8_t> mark_, now_;
  bool have_mark_ = false;
  std::uint64_t since_mark_ = 0;  // comparisons since the mark was saved
  std::uint64_t span_ = 1;        // comparisons before the mark moves on
  std::uint64_t unchecked_ = 0;   // warp instructions since the last comparison
  std::size_t state_bytes_ = 0;
};

}  // namespace cnuas::ptx
