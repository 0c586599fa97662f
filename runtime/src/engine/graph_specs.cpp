// Node specs from the program's parameters, checked as the runtime checks
// the calls that issue the same work, and the parameters read back.
#include <algorithm>
#include <cstring>

#include "engine/graph.h"
#include "ptx/ir.h"

namespace cnuas::cuda {

const void* host_function(const Kernel* k) {
  for (const auto& [host, kernel] : Registrations::get().kernels)
    if (&kernel == k) return host;
  return k;
}

cudaError_t kernel_spec(Runtime& rt, Kernel* k, dim3 grid, dim3 block, unsigned shared, void** args,
                        void** extra, NodeSpec* out) {
  const ptx::Function* f = k ? rt.function(*k) : nullptr;
  if (!f) return cudaErrorInvalidDeviceFunction;
  std::vector<std::uint8_t> params(f->param_bytes);
  if (args && extra) return cudaErrorInvalidValue;
  if (args) {
    for (std::size_t i = 0; i < f->params.size(); ++i)
      std::memcpy(params.data() + f->params[i].offset, args[i], f->params[i].size);
  } else if (extra) {
    // CU_LAUNCH_PARAM_BUFFER_POINTER (1), _SIZE (2), ended by _END (0).
    const void* buffer = nullptr;
    std::size_t size = 0;
    for (void** e = extra; *e; e += 2) {
      const auto tag = reinterpret_cast<std::uintptr_t>(e[0]);
      if (tag == 1)
        buffer = e[1];
      else if (tag == 2)
        size = *static_cast<std::size_t*>(e[1]);
      else
        return cudaErrorInvalidValue;
    }
    if (!buffer) return cudaErrorInvalidValue;
    const auto* bytes = static_cast<const std::uint8_t*>(buffer);
    params.assign(bytes, bytes + size);
  } else if (!f->params.empty()) {
    return cudaErrorInvalidValue;
  }
  NodeSpec s;
  s.type = NodeType::Kernel;
  s.kernel = k;
  s.launch.grid = grid;
  s.launch.block = block;
  s.launch.shared = shared;
  s.device = rt.current_device();
  if (const cudaError_t e = rt.check_launch(*k, s.launch, params, s.device)) return e;
  s.params = std::move(params);
  *out = std::move(s);
  return cudaSuccess;
}

namespace {

// A pointer into an array at (x bytes, y row, z slice).
void* array_at(const Array& a, std::size_t x_bytes, std::size_t y, std::size_t z) {
  return reinterpret_cast<void*>(a.base + x_bytes +
                                 (y + z * std::max<std::size_t>(a.height, 1)) * a.row_bytes());
}

}  // namespace

// A 3D copy as one row copy per slice, as cudaMemcpy3D makes it.
cudaError_t copy_spec(Runtime& rt, const cudaMemcpy3DParms& p, NodeSpec* out) {
  if ((p.srcArray && p.srcPtr.ptr) || (p.dstArray && p.dstPtr.ptr)) return cudaErrorInvalidValue;
  const Array* sa = p.srcArray ? rt.array(p.srcArray) : nullptr;
  const Array* da = p.dstArray ? rt.array(p.dstArray) : nullptr;
  if ((p.srcArray && !sa) || (p.dstArray && !da)) return cudaErrorInvalidResourceHandle;
  const unsigned texel = sa ? sa->texel_bytes() : da ? da->texel_bytes() : 1;
  const std::size_t width = p.extent.width * texel;
  const std::size_t height = std::max<std::size_t>(p.extent.height, 1);
  const std::size_t depth = std::max<std::size_t>(p.extent.depth, 1);
  NodeSpec s;
  s.type = NodeType::Memcpy;
  s.copy3d = p;
  s.has_copy3d = true;
  s.device = rt.current_device();
  for (std::size_t z = 0; z < depth; ++z) {
    Runtime::Copy c{};
    if (da) {
      c.dst = array_at(*da, p.dstPos.x * texel, p.dstPos.y, p.dstPos.z + z);
      c.dst_pitch = da->row_bytes();
    } else {
      c.dst = static_cast<char*>(p.dstPtr.ptr) + p.dstPos.x +
              (p.dstPos.y + (p.dstPos.z + z) * p.dstPtr.ysize) * p.dstPtr.pitch;
      c.dst_pitch = p.dstPtr.pitch;
    }
    if (sa) {
      c.src = array_at(*sa, p.srcPos.x * texel, p.srcPos.y, p.srcPos.z + z);
      c.src_pitch = sa->row_bytes();
    } else {
      c.src = static_cast<const char*>(p.srcPtr.ptr) + p.srcPos.x +
              (p.srcPos.y + (p.srcPos.z + z) * p.srcPtr.ysize) * p.srcPtr.pitch;
      c.src_pitch = p.srcPtr.pitch;
    }
    c.width = width;
    c.height = height;
    c.kind = p.kind;
    if (const cudaError_t e = rt.check_copy(c)) return e;
    if (c.width == 0) return cudaErrorInvalidValue;  // a copy node copies something
    s.copies.push_back(c);
  }
  *out = std::move(s);
  return cudaSuccess;
}

cudaError_t copy_1d_spec(Runtime& rt, void* dst, const void* src, std::size_t bytes, int kind,
                         NodeSpec* out) {
  const Runtime::Copy c{dst, bytes, src, bytes, bytes, 1, kind};
  if (const cudaError_t e = rt.check_copy(c)) return e;
  if (bytes == 0) return cudaErrorInvalidValue;
  NodeSpec s;
  s.type = NodeType::Memcpy;
  s.copies = {c};
  s.device = rt.current_device();
  *out = std::move(s);
  return cudaSuccess;
}

cudaError_t memset_spec(Runtime& rt, const MemsetSpec& m, NodeSpec* out) {
  if (m.element_bytes != 1 && m.element_bytes != 2 && m.element_bytes != 4)
    return cudaErrorInvalidValue;
  if (m.height > 1 && m.pitch < m.width * m.element_bytes) return cudaErrorInvalidValue;
  if (m.width == 0 || m.height == 0) return cudaErrorInvalidValue;
  const std::size_t pitch = m.height > 1 ? m.pitch : m.width * m.element_bytes;
  if (const cudaError_t e = rt.check_memset(m.dst, pitch, m.width, m.height, m.element_bytes))
    return e;
  NodeSpec s;
  s.type = NodeType::Memset;
  s.memset = m;
  s.memset.pitch = pitch;
  s.device = rt.current_device();
  *out = std::move(s);
  return cudaSuccess;
}

void** kernel_arg_pointers(Runtime& rt, GraphNode& node) {
  const ptx::Function* f = rt.function(*node.spec.kernel);
  node.arg_copy = node.spec.params;
  node.arg_pointers.clear();
  for (const ptx::Param& p : f->params)
    node.arg_pointers.push_back(node.arg_copy.data() + p.offset);
  return node.arg_pointers.empty() ? nullptr : node.arg_pointers.data();
}

cudaMemcpy3DParms copy_params_of(const NodeSpec& s) {
  if (s.has_copy3d || s.copies.empty()) return s.copy3d;
  const Runtime::Copy& c = s.copies.front();
  cudaMemcpy3DParms p{};
  p.srcPtr = {const_cast<void*>(c.src), c.src_pitch, c.width, c.height};
  p.dstPtr = {c.dst, c.dst_pitch, c.width, c.height};
  p.extent = {c.width, c.height, 1};
  p.kind = static_cast<cudaMemcpyKind>(c.kind);
  return p;
}

}  // namespace cnuas::cuda
