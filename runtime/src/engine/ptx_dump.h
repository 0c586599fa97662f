// CNUAS_DUMP_PTX=DIR: every PTX module the runtime loads is written to DIR, so
// that a fault at "PTX line N" of a library's kernel can be read.
#pragma once

#include <string>

namespace cnuas::cuda {

// Writes `text` (the PTX of `origin`) to the dump directory when one is set;
// returns the file written, or "" when dumping is off or the write failed.
std::string dump_ptx(const std::string& origin, const std::string& text);

}  // namespace cnuas::cuda
