// libFuzzer entry point: any bytes either read as fat binary containers or
// throw FatbinError; nothing else (crash, hang, other exception) is
// acceptable. The input is copied to the heap, so the reader's limit is the
// input's size, as for a fat binary a program builds in memory.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fatbin.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::uint8_t> bytes(data, data + size);
  try {
    auto entries = cnuas::cuda::parse_fatbin(bytes.data(), bytes.size(), true);
    (void)cnuas::cuda::select_ptx(entries, 90);
  } catch (const cnuas::cuda::FatbinError&) {
  }
  return 0;
}
