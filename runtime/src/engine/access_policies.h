// Persisting-L2 access policy windows: a stream's (cudaStreamSetAttribute),
// a launch's (cudaLaunchKernelExC attribute), and each device's set-aside for
// persisting lines (cudaLimitPersistingL2CacheSize). A launch hands the
// window that applies and the set-aside to its device, whose performance
// model keeps the window's lines in the L2 accordingly.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "engine/runtime.h"
#include "memory_abi.h"

namespace cnuas::cuda {

// The largest window (cudaDeviceProp::accessPolicyMaxWindowSize) of the GPUs
// modelled (A100, H100, H200).
constexpr std::uint64_t kMaxAccessPolicyWindowBytes = 134213632;

// The L2 bytes persisting lines may be given: three quarters of the L2, as
// on A100 and H100 (cudaDeviceProp::persistingL2CacheMaxSize).
inline std::uint64_t max_persisting_l2_bytes(const DeviceDesc& d) {
  return d.l2_bytes / 4 * 3;
}

class AccessPolicies {
 public:
  explicit AccessPolicies(Runtime& rt);

  // cudaErrorInvalidValue unless the window is one the device accepts: a hit
  // ratio in [0, 1], at most kMaxAccessPolicyWindowBytes, known properties,
  // and a miss property that is normal or streaming.
  cudaError_t check(const abi::AccessPolicyWindow& w) const;
  static gpu::L2AccessPolicy policy_of(const abi::AccessPolicyWindow& w);

  // cudaStreamSetAttribute / cuStreamSetAttribute and the getter: the access
  // policy window (an unset one reads back as all zeros), the synchronization
  // policy (kept) and the priority; `function` names the call for another
  // attribute, which is not supported. Neither sets the last error.
  cudaError_t set_attribute(Stream& s, int attr, const abi::LaunchAttributeValue* value,
                            const char* function);
  cudaError_t get_attribute(const Stream& s, int attr, abi::LaunchAttributeValue* value,
                            const char* function) const;
  abi::AccessPolicyWindow window(const Stream& s) const;
  void copy(Stream& to, const Stream& from);

  // cudaLimitPersistingL2CacheSize: clamped to max_persisting_l2_bytes.
  void set_persisting_limit(int device, std::uint64_t bytes);
  std::uint64_t persisting_limit(int device) const { return limits_[device]; }
  // What a kernel launched on `s` runs under.
  gpu::L2AccessPolicy for_launch(const LaunchRequest& r, const Stream& s) const;

 private:
  struct StreamAttributes {
    abi::AccessPolicyWindow window{};
    int sync_policy = 1;  // cudaSyncPolicyAuto
  };
  StreamAttributes& of(const Stream& s) { return streams_[s.serial]; }

  Runtime& rt_;
  std::map<std::uint64_t, StreamAttributes> streams_;  // by Stream::serial
  std::vector<std::uint64_t> limits_;                  // per device
};

}  // namespace cnuas::cuda
