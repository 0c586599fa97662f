// Quantities with units, parsed exactly from decimal text.
//
// "100 Gbit/s", "25 GB/s", "12.5 ns", "4 KiB", "1.98 GHz", "350 W" become a
// dimension plus an exact rational in that dimension's base unit. Nothing on the
// way passes through binary floating point.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/inputs/rational.h"

namespace cnuas {

// Base units: Time ps, Data bit, DataRate bit/s, Frequency Hz, Power W,
// Energy J, OpRate op/s, Length m, Count 1 (a bare number, or a percentage).
enum class Dimension { Count, Time, Data, DataRate, Frequency, Power, Energy, OpRate, Length };

struct Quantity {
  Dimension dimension = Dimension::Count;
  Rational value;  // in the dimension's base unit
};

const char* dimension_name(Dimension d);
// The units accepted for a dimension, for error messages and docs ("ps, ns, us, ms, s").
std::string accepted_units(Dimension d);

// Thrown for text that is not a quantity; the message says what is accepted.
// Callers add the location (file:line:col, element).
struct UnitError : std::exception {
  explicit UnitError(std::string m) : message(std::move(m)) {}
  const char* what() const noexcept override { return message.c_str(); }
  std::string message;
};

// Parses "<non-negative decimal>[e<exp>] <unit>" expecting `expected`. A bare
// number is accepted only for Dimension::Count.
Quantity parse_quantity(std::string_view text, Dimension expected);

// Parses a non-negative exact decimal ("12.5", "3e9") without unit.
Rational parse_decimal(std::string_view text);

// Picoseconds (rounded up) to move `bits` at `bits_per_second`.
std::uint64_t transfer_ps(std::uint64_t bits, const Rational& bits_per_second);

// Exact seconds->ps factor for converting base-unit rates into scheduled time.
inline const Rational& ps_per_second() {
  static const Rational k(1'000'000'000'000ULL);
  return k;
}

}  // namespace cnuas
