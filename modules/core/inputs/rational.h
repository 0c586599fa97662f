// Exact non-negative rational numbers for profile arithmetic.
//
// Profiles speak in readable units ("12.5 ns", "100 Gbit/s"); scheduled times
// are integer picoseconds. Keeping every step exact until the final ceiling
// means no binary floating point ever reaches a timestamp.
#pragma once

#include <cstdint>
#include <string>

namespace cnuas {

__extension__ using u128 = unsigned __int128;  // exact intermediate products

class Rational {
 public:
  Rational() = default;
  Rational(std::uint64_t whole) : num_(whole), den_(1) {}  // NOLINT: implicit by design
  Rational(u128 num, u128 den);

  u128 num() const { return num_; }
  u128 den() const { return den_; }
  bool is_zero() const { return num_ == 0; }
  bool is_integer() const { return den_ == 1; }

  // Smallest integer >= this; throws OverflowError above 2^64-1.
  std::uint64_t ceil_u64() const;
  // Largest integer <= this.
  std::uint64_t floor_u64() const;
  // Nearest double, for reports only (never for scheduling).
  double to_double() const;
  // Exact decimal text when the denominator allows it, else `digits` decimals.
  std::string to_decimal(int digits = 6) const;

  friend Rational operator+(const Rational& a, const Rational& b);
  friend Rational operator-(const Rational& a, const Rational& b);  // throws when negative
  friend Rational operator*(const Rational& a, const Rational& b);
  friend Rational operator/(const Rational& a, const Rational& b);  // throws on zero divisor
  friend bool operator==(const Rational& a, const Rational& b) {
    return a.num_ == b.num_ && a.den_ == b.den_;
  }
  friend bool operator!=(const Rational& a, const Rational& b) { return !(a == b); }
  friend bool operator<(const Rational& a, const Rational& b);
  friend bool operator<=(const Rational& a, const Rational& b) { return !(b < a); }
  friend bool operator>(const Rational& a, const Rational& b) { return b < a; }

 private:
  void normalize();
  u128 num_ = 0;
  u128 den_ = 1;
};

// Thrown when exact arithmetic would leave 128 bits: the inputs are absurd for
// any real part, and a silently wrapped number would be far worse.
struct OverflowError : std::exception {
  const char* what() const noexcept override {
    return "arithmetic overflow in exact profile arithmetic (a quantity is out of range)";
  }
};

}  // namespace cnuas
