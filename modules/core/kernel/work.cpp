#include "core/kernel/work.h"

namespace cnuas {

const std::vector<WorkDimInfo>& work_dim_table() {
  static const std::vector<WorkDimInfo> table = {
      {WorkDim::Bytes, "bytes", Dimension::Data, "payload size in bytes (\"4 KiB\" or 4096)"},
      {WorkDim::Packets, "packets", Dimension::Count, "number of packets"},
      {WorkDim::Messages, "messages", Dimension::Count, "number of messages"},
      {WorkDim::Flops, "flops", Dimension::Count, "floating-point operations (\"2 GFLOP\")"},
      {WorkDim::Instructions, "instructions", Dimension::Count, "guest instructions"},
      {WorkDim::Requests, "requests", Dimension::Count, "number of requests"},
      {WorkDim::Address, "address", Dimension::Count, "target address (selects a pinned lane)"},
      {WorkDim::WarpInstructions, "warp_instructions", Dimension::Count,
       "GPU warp instructions issued (a kernel's functional instruction count)"},
      {WorkDim::DeviceTime, "device_time", Dimension::Time,
       "a kernel's duration as a detailed GPU model measured it (\"12 us\"; ps when bare)"},
      {WorkDim::DeviceEnergy, "device_energy", Dimension::Energy,
       "dynamic energy a detailed GPU model counted for a kernel (\"3 mJ\"; pJ when bare): the "
       "element draws it instead of active_power"},
      {WorkDim::ReduceBytes, "reduce_bytes", Dimension::Data,
       "bytes the operation's last element combines with its own copy on arrival (a "
       "collective's reduction): a GPU reads both once more from its memory"},
  };
  return table;
}

std::optional<WorkDim> work_dim_by_name(const std::string& name) {
  for (const auto& info : work_dim_table())
    if (name == info.name) return info.id;
  return std::nullopt;
}

const char* work_dim_name(WorkDim d) {
  return work_dim_table()[static_cast<size_t>(d)].name;
}

std::vector<std::string> work_dim_names() {
  std::vector<std::string> names;
  for (const auto& info : work_dim_table()) names.emplace_back(info.name);
  return names;
}

std::vector<std::string> WorkDims::names() const {
  std::vector<std::string> out;
  for (const auto& info : work_dim_table())
    if (has(info.id)) out.emplace_back(info.name);
  return out;
}

namespace {

// The value of `text` in dimension d's unit; OverflowError past 64 bits.
std::uint64_t work_value(WorkDim d, const std::string& text) {
  const auto& info = work_dim_table()[static_cast<size_t>(d)];
  Rational value;
  if (info.quantity == Dimension::Data) {
    // A bare number of bytes is the common case; a unit is optional here.
    bool bare = text.find_first_not_of("0123456789_ ") == std::string::npos;
    value = bare ? parse_decimal(text) : parse_quantity(text, Dimension::Data).value / Rational(8);
  } else if (info.quantity == Dimension::Energy) {
    bool bare = text.find_first_not_of("0123456789_ ") == std::string::npos;
    value = bare ? parse_decimal(text)
                 : parse_quantity(text, Dimension::Energy).value * Rational(1'000'000'000'000ULL);
  } else if (info.quantity == Dimension::Time) {
    bool bare = text.find_first_not_of("0123456789_ ") == std::string::npos;
    value = bare ? parse_decimal(text) : parse_quantity(text, Dimension::Time).value;
  } else {
    value = parse_quantity(text, Dimension::Count).value;
  }
  if (!value.is_integer())
    throw UnitError(std::string(info.name) + " must be a whole number, got '" + text + "'");
  return value.floor_u64();
}

}  // namespace

std::uint64_t parse_work_value(WorkDim d, const std::string& text) {
  try {
    return work_value(d, text);
  } catch (const OverflowError&) {
    throw UnitError("'" + text.substr(0, 60) + "' is too large for a 64-bit count");
  }
}

}  // namespace cnuas
