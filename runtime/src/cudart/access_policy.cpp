// Stream attributes (the persisting-L2 access policy window among them) and
// the persisting L2 reset (engine/access_policies.h). The persisting set-aside
// is cudaDeviceSetLimit's (device.cpp).
#include "cudart/entry.h"
#include "engine/access_policies.h"

using namespace cnuas::cuda;

extern "C" {

cudaError_t cudaStreamSetAttribute(cudaStream_t stream, int attr,
                                   const abi::LaunchAttributeValue* value) {
  CUDART_ENTER_STICKY();
  Stream* s = rt.stream(stream);
  if (!s) return rt.record(cudaErrorInvalidResourceHandle);
  return rt.record(rt.access_policies().set_attribute(
      *s, attr, value, "cudaStreamSetAttribute with this attribute"));
}

cudaError_t cudaStreamGetAttribute(cudaStream_t stream, int attr,
                                   abi::LaunchAttributeValue* value) {
  CUDART_ENTER_STICKY();
  Stream* s = rt.stream(stream);
  if (!s) return rt.record(cudaErrorInvalidResourceHandle);
  return rt.record(rt.access_policies().get_attribute(
      *s, attr, value, "cudaStreamGetAttribute with this attribute"));
}

cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src) {
  CUDART_ENTER_STICKY();
  Stream* to = rt.stream(dst);
  Stream* from = rt.stream(src);
  if (!to || !from) return rt.record(cudaErrorInvalidResourceHandle);
  rt.access_policies().copy(*to, *from);
  return cudaSuccess;
}

// Every persisting line of the current device's L2 becomes normal.
cudaError_t cudaCtxResetPersistingL2Cache() {
  CUDART_ENTER_STICKY();
  rt.device(rt.current_device()).desc.device->reset_persisting_l2();
  return cudaSuccess;
}

}  // extern "C"

CUDART_PER_THREAD(_ptsz, cudaError_t, cudaStreamSetAttribute,
                  (cudaStream_t s, int attr, const abi::LaunchAttributeValue* value),
                  (s, attr, value))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaStreamGetAttribute,
                  (cudaStream_t s, int attr, abi::LaunchAttributeValue* value), (s, attr, value))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaStreamCopyAttributes, (cudaStream_t d, cudaStream_t s),
                  (d, s))
