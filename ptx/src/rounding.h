// Directed rounding for one host operation: PTX's .rz/.rm/.rp map onto the
// host FPU's modes. Files that use this are built with -frounding-math, so the
// compiler neither folds nor reorders arithmetic across the mode switch.
#pragma once

#include <cfenv>

#include "ptx/ir.h"

namespace cnuas::ptx {

inline int fenv_mode(Round r) {
  switch (r) {
    case Round::Rz:
      return FE_TOWARDZERO;
    case Round::Rm:
      return FE_DOWNWARD;
    case Round::Rp:
      return FE_UPWARD;
    default:
      return FE_TONEAREST;
  }
}

// The rounding mode r in force for a scope (round-to-nearest needs no
// switch): one switch for all lanes of an instruction instead of two per lane.
class RoundingScope {
 public:
  explicit RoundingScope(Round r) : directed_(r != Round::None && r != Round::Rn) {
    if (directed_) std::fesetround(fenv_mode(r));
  }
  ~RoundingScope() {
    if (directed_) std::fesetround(FE_TONEAREST);
  }
  RoundingScope(const RoundingScope&) = delete;
  RoundingScope& operator=(const RoundingScope&) = delete;

 private:
  bool directed_;
};

// Runs f with the rounding mode r in force (round-to-nearest needs no switch).
template <class F>
auto with_rounding(Round r, F f) {
  if (r == Round::None || r == Round::Rn) return f();
  std::fesetround(fenv_mode(r));
  const auto v = f();
  std::fesetround(FE_TONEAREST);
  return v;
}

}  // namespace cnuas::ptx
