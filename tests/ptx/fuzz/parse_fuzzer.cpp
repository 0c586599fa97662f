// libFuzzer entry point: any input either parses or throws ParseError; nothing
// else (crash, hang, other exception) is acceptable. See scripts/fuzz-ptx.sh.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ptx/errors.h"
#include "ptx/ir.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    auto m = cnuas::ptx::Module::parse(text, "fuzz.ptx");
    (void)m->unsupported();
  } catch (const cnuas::ptx::ParseError&) {
  }
  return 0;
}
