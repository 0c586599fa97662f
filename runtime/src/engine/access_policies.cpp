#include "engine/access_policies.h"

#include <algorithm>

namespace cnuas::cuda {

AccessPolicies::AccessPolicies(Runtime& rt)
    : rt_(rt),
      limits_(static_cast<std::size_t>(rt.device_count()), 0),
      fetch_(static_cast<std::size_t>(rt.device_count()), 0),
      fetch_set_(static_cast<std::size_t>(rt.device_count()), false) {}

cudaError_t AccessPolicies::check(const abi::AccessPolicyWindow& w) const {
  auto known = [](int p) {
    return p == abi::kAccessPropertyNormal || p == abi::kAccessPropertyStreaming ||
           p == abi::kAccessPropertyPersisting;
  };
  // Written so that a NaN ratio fails too.
  if (!(w.hit_ratio >= 0.0f && w.hit_ratio <= 1.0f) || w.num_bytes > kMaxAccessPolicyWindowBytes ||
      !known(w.hit_prop) || !known(w.miss_prop) || w.miss_prop == abi::kAccessPropertyPersisting)
    return cudaErrorInvalidValue;
  return cudaSuccess;
}

gpu::L2AccessPolicy AccessPolicies::policy_of(const abi::AccessPolicyWindow& w) {
  auto retention = [](int p) {
    return p == abi::kAccessPropertyPersisting  ? gpu::Retention::Persisting
           : p == abi::kAccessPropertyStreaming ? gpu::Retention::Streaming
                                                : gpu::Retention::Normal;
  };
  gpu::L2AccessPolicy policy;
  policy.base = reinterpret_cast<std::uint64_t>(w.base_ptr);
  policy.bytes = w.num_bytes;
  policy.hit_ratio = w.hit_ratio;
  policy.hit = retention(w.hit_prop);
  policy.miss = retention(w.miss_prop);
  return policy;
}

cudaError_t AccessPolicies::set_attribute(Stream& s, int attr,
                                          const abi::LaunchAttributeValue* value,
                                          const char* function) {
  if (!value) return cudaErrorInvalidValue;
  switch (attr) {
    case abi::kAttributeAccessPolicyWindow:
      if (const cudaError_t e = check(value->access_policy_window)) return e;
      of(s).window = value->access_policy_window;
      return cudaSuccess;
    case abi::kAttributeSynchronizationPolicy:  // auto, spin, yield, blocking sync
      if (value->sync_policy < 1 || value->sync_policy > 4) return cudaErrorInvalidValue;
      of(s).sync_policy = value->sync_policy;
      return cudaSuccess;
    case abi::kAttributePriority:  // clamped to the range cudaDeviceGetStreamPriorityRange gives
      s.priority = std::min(0, std::max(-5, value->priority));
      return cudaSuccess;
    default:
      return rt_.unsupported(function);
  }
}

cudaError_t AccessPolicies::get_attribute(const Stream& s, int attr,
                                          abi::LaunchAttributeValue* value,
                                          const char* function) const {
  if (!value) return cudaErrorInvalidValue;
  auto f = streams_.find(s.serial);
  const StreamAttributes a = f == streams_.end() ? StreamAttributes{} : f->second;
  switch (attr) {
    case abi::kAttributeAccessPolicyWindow:
      value->access_policy_window = a.window;
      return cudaSuccess;
    case abi::kAttributeSynchronizationPolicy:
      value->sync_policy = a.sync_policy;
      return cudaSuccess;
    case abi::kAttributePriority:
      value->priority = s.priority;
      return cudaSuccess;
    default:
      return rt_.unsupported(function);
  }
}

abi::AccessPolicyWindow AccessPolicies::window(const Stream& s) const {
  auto f = streams_.find(s.serial);
  return f == streams_.end() ? abi::AccessPolicyWindow{} : f->second.window;
}

void AccessPolicies::copy(Stream& to, const Stream& from) {
  auto f = streams_.find(from.serial);
  streams_[to.serial] = f == streams_.end() ? StreamAttributes{} : f->second;
  to.priority = from.priority;
}

void AccessPolicies::set_persisting_limit(int device, std::uint64_t bytes) {
  limits_[static_cast<std::size_t>(device)] =
      std::min(bytes, max_persisting_l2_bytes(rt_.device(device).desc));
}

bool AccessPolicies::set_fetch_granularity(int device, std::uint64_t bytes) {
  if (bytes != 0 && bytes != 32 && bytes != 64 && bytes != 128) return false;
  fetch_[static_cast<std::size_t>(device)] = static_cast<std::uint32_t>(bytes);
  fetch_set_[static_cast<std::size_t>(device)] = true;
  return true;
}

std::uint64_t AccessPolicies::fetch_granularity(int device) const {
  const auto d = static_cast<std::size_t>(device);
  return fetch_set_[d] ? fetch_[d] : 64;
}

gpu::L2AccessPolicy AccessPolicies::for_launch(const LaunchRequest& r, const Stream& s) const {
  gpu::L2AccessPolicy policy = r.access_policy ? *r.access_policy : policy_of(window(s));
  policy.set_aside_bytes = limits_[static_cast<std::size_t>(s.device)];
  policy.fetch_bytes = model_fetch_bytes(s.device);
  return policy;
}

}  // namespace cnuas::cuda
