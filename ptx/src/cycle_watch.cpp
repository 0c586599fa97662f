#include "cycle_watch.h"

namespace cnuas::ptx {

bool CycleWatch::after_round(const std::vector<Executor::Cta::State*>& ctas,
                             std::uint64_t instructions, bool wrote) {
  if (wrote) {
    reset();
    return false;
  }
  unchecked_ += instructions;
  if (unchecked_ < state_bytes_) return false;
  unchecked_ = 0;
  group_state_bytes(ctas, now_);
  ctas.front()->stats.state_bytes_compared += now_.size();
  state_bytes_ = now_.size();
  if (have_mark_ && now_ == mark_) return true;
  if (!have_mark_ || ++since_mark_ >= span_) {
    if (have_mark_) span_ *= 2;
    mark_.swap(now_);
    have_mark_ = true;
    since_mark_ = 0;
  }
  return false;
}

void CycleWatch::reset() {
  have_mark_ = false;
  since_mark_ = 0;
  span_ = 1;
  unchecked_ = 0;
}

}  // namespace cnuas::ptx
