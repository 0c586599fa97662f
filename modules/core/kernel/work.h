// Explicit work dimensions: what an operation asks of each element it crosses.
//
// The vocabulary is declared once here; elements name the dimensions they need,
// and an element that needs one the operation does not give is an input error,
// never a zero cost.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/inputs/units.h"

namespace cnuas {

enum class WorkDim : std::uint8_t {
  Bytes,
  Packets,
  Messages,
  Flops,
  Instructions,
  Requests,
  Address,
  WarpInstructions,
  DeviceTime,
  DeviceEnergy,
  ReduceBytes,
  kCount
};

struct WorkDimInfo {
  WorkDim id;
  const char* name;
  Dimension quantity;  // how the YAML value is written (bytes accept "4 KiB")
  const char* description;
};

const std::vector<WorkDimInfo>& work_dim_table();
std::optional<WorkDim> work_dim_by_name(const std::string& name);
const char* work_dim_name(WorkDim d);
std::vector<std::string> work_dim_names();

// A small fixed-size bag of integers, one optional slot per dimension.
class WorkDims {
 public:
  bool has(WorkDim d) const { return (mask_ >> index(d)) & 1U; }
  std::uint64_t get(WorkDim d) const { return values_[index(d)]; }
  void set(WorkDim d, std::uint64_t v) {
    values_[index(d)] = v;
    mask_ |= 1U << index(d);
  }
  bool empty() const { return mask_ == 0; }
  // Names of the present dimensions, in declaration order.
  std::vector<std::string> names() const;

 private:
  static unsigned index(WorkDim d) { return static_cast<unsigned>(d); }
  std::array<std::uint64_t, static_cast<size_t>(WorkDim::kCount)> values_{};
  std::uint32_t mask_ = 0;
};

// Converts a YAML scalar for dimension `d` into its integer count ("4 KiB" ->
// 4096 bytes). Throws UnitError for fractions, negative values or wrong units.
std::uint64_t parse_work_value(WorkDim d, const std::string& text);

}  // namespace cnuas
