// The version of this build, fixed when it was configured.
#pragma once

namespace cnuas {

const char* version();       // the project version, "0.1.0"
const char* git_describe();  // `git describe --always --dirty` of the source tree, or "unknown"

}  // namespace cnuas
