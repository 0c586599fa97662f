// Texture and surface objects over linear memory, pitched memory and arrays
// (1D, 2D, 3D, layered and cube maps).
#include "cudart/entry.h"

using namespace cnuas::cuda;
namespace ptx = cnuas::ptx;

namespace {

// Fills the texel format from a channel descriptor; false when CUDA would reject it.
bool texel_format(const cudaChannelFormatDesc& c, ptx::TextureDescriptor& d) {
  const int sizes[4] = {c.x, c.y, c.z, c.w};
  unsigned channels = 0;
  for (int s : sizes) {
    if (s == 0) break;
    if (s != c.x) return false;
    ++channels;
  }
  if (channels == 0 || channels == 3) return false;
  if (c.x != 8 && c.x != 16 && c.x != 32) return false;
  d.channels = channels;
  d.channel_bits = static_cast<unsigned>(c.x);
  switch (c.f) {
    case cudaChannelFormatKindSigned:
      d.kind = ptx::ChannelKind::Signed;
      return true;
    case cudaChannelFormatKindUnsigned:
      d.kind = ptx::ChannelKind::Unsigned;
      return true;
    case cudaChannelFormatKindFloat:
      d.kind = ptx::ChannelKind::Float;
      return c.x != 8;
    default:
      return false;
  }
}

cudaError_t describe_resource(Runtime& rt, const cudaResourceDesc& r, ptx::TextureDescriptor& d,
                              bool surface) {
  switch (r.resType) {
    case cudaResourceTypeArray: {
      const Array* a = rt.array(r.res.array.array);
      if (!a) return cudaErrorInvalidResourceHandle;
      if (surface && !(a->flags & cudaArraySurfaceLoadStore)) return cudaErrorInvalidValue;
      if (!texel_format(a->desc, d)) return cudaErrorInvalidChannelDescriptor;
      d.base = a->base;
      d.width = static_cast<std::uint32_t>(a->width);
      d.pitch = a->row_bytes();
      if (a->flags & cudaArrayCubemap) {  // faces are 2D layers (+x -x +y -y +z -z)
        d.cube = d.layered = true;
        d.dims = 2;
        d.height = static_cast<std::uint32_t>(a->height);
        d.layers = static_cast<std::uint32_t>(a->depth);
      } else if (a->flags & cudaArrayLayered) {
        d.layered = true;
        d.dims = a->height ? 2 : 1;
        d.height = static_cast<std::uint32_t>(std::max<std::size_t>(a->height, 1));
        d.layers = static_cast<std::uint32_t>(a->depth);
      } else {
        d.dims = a->depth ? 3 : a->height ? 2 : 1;
        d.height = static_cast<std::uint32_t>(std::max<std::size_t>(a->height, 1));
        d.depth = static_cast<std::uint32_t>(std::max<std::size_t>(a->depth, 1));
      }
      return cudaSuccess;
    }
    case cudaResourceTypeLinear: {
      if (surface) return cudaErrorInvalidValue;
      if (!texel_format(r.res.linear.desc, d)) return cudaErrorInvalidChannelDescriptor;
      if (!rt.memory().find(reinterpret_cast<std::uint64_t>(r.res.linear.devPtr),
                            r.res.linear.sizeInBytes))
        return cudaErrorInvalidValue;
      d.base = reinterpret_cast<std::uint64_t>(r.res.linear.devPtr);
      d.dims = 1;
      d.width = static_cast<std::uint32_t>(r.res.linear.sizeInBytes / d.texel_bytes());
      return cudaSuccess;
    }
    case cudaResourceTypePitch2D: {
      if (surface) return cudaErrorInvalidValue;
      const auto& p = r.res.pitch2D;
      if (!texel_format(p.desc, d)) return cudaErrorInvalidChannelDescriptor;
      if (p.pitchInBytes < p.width * d.texel_bytes() ||
          !rt.memory().find(reinterpret_cast<std::uint64_t>(p.devPtr), p.pitchInBytes * p.height))
        return cudaErrorInvalidValue;
      d.base = reinterpret_cast<std::uint64_t>(p.devPtr);
      d.dims = 2;
      d.width = static_cast<std::uint32_t>(p.width);
      d.height = static_cast<std::uint32_t>(p.height);
      d.pitch = p.pitchInBytes;
      return cudaSuccess;
    }
    default:
      return cudaErrorNotSupported;  // mipmapped arrays
  }
}

}  // namespace

extern "C" {

cudaError_t cudaCreateTextureObject(cudaTextureObject_t* object, const cudaResourceDesc* res,
                                    const cudaTextureDesc* tex, const void* view) {
  CUDART_ENTER_STICKY();
  if (!object || !res || !tex) return rt.record(cudaErrorInvalidValue);
  if (view) return rt.unsupported("cudaCreateTextureObject with a resource view");
  ptx::TextureDescriptor d;
  if (const cudaError_t e = describe_resource(rt, *res, d, false)) {
    if (e == cudaErrorNotSupported) return rt.unsupported("mipmapped array textures");
    return rt.record(e);
  }
  for (int i = 0; i < 3; ++i) d.address[i] = static_cast<ptx::AddressMode>(tex->addressMode[i]);
  d.filter =
      tex->filterMode == cudaFilterModeLinear ? ptx::FilterMode::Linear : ptx::FilterMode::Point;
  if (d.filter == ptx::FilterMode::Linear && d.kind != ptx::ChannelKind::Float &&
      tex->readMode != cudaReadModeNormalizedFloat)
    return rt.record(cudaErrorInvalidFilterSetting);
  d.normalized_read = tex->readMode == cudaReadModeNormalizedFloat &&
                      d.kind != ptx::ChannelKind::Float && d.channel_bits < 32;
  d.normalized_coords = tex->normalizedCoords != 0;
  for (int i = 0; i < 4; ++i) d.border[i] = tex->borderColor[i];
  *object = rt.textures().create(d);
  return cudaSuccess;
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t object) {
  CUDART_ENTER_STICKY();
  return rt.destroy_texture(object) ? cudaSuccess : rt.record(cudaErrorInvalidValue);
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t* object, const cudaResourceDesc* res) {
  CUDART_ENTER_STICKY();
  if (!object || !res) return rt.record(cudaErrorInvalidValue);
  ptx::TextureDescriptor d;
  if (const cudaError_t e = describe_resource(rt, *res, d, true)) return rt.record(e);
  *object = rt.textures().create(d);
  return cudaSuccess;
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t object) {
  CUDART_ENTER_STICKY();
  return rt.destroy_texture(object) ? cudaSuccess : rt.record(cudaErrorInvalidValue);
}

}  // extern "C"
