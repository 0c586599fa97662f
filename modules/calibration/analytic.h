// The analytic time a component's model gives one piece of work, alone (no
// queueing): what a calibration maps onto measured time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/inputs/profile.h"
#include "core/kernel/element.h"

namespace cnuas {
class RunContext;
}

namespace cnuas::calibration {

// The fields that decide timing, as exact text: power, rack and wiring
// (`upstream`) excluded.
std::vector<std::pair<std::string, std::string>> timing_fields(const ParamSet& params);
// A content hash of timing_fields, so that a calibration is refused once its
// profile changes.
std::string timing_hash(const ParamSet& params);
// The timing fields in which `element` differs from `fitted`, each as
// "name (X in the profile, Y here)".
std::vector<std::string> timing_differences(const ParamSet& fitted, const ParamSet& element);

class AnalyticProbe {
 public:
  // Instantiates the profile's element type outside any platform (during elaboration).
  explicit AnalyticProbe(const std::string& profile_path);
  ~AnalyticProbe();

  const std::string& type() const { return doc_.type; }
  const std::string& profile_hash() const { return hash_; }
  // Service time of one stage with these work dimensions, in seconds.
  double analytic_s(const WorkDims& dims);

 private:
  ProfileDoc doc_;
  std::string hash_;
  // The probe is a run of its own: the context it builds the element in outlives it.
  std::unique_ptr<RunContext> context_;
  std::unique_ptr<Element> element_;
};

}  // namespace cnuas::calibration
