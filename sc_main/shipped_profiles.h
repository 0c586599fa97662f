// The profiles shipped in the source tree's profiles/ folder, by the element
// type they configure, so that `describe TYPE` can point at real parts.
#pragma once

#include <string>
#include <vector>

namespace cnuas::cli {

// Paths (relative to the working directory when below it) of the shipped
// profiles whose `type:` is `type`, sorted; empty when the folder is absent.
std::vector<std::string> shipped_profiles(const std::string& type);

}  // namespace cnuas::cli
