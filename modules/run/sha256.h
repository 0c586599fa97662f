// SHA-256 (FIPS 180-4) of a file, so that run metadata identifies its inputs
// the way `sha256sum` would.
#pragma once

#include <string>

namespace cnuas {

// The lowercase hex digest of `bytes`.
std::string sha256_hex(const std::string& bytes);

// The digest of the file at `path`; empty when it cannot be read.
std::string sha256_of_file(const std::string& path);

}  // namespace cnuas
