// Persisting-L2 access policy windows: a stream's (cudaStreamSetAttribute),
// a launch's (cudaLaunchKernelExC attribute), and each device's set-aside for
// persisting lines (cudaLimitPersistingL2CacheSize). A launch hands the
// window that applies and the set-aside to its device, whose performance
// model keeps the window's lines in the L2 accordingly.
#pragma once

#include <algorithm>
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
  // cudaLimitMaxL2FetchGranularity: 0, 32, 64 or 128 bytes (false for another value). It
  // reads 64 until set; once set, it reads back as set and the device's L2 fetches that much
  // around a missed sector (0 and 32: the sector alone).
  bool set_fetch_granularity(int device, std::uint64_t bytes);
  std::uint64_t fetch_granularity(int device) const;
  // What the device's L2 model is told (L2AccessPolicy::fetch_bytes): 0 until the program set
  // it (the profile's granularity), and a set 0 as 1 (the sector alone).
  std::uint32_t model_fetch_bytes(int device) const {
    return fetch_set_[device] ? std::max(fetch_[device], 1u) : 0;
  }
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
  std::vector<std::uint32_t> fetch_;                   // per device, as set
  std::vector<bool> fetch_set_;                        // per device
};

}  // namespace cnuas::cuda
