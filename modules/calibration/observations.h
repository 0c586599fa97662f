// Observation sets: measured times of one component on one target, as CSV.
//
//   component,target,bytes,time,unit,repetition
//   cnuas.pcie_root,h100-sxm-pcie5-h2d,4096,7.9,us,1
//
// `component`, `target`, `time` and `unit` (ps, ns, us, ms, s) are required;
// every other column but `repetition` must be a work dimension. A malformed
// row is an InputError naming its file and line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/kernel/work.h"

namespace cnuas::calibration {

struct Observation {
  std::string component;
  std::string target;
  WorkDims dims;
  double measured_s = 0;
  std::string repetition;
  int line = 0;
  std::uint64_t identity = 0;  // hash of the row's content, to recognise it in another file
};

struct ObservationSet {
  std::string file;
  std::vector<Observation> rows;
  std::uint64_t hash = 0;  // of all rows' identities, in order
};

ObservationSet read_observations(const std::string& path);

// FNV-1a, 64 bit: a stable content hash for files and rows.
std::uint64_t fnv1a(const std::string& text, std::uint64_t seed = 14695981039346656037ULL);
std::string hex(std::uint64_t value);

}  // namespace cnuas::calibration
