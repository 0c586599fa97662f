// service(x) = ceil(fixed + x * per_unit), exactly, with the rationals folded
// into integers once: ceil((A + x*B) / D). One multiply-add and one division
// per stage instead of rational arithmetic.
#pragma once

#include <cstdint>

#include "core/inputs/rational.h"

namespace cnuas {

class LinearCost {
 public:
  LinearCost() = default;
  LinearCost(const Rational& fixed, const Rational& per_unit) {
    // fixed = a/b, per_unit = c/d  ->  (a*d + x*c*b) / (b*d)
    const Rational scale = Rational(fixed.den(), 1) * Rational(per_unit.den(), 1);
    a_ = (fixed * scale).num();
    b_ = (per_unit * scale).num();
    d_ = scale.num();
  }

  std::uint64_t ceil_at(std::uint64_t x) const {
    u128 num;
    if (__builtin_mul_overflow(static_cast<u128>(x), b_, &num) ||
        __builtin_add_overflow(num, a_, &num))
      throw OverflowError();
    if (d_ == 1) return narrow(num);
    return narrow(num / d_ + (num % d_ != 0 ? 1 : 0));
  }

 private:
  static std::uint64_t narrow(u128 v) {
    if (v > UINT64_MAX) throw OverflowError();
    return static_cast<std::uint64_t>(v);
  }
  u128 a_ = 0, b_ = 0, d_ = 1;
};

}  // namespace cnuas
