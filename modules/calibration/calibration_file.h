// A calibration on disk: the fitted affine map, what it was fitted on, and,
// once validated, its held-out error. YAML, written by `cnuas calibrate`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "calibration/fit.h"

namespace cnuas::calibration {

struct Validation {
  std::string file;
  std::string hash;
  std::size_t rows = 0;
  ErrorMetrics heldout;
  std::vector<Trend> trends;
  std::optional<LackOfFit> lack_of_fit;
  bool adequate = false;
  std::string verdict;
};

struct CalibrationFile {
  std::string component;
  std::string target;
  std::string profile;       // path as given at fit time
  std::string profile_hash;  // timing_hash of the profile's fields
  Affine affine;
  std::string training_file;
  std::string training_hash;
  std::size_t training_rows = 0;
  ErrorMetrics training;  // training error: never a prediction error
  std::vector<std::string> training_identities;
  std::optional<Validation> validation;
};

void write_calibration(const std::string& path, const CalibrationFile& c);
CalibrationFile read_calibration(const std::string& path);

}  // namespace cnuas::calibration
