// Memory: allocation, copies (plain, pitched, 3D, symbols, arrays, peers),
// memsets, pointer queries.
#include <cstring>

#include "cudart/entry.h"

using namespace cnuas::cuda;

namespace {

// A pointer into an array at (x bytes, y row, z slice).
void* array_at(const Array& a, std::size_t x_bytes, std::size_t y, std::size_t z) {
  return reinterpret_cast<void*>(a.base + x_bytes +
                                 (y + z * std::max<std::size_t>(a.height, 1)) * a.row_bytes());
}

// A 3D copy as one row copy per slice.
cudaError_t copy_3d(Runtime& rt, const cudaMemcpy3DParms* p, cudaStream_t stream,
                    bool synchronous) {
  if (!p) return rt.record(cudaErrorInvalidValue);
  if ((p->srcArray && p->srcPtr.ptr) || (p->dstArray && p->dstPtr.ptr))
    return rt.record(cudaErrorInvalidValue);
  const Array* sa = p->srcArray ? rt.array(p->srcArray) : nullptr;
  const Array* da = p->dstArray ? rt.array(p->dstArray) : nullptr;
  if ((p->srcArray && !sa) || (p->dstArray && !da))
    return rt.record(cudaErrorInvalidResourceHandle);
  // With an array the extent counts elements in x; without, bytes.
  const unsigned texel = sa ? sa->texel_bytes() : da ? da->texel_bytes() : 1;
  const std::size_t width = p->extent.width * texel;
  const std::size_t height = std::max<std::size_t>(p->extent.height, 1);
  const std::size_t depth = std::max<std::size_t>(p->extent.depth, 1);
  for (std::size_t z = 0; z < depth; ++z) {
    Runtime::Copy c{};
    if (da) {
      c.dst = array_at(*da, p->dstPos.x * texel, p->dstPos.y, p->dstPos.z + z);
      c.dst_pitch = da->row_bytes();
    } else {
      c.dst = static_cast<char*>(p->dstPtr.ptr) + p->dstPos.x +
              (p->dstPos.y + (p->dstPos.z + z) * p->dstPtr.ysize) * p->dstPtr.pitch;
      c.dst_pitch = p->dstPtr.pitch;
    }
    if (sa) {
      c.src = array_at(*sa, p->srcPos.x * texel, p->srcPos.y, p->srcPos.z + z);
      c.src_pitch = sa->row_bytes();
    } else {
      c.src = static_cast<const char*>(p->srcPtr.ptr) + p->srcPos.x +
              (p->srcPos.y + (p->srcPos.z + z) * p->srcPtr.ysize) * p->srcPtr.pitch;
      c.src_pitch = p->srcPtr.pitch;
    }
    c.width = width;
    c.height = height;
    c.kind = p->kind;
    if (const cudaError_t e = rt.copy(c, stream, synchronous && z + 1 == depth)) return e;
  }
  return cudaSuccess;
}

cudaError_t symbol_copy(Runtime& rt, const void* symbol, std::size_t count, std::size_t offset,
                        void* host, bool to_symbol, int kind, cudaStream_t stream,
                        bool synchronous) {
  std::uint64_t base = 0;
  std::size_t size = 0;
  if (const cudaError_t e = rt.symbol(symbol, &base, &size)) return e;
  if (offset > size || count > size - offset) return rt.record(cudaErrorInvalidValue);
  void* device = reinterpret_cast<void*>(base + offset);
  if (to_symbol) {
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
        kind != cudaMemcpyDefault)
      return rt.record(cudaErrorInvalidMemcpyDirection);
    return rt.copy({device, count, host, count, count, 1, cudaMemcpyDefault}, stream, synchronous);
  }
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault)
    return rt.record(cudaErrorInvalidMemcpyDirection);
  return rt.copy({host, count, device, count, count, 1, cudaMemcpyDefault}, stream, synchronous);
}

}  // namespace

extern "C" {

cudaError_t cudaMalloc(void** ptr, std::size_t bytes) {
  CUDART_ENTER_STICKY();
  CUDART_CAPTURE_UNSAFE();
  return rt.malloc_device(ptr, bytes, rt.current_device());
}

cudaError_t cudaFree(void* ptr) {
  CUDART_ENTER_STICKY();
  CUDART_CAPTURE_UNSAFE();
  return rt.free(ptr, MemoryKind::Device);
}

cudaError_t cudaMallocHost(void** ptr, std::size_t bytes) {
  CUDART_ENTER_STICKY();
  CUDART_CAPTURE_UNSAFE();
  return rt.malloc_host(ptr, bytes, MemoryKind::Host);
}

cudaError_t cudaHostAlloc(void** ptr, std::size_t bytes, unsigned flags) {
  CUDART_ENTER_STICKY();
  CUDART_CAPTURE_UNSAFE();
  if (flags & ~0x7u) return rt.record(cudaErrorInvalidValue);
  return rt.malloc_host(ptr, bytes, MemoryKind::Host);
}

cudaError_t cudaFreeHost(void* ptr) {
  CUDART_ENTER_STICKY();
  CUDART_CAPTURE_UNSAFE();
  return rt.free(ptr, MemoryKind::Host);
}

cudaError_t cudaHostRegister(void* ptr, std::size_t bytes, unsigned) {
  CUDART_ENTER_STICKY();
  CUDART_CAPTURE_UNSAFE();
  return rt.register_host(ptr, bytes);
}

cudaError_t cudaHostUnregister(void* ptr) {
  CUDART_ENTER_STICKY();
  CUDART_CAPTURE_UNSAFE();
  return rt.free(ptr, MemoryKind::Registered);
}

// Unified addressing: a mapped host pointer is its own device pointer.
cudaError_t cudaHostGetDevicePointer(void** device, void* host, unsigned flags) {
  CUDART_ENTER_STICKY();
  const MemoryKind k = rt.kind_of(host, nullptr);
  if (!device || flags != 0 || (k != MemoryKind::Host && k != MemoryKind::Registered))
    return rt.record(cudaErrorInvalidValue);
  *device = host;
  return cudaSuccess;
}

cudaError_t cudaMallocManaged(void** ptr, std::size_t bytes, unsigned flags) {
  CUDART_ENTER_STICKY();
  CUDART_CAPTURE_UNSAFE();
  if (bytes == 0 || (flags != 1 && flags != 2)) return rt.record(cudaErrorInvalidValue);
  return rt.malloc_host(ptr, bytes, MemoryKind::Managed);
}

cudaError_t cudaMallocPitch(void** ptr, std::size_t* pitch, std::size_t width, std::size_t height) {
  CUDART_ENTER_STICKY();
  CUDART_CAPTURE_UNSAFE();
  if (!pitch) return rt.record(cudaErrorInvalidValue);
  *pitch = (width + 511) / 512 * 512;  // rows aligned like the hardware's texture pitch
  return rt.malloc_device(ptr, *pitch * height, rt.current_device());
}

cudaError_t cudaMalloc3D(cudaPitchedPtr* p, cudaExtent e) {
  CUDART_ENTER_STICKY();
  CUDART_CAPTURE_UNSAFE();
  if (!p) return rt.record(cudaErrorInvalidValue);
  p->pitch = (e.width + 511) / 512 * 512;
  p->xsize = e.width;
  p->ysize = e.height;
  return rt.malloc_device(&p->ptr, p->pitch * e.height * e.depth, rt.current_device());
}

cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream) {
  CUDART_ENTER_STICKY();
  return rt.free_async(ptr, stream);
}

cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total) {
  CUDART_ENTER_STICKY();
  const DeviceState& d = rt.device(rt.current_device());
  if (free_bytes) *free_bytes = d.desc.memory_bytes - d.allocated;
  if (total) *total = d.desc.memory_bytes;
  return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* a, const void* ptr) {
  CUDART_ENTER_STICKY();
  if (!a) return rt.record(cudaErrorInvalidValue);
  std::memset(a, 0, sizeof *a);
  int device = cudaCpuDeviceId;
  switch (rt.kind_of(ptr, &device)) {
    case MemoryKind::Device:
    case MemoryKind::Array:
      a->type = cudaMemoryTypeDevice;
      a->devicePointer = const_cast<void*>(ptr);
      break;
    case MemoryKind::Managed:
      a->type = cudaMemoryTypeManaged;
      a->devicePointer = a->hostPointer = const_cast<void*>(ptr);
      break;
    case MemoryKind::Host:
    case MemoryKind::Registered:
      a->type = cudaMemoryTypeHost;
      a->devicePointer = a->hostPointer = const_cast<void*>(ptr);
      break;
    case MemoryKind::Pageable:
      a->type = cudaMemoryTypeUnregistered;
      a->hostPointer = const_cast<void*>(ptr);
      device = cudaCpuDeviceId;
      break;
  }
  a->device = device;
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t n, cudaMemcpyKind kind) {
  CUDART_ENTER_STICKY();
  return rt.copy({dst, n, src, n, n, 1, kind}, nullptr, true);
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t n, cudaMemcpyKind kind,
                            cudaStream_t stream) {
  CUDART_ENTER_STICKY();
  return rt.copy({dst, n, src, n, n, 1, kind}, stream, false);
}

cudaError_t cudaMemcpy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                         std::size_t width, std::size_t height, cudaMemcpyKind kind) {
  CUDART_ENTER_STICKY();
  return rt.copy({dst, dpitch, src, spitch, width, height, kind}, nullptr, true);
}

cudaError_t cudaMemcpy2DAsync(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                              std::size_t width, std::size_t height, cudaMemcpyKind kind,
                              cudaStream_t stream) {
  CUDART_ENTER_STICKY();
  return rt.copy({dst, dpitch, src, spitch, width, height, kind}, stream, false);
}

cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p) {
  CUDART_ENTER_STICKY();
  return copy_3d(rt, p, nullptr, true);
}

cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t stream) {
  CUDART_ENTER_STICKY();
  return copy_3d(rt, p, stream, false);
}

cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device,
                           std::size_t n) {
  CUDART_ENTER_STICKY();
  return rt.peer_copy(dst, dst_device, src, src_device, n, nullptr, true);
}

cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device,
                                std::size_t n, cudaStream_t stream) {
  CUDART_ENTER_STICKY();
  return rt.peer_copy(dst, dst_device, src, src_device, n, stream, false);
}

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, std::size_t count,
                               std::size_t offset, cudaMemcpyKind kind) {
  CUDART_ENTER_STICKY();
  return symbol_copy(rt, symbol, count, offset, const_cast<void*>(src), true, kind, nullptr, true);
}

cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, std::size_t count,
                                 std::size_t offset, cudaMemcpyKind kind) {
  CUDART_ENTER_STICKY();
  return symbol_copy(rt, symbol, count, offset, dst, false, kind, nullptr, true);
}

cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, std::size_t count,
                                    std::size_t offset, cudaMemcpyKind kind, cudaStream_t stream) {
  CUDART_ENTER_STICKY();
  return symbol_copy(rt, symbol, count, offset, const_cast<void*>(src), true, kind, stream, false);
}

cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, std::size_t count,
                                      std::size_t offset, cudaMemcpyKind kind,
                                      cudaStream_t stream) {
  CUDART_ENTER_STICKY();
  return symbol_copy(rt, symbol, count, offset, dst, false, kind, stream, false);
}

cudaError_t cudaGetSymbolAddress(void** ptr, const void* symbol) {
  CUDART_ENTER_STICKY();
  std::uint64_t a = 0;
  std::size_t size = 0;
  if (!ptr) return rt.record(cudaErrorInvalidValue);
  if (const cudaError_t e = rt.symbol(symbol, &a, &size)) return e;
  *ptr = reinterpret_cast<void*>(a);
  return cudaSuccess;
}

cudaError_t cudaGetSymbolSize(std::size_t* size, const void* symbol) {
  CUDART_ENTER_STICKY();
  std::uint64_t a = 0;
  if (!size) return rt.record(cudaErrorInvalidValue);
  return rt.symbol(symbol, &a, size);
}

cudaError_t cudaMemset(void* dst, int value, std::size_t n) {
  CUDART_ENTER_STICKY();
  return rt.memset(dst, n, value, n, 1, 1, nullptr, false);
}

cudaError_t cudaMemsetAsync(void* dst, int value, std::size_t n, cudaStream_t stream) {
  CUDART_ENTER_STICKY();
  return rt.memset(dst, n, value, n, 1, 1, stream, false);
}

cudaError_t cudaMemset2D(void* dst, std::size_t pitch, int value, std::size_t width,
                         std::size_t height) {
  CUDART_ENTER_STICKY();
  return rt.memset(dst, pitch, value, width, height, 1, nullptr, false);
}

cudaError_t cudaMemset2DAsync(void* dst, std::size_t pitch, int value, std::size_t width,
                              std::size_t height, cudaStream_t stream) {
  CUDART_ENTER_STICKY();
  return rt.memset(dst, pitch, value, width, height, 1, stream, false);
}

cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f) {
  return {x, y, z, w, f};
}

cudaError_t cudaMallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc,
                            std::size_t width, std::size_t height, unsigned flags) {
  CUDART_ENTER_STICKY();
  CUDART_CAPTURE_UNSAFE();
  if (!array || !desc || width == 0) return rt.record(cudaErrorInvalidValue);
  const int bits = desc->x + desc->y + desc->z + desc->w;
  if (bits == 0 || bits % 8 != 0) return rt.record(cudaErrorInvalidChannelDescriptor);
  *array = reinterpret_cast<cudaArray_t>(rt.make_array(*desc, width, height, 0, flags));
  return cudaSuccess;
}

cudaError_t cudaMalloc3DArray(cudaArray_t* array, const cudaChannelFormatDesc* desc,
                              cudaExtent extent, unsigned flags) {
  CUDART_ENTER_STICKY();
  CUDART_CAPTURE_UNSAFE();
  if (!array || !desc || extent.width == 0) return rt.record(cudaErrorInvalidValue);
  const int bits = desc->x + desc->y + desc->z + desc->w;
  if (bits == 0 || bits % 8 != 0) return rt.record(cudaErrorInvalidChannelDescriptor);
  if ((flags & cudaArrayLayered) && extent.depth == 0) return rt.record(cudaErrorInvalidValue);
  // A cube map has six square faces; a layered one six per cube map.
  if ((flags & cudaArrayCubemap) &&
      (extent.width != extent.height || extent.depth == 0 ||
       ((flags & cudaArrayLayered) ? extent.depth % 6 != 0 : extent.depth != 6)))
    return rt.record(cudaErrorInvalidValue);
  *array = reinterpret_cast<cudaArray_t>(
      rt.make_array(*desc, extent.width, extent.height, extent.depth, flags));
  return cudaSuccess;
}

cudaError_t cudaFreeArray(cudaArray_t array) {
  CUDART_ENTER_STICKY();
  CUDART_CAPTURE_UNSAFE();
  return rt.free_array(array);
}

cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc* desc, cudaExtent* extent, unsigned* flags,
                             cudaArray_t handle) {
  CUDART_ENTER_STICKY();
  const Array* a = rt.array(handle);
  if (!a) return rt.record(cudaErrorInvalidResourceHandle);
  if (desc) *desc = a->desc;
  if (extent) *extent = {a->width, a->height, a->depth};
  if (flags) *flags = a->flags;
  return cudaSuccess;
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, std::size_t w_offset, std::size_t h_offset,
                                const void* src, std::size_t spitch, std::size_t width,
                                std::size_t height, cudaMemcpyKind kind) {
  CUDART_ENTER_STICKY();
  const Array* a = rt.array(dst);
  if (!a) return rt.record(cudaErrorInvalidResourceHandle);
  if (w_offset + width > a->row_bytes() || h_offset + height > std::max<std::size_t>(a->height, 1))
    return rt.record(cudaErrorInvalidValue);
  return rt.copy(
      {array_at(*a, w_offset, h_offset, 0), a->row_bytes(), src, spitch, width, height, kind},
      nullptr, true);
}

cudaError_t cudaMemcpy2DFromArray(void* dst, std::size_t dpitch, cudaArray_const_t src,
                                  std::size_t w_offset, std::size_t h_offset, std::size_t width,
                                  std::size_t height, cudaMemcpyKind kind) {
  CUDART_ENTER_STICKY();
  const Array* a = rt.array(src);
  if (!a) return rt.record(cudaErrorInvalidResourceHandle);
  if (w_offset + width > a->row_bytes() || h_offset + height > std::max<std::size_t>(a->height, 1))
    return rt.record(cudaErrorInvalidValue);
  return rt.copy(
      {dst, dpitch, array_at(*a, w_offset, h_offset, 0), a->row_bytes(), width, height, kind},
      nullptr, true);
}

cudaError_t cudaMemcpyToArray(cudaArray_t dst, std::size_t w_offset, std::size_t h_offset,
                              const void* src, std::size_t count, cudaMemcpyKind kind) {
  CUDART_ENTER_STICKY();
  const Array* a = rt.array(dst);
  if (!a) return rt.record(cudaErrorInvalidResourceHandle);
  const std::size_t start = h_offset * a->row_bytes() + w_offset;
  const std::size_t total =
      a->row_bytes() * std::max<std::size_t>(a->height, 1) * std::max<std::size_t>(a->depth, 1);
  if (start > total || count > total - start) return rt.record(cudaErrorInvalidValue);
  return rt.copy({reinterpret_cast<void*>(a->base + start), count, src, count, count, 1, kind},
                 nullptr, true);
}

// Managed memory lives in host memory the device reaches directly, so there
// is nothing to migrate: prefetches and advice are accepted and change nothing.
cudaError_t cudaMemPrefetchAsync(const void* ptr, std::size_t, ...) {
  CUDART_ENTER_STICKY();
  if (rt.kind_of(ptr, nullptr) != MemoryKind::Managed) return rt.record(cudaErrorInvalidValue);
  return cudaSuccess;
}

cudaError_t cudaMemAdvise(const void* ptr, std::size_t, ...) {
  CUDART_ENTER_STICKY();
  if (rt.kind_of(ptr, nullptr) != MemoryKind::Managed) return rt.record(cudaErrorInvalidValue);
  return cudaSuccess;
}

}  // extern "C"

CUDART_PER_THREAD(_ptds, cudaError_t, cudaMemcpy,
                  (void* dst, const void* src, std::size_t n, cudaMemcpyKind kind),
                  (dst, src, n, kind))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaMemcpyAsync,
                  (void* dst, const void* src, std::size_t n, cudaMemcpyKind kind,
                   cudaStream_t stream),
                  (dst, src, n, kind, stream))
CUDART_PER_THREAD(_ptds, cudaError_t, cudaMemcpy2D,
                  (void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                   std::size_t width, std::size_t height, cudaMemcpyKind kind),
                  (dst, dpitch, src, spitch, width, height, kind))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaMemcpy2DAsync,
                  (void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                   std::size_t width, std::size_t height, cudaMemcpyKind kind, cudaStream_t stream),
                  (dst, dpitch, src, spitch, width, height, kind, stream))
CUDART_PER_THREAD(_ptds, cudaError_t, cudaMemcpy3D, (const cudaMemcpy3DParms* p), (p))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaMemcpy3DAsync,
                  (const cudaMemcpy3DParms* p, cudaStream_t stream), (p, stream))
CUDART_PER_THREAD(_ptds, cudaError_t, cudaMemcpyPeer,
                  (void* dst, int dd, const void* src, int sd, std::size_t n),
                  (dst, dd, src, sd, n))
CUDART_PER_THREAD(_ptds, cudaError_t, cudaMemcpyToSymbol,
                  (const void* symbol, const void* src, std::size_t count, std::size_t offset,
                   cudaMemcpyKind kind),
                  (symbol, src, count, offset, kind))
CUDART_PER_THREAD(_ptds, cudaError_t, cudaMemcpyFromSymbol,
                  (void* dst, const void* symbol, std::size_t count, std::size_t offset,
                   cudaMemcpyKind kind),
                  (dst, symbol, count, offset, kind))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaMemcpyToSymbolAsync,
                  (const void* symbol, const void* src, std::size_t count, std::size_t offset,
                   cudaMemcpyKind kind, cudaStream_t stream),
                  (symbol, src, count, offset, kind, stream))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaMemcpyFromSymbolAsync,
                  (void* dst, const void* symbol, std::size_t count, std::size_t offset,
                   cudaMemcpyKind kind, cudaStream_t stream),
                  (dst, symbol, count, offset, kind, stream))
CUDART_PER_THREAD(_ptds, cudaError_t, cudaMemset, (void* dst, int value, std::size_t n),
                  (dst, value, n))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaMemsetAsync,
                  (void* dst, int value, std::size_t n, cudaStream_t stream),
                  (dst, value, n, stream))
CUDART_PER_THREAD(_ptds, cudaError_t, cudaMemset2D,
                  (void* dst, std::size_t pitch, int value, std::size_t width, std::size_t height),
                  (dst, pitch, value, width, height))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaMemset2DAsync,
                  (void* dst, std::size_t pitch, int value, std::size_t width, std::size_t height,
                   cudaStream_t stream),
                  (dst, pitch, value, width, height, stream))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaFreeAsync, (void* ptr, cudaStream_t stream),
                  (ptr, stream))
CUDART_PER_THREAD(_ptds, cudaError_t, cudaMemcpy2DToArray,
                  (cudaArray_t dst, std::size_t wo, std::size_t ho, const void* src,
                   std::size_t spitch, std::size_t width, std::size_t height, cudaMemcpyKind kind),
                  (dst, wo, ho, src, spitch, width, height, kind))
CUDART_PER_THREAD(_ptds, cudaError_t, cudaMemcpy2DFromArray,
                  (void* dst, std::size_t dpitch, cudaArray_const_t src, std::size_t wo,
                   std::size_t ho, std::size_t width, std::size_t height, cudaMemcpyKind kind),
                  (dst, dpitch, src, wo, ho, width, height, kind))
CUDART_PER_THREAD(_ptds, cudaError_t, cudaMemcpyToArray,
                  (cudaArray_t dst, std::size_t wo, std::size_t ho, const void* src,
                   std::size_t count, cudaMemcpyKind kind),
                  (dst, wo, ho, src, count, kind))
