// GPU faults injected into a CUDA program's run at simulated times
// (cnuas exec --faults FILE, CNUAS_FAULTS): ECC errors, Xid faults and thermal
// throttling of one GPU. docs/cuda-runtime.md, "GPU faults", gives the
// semantics; the CUDA runtime (runtime/src/engine/gpu_faults.h) applies them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/inputs/rational.h"
#include "core/kernel/errors.h"

namespace cnuas {

enum class GpuFaultKind { EccError, Xid, Throttle };

struct GpuFault {
  GpuFaultKind kind = GpuFaultKind::EccError;
  SourceLocation where;         // the entry, for messages
  SourceLocation target_where;  // its target
  std::string target;           // a GPU element of the platform
  std::uint64_t at_ps = 0;      // start
  unsigned bits = 1;            // ecc_error: 1 corrected, 2 uncorrectable
  unsigned xid = 0;             // gpu_xid (an ecc_error of 2 bits is Xid 48)
  // gpu_throttle: over [at_ps, at_ps + duration_ps) the SM clock is `clock` (Hz).
  std::uint64_t duration_ps = 0;
  Rational clock;
  SourceLocation clock_where;
};

// The Xids a gpu_xid entry accepts, for messages.
inline constexpr unsigned kAcceptedXids[] = {13, 31, 48, 79};
// What the NVIDIA driver's Xid catalogue calls an Xid this model accepts.
const char* xid_meaning(unsigned xid);

// Reads a faults file: a YAML list of entries such as
//   - {event: ecc_error, target: gpu, start: 30 us, bits: 2}
//   - {event: gpu_xid, target: gpu, start: 1 ms, xid: 79}
//   - {event: gpu_throttle, target: gpu, start: 0 s, duration: 1 ms, clock: 0.99 GHz}
// Throws InputError naming file:line:col and what is accepted.
std::vector<GpuFault> load_gpu_faults(const std::string& path);

}  // namespace cnuas
