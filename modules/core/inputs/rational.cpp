#include "core/inputs/rational.h"

#include <stdexcept>

namespace cnuas {
namespace {

u128 gcd(u128 a, u128 b) {
  while (b != 0) {
    u128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

u128 checked_mul(u128 a, u128 b) {
  u128 r;
  if (__builtin_mul_overflow(a, b, &r)) throw OverflowError();
  return r;
}

u128 checked_add(u128 a, u128 b) {
  u128 r;
  if (__builtin_add_overflow(a, b, &r)) throw OverflowError();
  return r;
}

}  // namespace

Rational::Rational(u128 num, u128 den) : num_(num), den_(den) {
  if (den_ == 0) throw std::domain_error("rational with zero denominator");
  normalize();
}

void Rational::normalize() {
  if (num_ == 0) {
    den_ = 1;
    return;
  }
  u128 g = gcd(num_, den_);
  num_ /= g;
  den_ /= g;
}

std::uint64_t Rational::ceil_u64() const {
  u128 q = num_ / den_ + (num_ % den_ != 0 ? 1 : 0);
  if (q > UINT64_MAX) throw OverflowError();
  return static_cast<std::uint64_t>(q);
}

std::uint64_t Rational::floor_u64() const {
  u128 q = num_ / den_;
  if (q > UINT64_MAX) throw OverflowError();
  return static_cast<std::uint64_t>(q);
}

double Rational::to_double() const {
  return static_cast<double>(num_) / static_cast<double>(den_);
}

std::string Rational::to_decimal(int digits) const {
  auto u128_text = [](u128 v) {
    if (v == 0) return std::string("0");
    std::string s;
    while (v != 0) {
      s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
      v /= 10;
    }
    return s;
  };
  std::string text = u128_text(num_ / den_);
  u128 rem = num_ % den_;
  if (rem == 0) return text;
  text += '.';
  for (int i = 0; i < digits && rem != 0; ++i) {
    rem = checked_mul(rem, 10);
    text += static_cast<char>('0' + static_cast<int>(rem / den_));
    rem %= den_;
  }
  return text;
}

Rational operator+(const Rational& a, const Rational& b) {
  u128 g = gcd(a.den_, b.den_);
  u128 den = checked_mul(a.den_ / g, b.den_);
  u128 num = checked_add(checked_mul(a.num_, b.den_ / g), checked_mul(b.num_, a.den_ / g));
  return Rational(num, den);
}

Rational operator-(const Rational& a, const Rational& b) {
  if (a < b) throw std::domain_error("negative result in exact profile arithmetic");
  u128 g = gcd(a.den_, b.den_);
  u128 den = checked_mul(a.den_ / g, b.den_);
  u128 num = checked_mul(a.num_, b.den_ / g) - checked_mul(b.num_, a.den_ / g);
  return Rational(num, den);
}

Rational operator*(const Rational& a, const Rational& b) {
  // Cross-reduce first so that intermediate products stay small.
  u128 g1 = gcd(a.num_, b.den_);
  u128 g2 = gcd(b.num_, a.den_);
  if (g1 == 0) g1 = 1;
  if (g2 == 0) g2 = 1;
  return Rational(checked_mul(a.num_ / g1, b.num_ / g2), checked_mul(a.den_ / g2, b.den_ / g1));
}

Rational operator/(const Rational& a, const Rational& b) {
  if (b.num_ == 0) throw std::domain_error("division by zero in exact profile arithmetic");
  return a * Rational(b.den_, b.num_);
}

// Three-way comparison of n1/d1 and n2/d2 by continued fractions: no product
// ever needs more than 128 bits.
static int compare_fractions(u128 n1, u128 d1, u128 n2, u128 d2) {
  for (int sign = 1;; sign = -sign) {
    u128 q1 = n1 / d1, q2 = n2 / d2;
    if (q1 != q2) return q1 < q2 ? -sign : sign;
    u128 r1 = n1 % d1, r2 = n2 % d2;
    if (r1 == 0 || r2 == 0) {
      if (r1 == r2) return 0;
      return r1 == 0 ? -sign : sign;
    }
    // r1/d1 < r2/d2 exactly when d1/r1 > d2/r2: recurse on the reciprocals, order flipped.
    n1 = d1;
    d1 = r1;
    n2 = d2;
    d2 = r2;
  }
}

bool operator<(const Rational& a, const Rational& b) {
  return compare_fractions(a.num_, a.den_, b.num_, b.den_) < 0;
}

}  // namespace cnuas
