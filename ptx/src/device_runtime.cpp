#include "device_runtime.h"

#include <cstring>
#include <set>
#include <string>

#include "ptx/device_runtime.h"

namespace cnuas::ptx {
namespace {

using u64 = std::uint64_t;

// nvcc calls the device runtime through __cudaCDP2-prefixed names; the
// unprefixed cuda* names are the same functions.
std::string canonical(const std::string& name) {
  static const std::string cdp2 = "__cudaCDP2", cuda = "cuda";
  if (name.compare(0, cdp2.size(), cdp2) == 0) return name.substr(cdp2.size());
  if (name.compare(0, cuda.size(), cuda) == 0) return name.substr(cuda.size());
  return {};
}

const std::set<std::string>& device_runtime_functions() {
  static const std::set<std::string> names{
      "GetParameterBuffer",
      "GetParameterBufferV2",
      "LaunchDevice",
      "LaunchDevice_ptsz",
      "LaunchDeviceV2",
      "LaunchDeviceV2_ptsz",
      "GetLastError",
      "PeekAtLastError",
      "StreamCreateWithFlags",
      "StreamDestroy",
      "StreamWaitEvent",
      "StreamWaitEvent_ptsz",
      "EventCreateWithFlags",
      "EventRecord",
      "EventRecord_ptsz",
      "EventRecordWithFlags",
      "EventRecordWithFlags_ptsz",
      "EventDestroy",
      "GetDevice",
      "GetDeviceCount",
      "RuntimeGetVersion",
      "Malloc",
      "Free",
      "MemcpyAsync",
      "MemcpyAsync_ptsz",
      "MemsetAsync",
      "MemsetAsync_ptsz",
  };
  return names;
}

// The bytes of argument k of the call in lane l's stack.
std::uint8_t* arg(Ctx& c, const Instruction& call, unsigned lane, std::size_t k) {
  const Operand& args = call.ops[2];
  if (k >= args.regs.size()) c.fault(lane, call, "device runtime called with too few arguments");
  return c.lane_stack(lane) + c.frame.stack_base + call_params_offset(*c.frame.fn) +
         static_cast<std::uint32_t>(args.regs[k]);
}

template <class T>
T arg_as(Ctx& c, const Instruction& call, unsigned lane, std::size_t k) {
  T v;
  std::memcpy(&v, arg(c, call, lane, k), sizeof v);
  return v;
}

Dim3 arg_dim3(Ctx& c, const Instruction& call, unsigned lane, std::size_t k) {
  std::uint32_t d[3];
  std::memcpy(d, arg(c, call, lane, k), sizeof d);
  return {d[0], d[1], d[2]};
}

void put_return(Ctx& c, const Instruction& call, unsigned lane, u64 value, unsigned bytes) {
  const Operand& rets = call.ops[0];
  if (rets.regs.empty()) return;
  std::memcpy(c.lane_stack(lane) + c.frame.stack_base + call_params_offset(*c.frame.fn) +
                  static_cast<std::uint32_t>(rets.regs[0]),
              &value, bytes);
}

// `n` bytes at a generic address as the lane sees it (its stack, its CTA's shared
// memory, device memory); faults when they are not there.
std::uint8_t* generic(Ctx& c, const Instruction& call, unsigned lane, u64 a, u64 n) {
  std::uint8_t* p = nullptr;
  if (a >= kLocalWindow && a < kLocalWindow + kWindowSize) {
    const u64 off = a - kLocalWindow;
    if (!c.w.stack.empty() && off + n <= c.s.config->stack_bytes) p = c.lane_stack(lane) + off;
  } else if (a >= kSharedWindow && a < kSharedWindow + kWindowSize) {
    const u64 off = a - kSharedWindow;
    if (off + n <= c.s.shared.size()) p = c.s.shared.data() + off;
  } else {
    p = c.s.memory->find(a, n);
  }
  if (!p) c.fault(lane, call, "device runtime call passes an address outside memory");
  return p;
}

std::pair<u64, std::uint32_t> thread_key(Ctx& c, unsigned lane) {
  const Dim3 g = c.s.config->grid, b = c.s.cta;
  return {b.x + u64{g.x} * (b.y + u64{g.y} * b.z), c.w.index * 32 + lane};
}

std::uint32_t fail(Ctx& c, unsigned lane, std::uint32_t error) {
  c.s.config->device_launches->last_error[thread_key(c, lane)] = error;
  return error;
}

bool valid_shape(const DeviceWork& k) {
  const u64 threads = k.block.count();
  return threads > 0 && threads <= 1024 && k.block.z <= 64 && k.grid.count() > 0 &&
         k.grid.y <= 65535 && k.grid.z <= 65535 && k.grid.x <= 2147483647u;
}

// Queues a kernel whose parameters are in the buffer at `buffer`.
std::uint32_t launch(Ctx& c, const Instruction& call, unsigned lane, u64 buffer, u64 stream) {
  DeviceLaunches& d = *c.s.config->device_launches;
  auto p = d.pending.find(buffer);
  if (p == d.pending.end()) return fail(c, lane, kDeviceInvalidValue);
  DeviceWork k = std::move(p->second);
  d.pending.erase(p);
  if (k.function >= c.s.module->module().functions.size()) {  // a buffer for cudaLaunchDevice
    c.s.memory->free(buffer);
    return fail(c, lane, kDeviceInvalidValue);
  }
  const Function& f = c.s.module->module().functions[k.function];
  k.params.resize(f.param_bytes);
  if (f.param_bytes)
    std::memcpy(k.params.data(), generic(c, call, lane, buffer, f.param_bytes), f.param_bytes);
  c.s.memory->free(buffer);
  k.stream = stream;
  if (!valid_shape(k)) return fail(c, lane, kDeviceInvalidConfiguration);
  if (d.depth + 1 > DeviceLaunches::kMaxDepth) return fail(c, lane, kDeviceLaunchMaxDepthExceeded);
  if (d.work.size() >= DeviceLaunches::kMaxPending)
    return fail(c, lane, kDeviceLaunchPendingCountExceeded);
  d.work.push_back(std::move(k));
  return kDeviceSuccess;
}

// A parameter buffer for a launch of the kernel at function address `fn`;
// 0 when `fn` is no kernel of this module.
u64 parameter_buffer(Ctx& c, unsigned lane, u64 fn, Dim3 grid, Dim3 block, std::uint32_t shared) {
  const auto& functions = c.s.module->module().functions;
  const u64 index = (fn - kFunctionAddressBase) / 16;
  if (fn < kFunctionAddressBase || (fn - kFunctionAddressBase) % 16 != 0 ||
      index >= functions.size() || !functions[index].is_entry || !functions[index].defined) {
    fail(c, lane, kDeviceInvalidDeviceFunction);
    return 0;
  }
  DeviceWork k;
  k.function = static_cast<std::size_t>(index);
  k.grid = grid;
  k.block = block;
  k.shared_bytes = shared;
  // CUDA aligns parameter buffers to 64 bytes.
  const u64 buffer = c.s.memory->allocate(std::max<u64>(functions[index].param_bytes, 1), 64);
  c.s.config->device_launches->pending[buffer] = std::move(k);
  return buffer;
}

}  // namespace

bool is_builtin_function(const std::string& name) {
  return name == "vprintf" || name == "malloc" || name == "free" || name == "__assertfail" ||
         name == "cudaGraphSetConditional" ||
         device_runtime_functions().count(canonical(name)) != 0;
}

bool call_device_runtime(Ctx& c, const Instruction& call, const Function& callee) {
  const std::string name = canonical(callee.name);
  if (!device_runtime_functions().count(name)) return false;
  DeviceLaunches* d = c.s.config->device_launches;
  if (!d)
    c.fault(static_cast<unsigned>(__builtin_ctz(c.mask)), call,
            "calls the device runtime's " + callee.name +
                ", but this launch does not take device-side launches");
  each_lane(c.mask, [&](unsigned l) {
    std::uint32_t error = kDeviceSuccess;
    if (name == "GetParameterBufferV2") {
      put_return(c, call, l,
                 parameter_buffer(c, l, arg_as<u64>(c, call, l, 0), arg_dim3(c, call, l, 1),
                                  arg_dim3(c, call, l, 2), arg_as<std::uint32_t>(c, call, l, 3)),
                 8);
      return;
    }
    if (name == "GetParameterBuffer") {
      // The older form: the kernel is named at launch (cudaLaunchDevice).
      const u64 size = arg_as<u64>(c, call, l, 1);
      const u64 buffer = c.s.memory->allocate(std::max<u64>(size, 1), 64);
      d->pending[buffer] = DeviceWork{};
      d->pending[buffer].function = ~std::size_t{0};
      put_return(c, call, l, buffer, 8);
      return;
    }
    if (name == "LaunchDeviceV2" || name == "LaunchDeviceV2_ptsz") {
      error = launch(c, call, l, arg_as<u64>(c, call, l, 0), arg_as<u64>(c, call, l, 1));
    } else if (name == "LaunchDevice" || name == "LaunchDevice_ptsz") {
      const u64 buffer = arg_as<u64>(c, call, l, 1);
      auto p = d->pending.find(buffer);
      if (p == d->pending.end()) {
        error = fail(c, l, kDeviceInvalidValue);
      } else {
        d->pending.erase(p);
        const u64 fresh =
            parameter_buffer(c, l, arg_as<u64>(c, call, l, 0), arg_dim3(c, call, l, 2),
                             arg_dim3(c, call, l, 3), arg_as<std::uint32_t>(c, call, l, 4));
        if (!fresh) {
          c.s.memory->free(buffer);
          error = kDeviceInvalidDeviceFunction;
        } else {
          // Move the arguments the thread wrote into the buffer the launch reads.
          const Function& f = c.s.module->module().functions[d->pending[fresh].function];
          if (f.param_bytes)
            std::memcpy(generic(c, call, l, fresh, f.param_bytes),
                        generic(c, call, l, buffer, f.param_bytes), f.param_bytes);
          c.s.memory->free(buffer);
          error = launch(c, call, l, fresh, arg_as<u64>(c, call, l, 5));
        }
      }
    } else if (name == "GetLastError" || name == "PeekAtLastError") {
      auto e = d->last_error.find(thread_key(c, l));
      error = e == d->last_error.end() ? kDeviceSuccess : e->second;
      if (name == "GetLastError" && e != d->last_error.end()) d->last_error.erase(e);
    } else if (name == "StreamCreateWithFlags" || name == "EventCreateWithFlags") {
      const u64 handle = d->next_handle++;
      std::memcpy(generic(c, call, l, arg_as<u64>(c, call, l, 0), 8), &handle, 8);
    } else if (name == "GetDevice") {
      std::memcpy(generic(c, call, l, arg_as<u64>(c, call, l, 0), 4), &d->device, 4);
    } else if (name == "GetDeviceCount") {
      std::memcpy(generic(c, call, l, arg_as<u64>(c, call, l, 0), 4), &d->device_count, 4);
    } else if (name == "RuntimeGetVersion") {
      const int version = 13000;
      std::memcpy(generic(c, call, l, arg_as<u64>(c, call, l, 0), 4), &version, 4);
    } else if (name == "Malloc") {
      const u64 bytes = arg_as<u64>(c, call, l, 1);
      const u64 p = bytes ? c.s.memory->allocate(bytes, 256) : 0;
      std::memcpy(generic(c, call, l, arg_as<u64>(c, call, l, 0), 8), &p, 8);
    } else if (name == "Free") {
      const u64 p = arg_as<u64>(c, call, l, 0);
      if (p) {
        try {
          c.s.memory->free(p);
        } catch (const std::exception&) {
          error = fail(c, l, kDeviceInvalidValue);
        }
      }
    } else if (name == "MemcpyAsync" || name == "MemcpyAsync_ptsz") {
      DeviceWork w;
      w.kind = DeviceWork::Kind::Copy;
      w.dst = arg_as<u64>(c, call, l, 0);
      w.src = arg_as<u64>(c, call, l, 1);
      w.bytes = arg_as<u64>(c, call, l, 2);
      w.stream = arg_as<u64>(c, call, l, 4);
      d->work.push_back(w);
    } else if (name == "MemsetAsync" || name == "MemsetAsync_ptsz") {
      DeviceWork w;
      w.kind = DeviceWork::Kind::Set;
      w.dst = arg_as<u64>(c, call, l, 0);
      w.value = static_cast<std::uint8_t>(arg_as<std::uint32_t>(c, call, l, 1));
      w.bytes = arg_as<u64>(c, call, l, 2);
      w.stream = arg_as<u64>(c, call, l, 3);
      d->work.push_back(w);
    }
    // Streams and events order nothing here: the launching grid's work runs in
    // launch order once the grid has run, which every stream order allows.
    put_return(c, call, l, error, 4);
  });
  return true;
}

}  // namespace cnuas::ptx
