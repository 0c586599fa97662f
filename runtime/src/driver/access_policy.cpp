// Stream attributes and the persisting L2 reset through the driver
// (engine/access_policies.h).
#include "cudart/entry.h"
#include "driver/driver_entry.h"
#include "engine/access_policies.h"

using namespace cnuas::cuda;
using namespace cnuas::cuda::driver;

extern "C" {

CUresult cuStreamSetAttribute(CUstream stream, int attr, const abi::LaunchAttributeValue* value) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  Stream* s = rt.stream(reinterpret_cast<cudaStream_t>(stream));
  if (!s) return kInvalidHandle;
  return driver_code(rt.access_policies().set_attribute(
      *s, attr, value, "cuStreamSetAttribute with this attribute"));
}

CUresult cuStreamGetAttribute(CUstream stream, int attr, abi::LaunchAttributeValue* value) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  Stream* s = rt.stream(reinterpret_cast<cudaStream_t>(stream));
  if (!s) return kInvalidHandle;
  return driver_code(rt.access_policies().get_attribute(
      *s, attr, value, "cuStreamGetAttribute with this attribute"));
}

CUresult cuStreamCopyAttributes(CUstream dst, CUstream src) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  Stream* to = rt.stream(reinterpret_cast<cudaStream_t>(dst));
  Stream* from = rt.stream(reinterpret_cast<cudaStream_t>(src));
  if (!to || !from) return kInvalidHandle;
  rt.access_policies().copy(*to, *from);
  return kSuccess;
}

// The per-thread default stream forms.
CUresult cuStreamSetAttribute_ptsz(CUstream s, int attr, const abi::LaunchAttributeValue* value) {
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());
  PerThreadDefault scope(Runtime::get());
  return cuStreamSetAttribute(s, attr, value);
}

CUresult cuStreamGetAttribute_ptsz(CUstream s, int attr, abi::LaunchAttributeValue* value) {
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());
  PerThreadDefault scope(Runtime::get());
  return cuStreamGetAttribute(s, attr, value);
}

CUresult cuStreamCopyAttributes_ptsz(CUstream dst, CUstream src) {
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());
  PerThreadDefault scope(Runtime::get());
  return cuStreamCopyAttributes(dst, src);
}

CUresult cuCtxResetPersistingL2Cache() {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  rt.device(context_device).desc.device->reset_persisting_l2();
  return kSuccess;
}

}  // extern "C"
