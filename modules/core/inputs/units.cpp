#include "core/inputs/units.h"

#include <cctype>
#include <map>

namespace cnuas {
namespace {

struct UnitInfo {
  Dimension dimension;
  Rational factor;  // one of this unit in base units
};

u128 pow10(int n) {
  u128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

// The unit table is built once from prefixes so that every spelling is consistent.
const std::map<std::string, UnitInfo, std::less<>>& unit_table() {
  static const auto table = [] {
    std::map<std::string, UnitInfo, std::less<>> t;
    auto add = [&](const std::string& name, Dimension d, Rational f) { t[name] = {d, f}; };
    const std::pair<const char*, int> time_units[] = {{"ps", 0},        {"ns", 3}, {"us", 6},
                                                      {"\xC2\xB5s", 6}, {"ms", 9}, {"s", 12}};
    for (auto& [n, e] : time_units) add(n, Dimension::Time, Rational(pow10(e), 1));

    const std::pair<const char*, int> si[] = {{"", 0},  {"k", 3},  {"K", 3}, {"M", 6},
                                              {"G", 9}, {"T", 12}, {"P", 15}};
    const std::pair<const char*, int> binary[] = {
        {"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"Ti", 40}, {"Pi", 50}};
    for (auto& [p, e] : si) {
      Rational f(pow10(e), 1);
      add(std::string(p) + "bit", Dimension::Data, f);
      add(std::string(p) + "B", Dimension::Data, f * Rational(8));
      add(std::string(p) + "bit/s", Dimension::DataRate, f);
      add(std::string(p) + "bps", Dimension::DataRate, f);
      // Lower-case b is a bit and upper-case B a byte, as in IEC 80000-13.
      add(std::string(p) + "b", Dimension::Data, f);
      add(std::string(p) + "b/s", Dimension::DataRate, f);
      add(std::string(p) + "B/s", Dimension::DataRate, f * Rational(8));
      add(std::string(p) + "Bps", Dimension::DataRate, f * Rational(8));
      add(std::string(p) + "FLOP/s", Dimension::OpRate, f);
      add(std::string(p) + "op/s", Dimension::OpRate, f);
      add(std::string(p) + "FLOP", Dimension::Count, f);
      add(std::string(p) + "op", Dimension::Count, f);
    }
    for (auto& [p, e] : binary) {
      Rational f(u128(1) << e, 1);
      add(std::string(p) + "B", Dimension::Data, f * Rational(8));
      add(std::string(p) + "bit", Dimension::Data, f);
      add(std::string(p) + "B/s", Dimension::DataRate, f * Rational(8));
      add(std::string(p) + "bit/s", Dimension::DataRate, f);
      add(std::string(p) + "b/s", Dimension::DataRate, f);
    }
    const std::pair<const char*, int> hz[] = {
        {"Hz", 0}, {"kHz", 3}, {"MHz", 6}, {"GHz", 9}, {"THz", 12}};
    for (auto& [n, e] : hz) add(n, Dimension::Frequency, Rational(pow10(e), 1));
    add("baud", Dimension::Frequency, Rational(1));
    add("mW", Dimension::Power, Rational(1, 1000));
    add("W", Dimension::Power, Rational(1));
    add("kW", Dimension::Power, Rational(1000));
    add("MW", Dimension::Power, Rational(1000000));
    const std::pair<const char*, int> joules[] = {{"fJ", 15}, {"pJ", 12}, {"nJ", 9},
                                                  {"uJ", 6},  {"mJ", 3},  {"J", 0}};
    for (auto& [n, e] : joules) add(n, Dimension::Energy, Rational(1, pow10(e)));
    add("kJ", Dimension::Energy, Rational(1000));
    add("MJ", Dimension::Energy, Rational(1000000));
    add("GJ", Dimension::Energy, Rational(1000000000));
    add("MWh", Dimension::Energy, Rational(3600000000ULL));
    add("Wh", Dimension::Energy, Rational(3600));
    add("kWh", Dimension::Energy, Rational(3600000));
    add("%", Dimension::Count, Rational(1, 100));
    add("mm", Dimension::Length, Rational(1, 1000));
    add("cm", Dimension::Length, Rational(1, 100));
    add("m", Dimension::Length, Rational(1));
    add("km", Dimension::Length, Rational(1000));
    return t;
  }();
  return table;
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

}  // namespace

const char* dimension_name(Dimension d) {
  switch (d) {
    case Dimension::Count:
      return "count";
    case Dimension::Time:
      return "time";
    case Dimension::Data:
      return "data size";
    case Dimension::DataRate:
      return "data rate";
    case Dimension::Frequency:
      return "frequency";
    case Dimension::Power:
      return "power";
    case Dimension::Energy:
      return "energy";
    case Dimension::OpRate:
      return "operation rate";
    case Dimension::Length:
      return "length";
  }
  return "?";
}

std::string accepted_units(Dimension d) {
  // A curated list reads better than the whole table.
  switch (d) {
    case Dimension::Count:
      return "a plain number, a percentage (97.5 %), or FLOP/op with k, M, G, T, P";
    case Dimension::Time:
      return "ps, ns, us, ms, s";
    case Dimension::Data:
      return "bit, b, Kbit, Mbit, Gbit, Gb, B, KB, MB, GB, TB, KiB, MiB, GiB, TiB";
    case Dimension::DataRate:
      return "bit/s, Kbit/s, Mbit/s, Gbit/s, Tbit/s, Gb/s, Gbps, Gibit/s, B/s, KB/s, MB/s, GB/s, "
             "TB/s, GBps, KiB/s, MiB/s, GiB/s";
    case Dimension::Frequency:
      return "Hz, kHz, MHz, GHz, THz, baud";
    case Dimension::Power:
      return "mW, W, kW, MW";
    case Dimension::Energy:
      return "fJ, pJ, nJ, uJ, mJ, J, kJ, MJ, GJ, Wh, kWh, MWh";
    case Dimension::OpRate:
      return "FLOP/s or op/s with k, M, G, T, P";
    case Dimension::Length:
      return "mm, cm, m, km";
  }
  return "";
}

// "a time", "an energy": for messages.
static std::string a_dimension(Dimension d) {
  const std::string name = dimension_name(d);
  return (std::string("aeiou").find(name[0]) != std::string::npos ? "an " : "a ") + name;
}

Rational parse_decimal(std::string_view text) {
  std::string s = trim(text);
  if (s.empty()) throw UnitError("empty number");
  if (s[0] == '-') throw UnitError("negative value '" + s + "' is not allowed");
  size_t i = s[0] == '+' ? 1 : 0;
  u128 mantissa = 0;
  int frac_digits = 0, digits = 0;
  bool seen_point = false;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c == '.' && !seen_point) {
      seen_point = true;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      if (digits >= 36) throw UnitError("number '" + s + "' has too many digits");
      mantissa = mantissa * 10 + static_cast<unsigned>(c - '0');
      ++digits;
      if (seen_point) ++frac_digits;
    } else if (c == '_' || c == '\'') {
      continue;  // digit separators: 1_000_000
    } else {
      break;
    }
  }
  if (digits == 0) throw UnitError("'" + s + "' is not a number");
  int exponent = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    bool negative = false;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) negative = s[j++] == '-';
    if (j >= s.size() || !std::isdigit(static_cast<unsigned char>(s[j])))
      throw UnitError("'" + s + "' has a malformed exponent");
    int e = 0;
    for (; j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])); ++j) {
      e = e * 10 + (s[j] - '0');
      if (e > 30) throw UnitError("exponent in '" + s + "' is out of range");
    }
    exponent = negative ? -e : e;
    i = j;
  }
  if (i != s.size()) throw UnitError("unexpected text '" + s.substr(i) + "' after number");
  int scale = exponent - frac_digits;
  try {
    if (scale >= 0) return Rational(mantissa, 1) * Rational(pow10(scale), 1);
    return Rational(mantissa, pow10(-scale));
  } catch (const OverflowError&) {
    throw UnitError("'" + s.substr(0, 60) + "' is too large to compute with exactly");
  }
}

Quantity parse_quantity(std::string_view text, Dimension expected) {
  std::string s = trim(text);
  if (!s.empty() && s[0] == '-') throw UnitError("negative value '" + s + "' is not allowed");
  // The number ends where the unit starts: at a space or at the first letter that
  // cannot belong to a number (an 'e' followed by a digit or sign is an exponent).
  size_t split = 0;
  while (split < s.size()) {
    char c = s[split];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '_') {
      ++split;
    } else if ((c == 'e' || c == 'E') && split + 1 < s.size() &&
               (std::isdigit(static_cast<unsigned char>(s[split + 1])) || s[split + 1] == '-' ||
                s[split + 1] == '+')) {
      split += 2;
    } else {
      break;
    }
  }
  Rational number = parse_decimal(s.substr(0, split));
  std::string unit = trim(std::string_view(s).substr(split));
  if (unit.empty()) {
    if (expected == Dimension::Count) return {Dimension::Count, number};
    throw UnitError("'" + s + "' has no unit; " + a_dimension(expected) +
                    " needs one of: " + accepted_units(expected));
  }
  auto it = unit_table().find(unit);
  if (it == unit_table().end())
    throw UnitError("unknown unit '" + unit + "' in '" + s + "'; " + a_dimension(expected) +
                    " accepts: " + accepted_units(expected));
  if (it->second.dimension != expected)
    throw UnitError("'" + s + "' is " + a_dimension(it->second.dimension) + ", but " +
                    a_dimension(expected) + " is expected (" + accepted_units(expected) + ")");
  try {
    return {expected, number * it->second.factor};
  } catch (const OverflowError&) {
    throw UnitError("'" + s.substr(0, 60) + "' is too large to compute with exactly");
  }
}

std::uint64_t transfer_ps(std::uint64_t bits, const Rational& bits_per_second) {
  return (Rational(bits) * ps_per_second() / bits_per_second).ceil_u64();
}

}  // namespace cnuas
