// libFuzzer entry point: any bytes as a calibration file (the YAML that
// `cnuas calibrate fit` writes and `cnuas run --calibration` reads) either
// read or throw InputError; anything else is a finding. The reader takes a
// path, so the bytes go to a tmpfs file of this process.
#include <cstddef>
#include <cstdint>

#include "calibration/calibration_file.h"
#include "core/kernel/errors.h"
#include "fuzz_files.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path =
      cnuas::fuzz::write_scratch("calibration.yaml", cnuas::fuzz::text_of(data, size));
  try {
    (void)cnuas::calibration::read_calibration(path);
  } catch (const cnuas::InputError&) {
  }
  return 0;
}
