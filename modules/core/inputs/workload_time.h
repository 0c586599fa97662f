// Times written in workloads and fault files (starts, durations, intervals).
#pragma once

#include <cstdint>
#include <string>

#include <yaml-cpp/yaml.h>

namespace cnuas {

// Workload times stay within 10^6 s (about 11.6 days): simulated time is
// 64-bit picoseconds, and every stage of the run must still fit after them.
constexpr std::uint64_t kMaxWorkloadTimePs = 1'000'000'000'000'000'000ULL;

// A time quantity in picoseconds, rounded up; InputError at the node for a
// bad unit or value, or one past kMaxWorkloadTimePs. `what` names it.
std::uint64_t workload_time(const YAML::Node& n, const std::string& file, const std::string& what);

}  // namespace cnuas
