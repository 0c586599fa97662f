// libFuzzer entry point: any bytes as a CSV of measured times (the
// observations `cnuas calibrate fit|validate` read) either read or throw
// InputError; anything else is a finding. The reader takes a path, so the
// bytes go to a tmpfs file of this process.
#include <cstddef>
#include <cstdint>

#include "calibration/observations.h"
#include "core/kernel/errors.h"
#include "fuzz_files.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path =
      cnuas::fuzz::write_scratch("observations.csv", cnuas::fuzz::text_of(data, size));
  try {
    (void)cnuas::calibration::read_observations(path);
  } catch (const cnuas::InputError&) {
  }
  return 0;
}
