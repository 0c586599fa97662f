// The simulated GPU runtime both libcudart.so.13 and libcuda.so.1 drive: the
// platform session and its devices, unified device memory, the modules nvcc
// embedded, kernel launches on the PTX engine, streams, events and errors.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/kernel/log.h"
#include "cuda_abi.h"
#include "engine/host_mappings.h"
#include "engine/kernel_capture.h"
#include "engine/timeline.h"
#include "fatbin.h"
#include "gpu/device.h"
#include "ptx/executor.h"
#include "ptx/memory.h"

namespace cnuas::cuda {

// What kind of memory an address is, for copies and pointer queries.
enum class MemoryKind { Device, Host, Managed, Registered, Array, Pageable };

// Memory another part of the engine manages (stream-ordered pools, virtual
// memory mappings, IPC mappings): cudaFree and cudaFreeAsync hand it over.
class MemoryOwner {
 public:
  virtual ~MemoryOwner() = default;
  // Frees the allocation at `base`; `stream` is null for cudaFree.
  virtual cudaError_t free(std::uint64_t base, Stream* stream) = 0;
};

struct Allocation {
  std::uint64_t base = 0, bytes = 0;
  int device = 0;
  MemoryKind kind = MemoryKind::Device;
  MemoryOwner* owner = nullptr;  // null: the runtime's own (cudaMalloc and friends)
};

class MemoryPools;
class VirtualMemory;
class IpcHandles;
class AccessPolicies;
class GpuFaultPlan;
class Checkpoints;

// A CUDA array: texels in one device allocation, rows packed.
struct Array {
  std::uint64_t base = 0;
  cudaChannelFormatDesc desc{};
  std::size_t width = 0, height = 0, depth = 0;  // depth = layers for layered arrays
  unsigned flags = 0;
  int device = 0;
  unsigned texel_bytes() const {
    return static_cast<unsigned>((desc.x + desc.y + desc.z + desc.w) / 8);
  }
  std::size_t row_bytes() const { return width * texel_bytes(); }
};

// A module: the PTX of one fat binary (or one cuModuleLoadData), parsed and
// loaded into device memory on first use.
struct Module {
  // A fat binary container not read yet (a library's, read on first use).
  const std::uint8_t* image = nullptr;
  std::vector<FatbinEntry> entries;
  // Relocatable device code (nvcc -rdc=true): each translation unit's fat
  // binary, linked when the module loads (engine/device_images.h).
  std::vector<std::vector<FatbinEntry>> units;
  std::string missing_units;  // units without usable PTX, for messages
  std::string ptx;            // set for PTX given directly
  std::string source;         // the PTX text loaded, kept only for a kernel capture
  std::string origin;         // for messages: "fatbin 0x...", "cuModuleLoadData"
  std::shared_ptr<const ptx::Module> parsed;
  std::unique_ptr<ptx::LoadedModule> loaded;
  std::string error;  // why it cannot load, once tried
  int error_code = 0;
  bool error_told = false;  // the error was printed (once per module)
};

struct Kernel {
  Module* module = nullptr;
  std::string name;
  int max_dynamic_shared = -1;  // cudaFuncAttributeMaxDynamicSharedMemorySize; -1: default
  int carveout = -1;            // preferred shared memory carve-out, a hint; -1: default
  bool non_portable_clusters = false;
};

struct Variable {
  Module* module = nullptr;
  std::string name;
  std::size_t size = 0;
  bool managed = false;
  void** managed_host = nullptr;  // where the program reads a managed variable's address
};

struct Event {
  unsigned flags = 0;
  CommandPtr marker;
  int device = 0;
  // Recorded in a capturing stream: the capture and the nodes the record followed.
  std::weak_ptr<CaptureSession> captured_in;
  std::vector<GraphNode*> captured_after;
  int references = 1;  // the creator's, and one per cudaIpcOpenEventHandle
};

struct DeviceState {
  DeviceDesc desc;
  std::unique_ptr<Stream> legacy, per_thread;
  // The per-thread default stream is each host thread's own: `per_thread`
  // belongs to the first thread that uses one, the others' are made on their
  // first use (Runtime::stream).
  std::thread::id per_thread_owner;
  std::map<std::thread::id, std::unique_ptr<Stream>> other_per_thread;
  std::uint64_t allocated = 0;
  std::set<int> peers;
  unsigned flags = 0;
  // The grid barrier of cooperative launches (cooperative_groups' workspace):
  // allocated on the first one; the barrier flips a bit per phase, so it needs
  // no reset between launches.
  std::uint64_t grid_workspace = 0;
};

struct LaunchRequest {
  dim3 grid{1, 1, 1}, block{1, 1, 1};
  std::size_t shared = 0;
  cudaStream_t stream = nullptr;
  dim3 cluster{1, 1, 1};
  bool cooperative = false;
  // A launch attribute's access policy window; without one, the stream's.
  std::optional<gpu::L2AccessPolicy> access_policy;
};

// cudaMalloc's alignment and rounding on the GPUs modelled (textureAlignment).
constexpr std::uint64_t kDeviceAllocationAlignment = 512;

// PTX does not say how many registers ptxas would give a kernel; occupancy
// and cudaFuncAttributes::numRegs assume this many per thread.
constexpr int kAssumedRegisters = 32;

class Runtime {
 public:
  // The process-wide runtime, booted on first use. A bad platform or option
  // prints the error and exits with status 2.
  static Runtime& get();
  static std::recursive_mutex& lock();

  // ---- errors ----
  // The fault of a kernel the host has seen finish: every call returns it from then on.
  cudaError_t sticky() const {
    return fault_ != cudaSuccess && timeline_->finished(fault_command_) ? fault_ : cudaSuccess;
  }
  cudaError_t record(cudaError_t e);  // sets the thread's last error when e != success
  cudaError_t take_last_error();
  cudaError_t peek_last_error() const;
  // The calling thread's recorded last error itself (no sticky fault), and
  // putting one back: the driver API keeps it unchanged around its calls.
  cudaError_t thread_last_error() const;
  void set_thread_last_error(cudaError_t e);
  // Names an unsupported call on stderr once and returns cudaErrorNotSupported.
  cudaError_t unsupported(const char* function);
  LogLevel log_level() const { return log_level_; }  // CNUAS_LOG

  // ---- devices ----
  int device_count() const { return static_cast<int>(devices_.size()); }
  int current_device() const;
  // Also makes the device's primary context current, as cudaSetDevice does since CUDA 12.
  cudaError_t set_device(int device);

  // ---- contexts (one per device, its primary context) ----
  // The driver is initialized by cuInit or by the first runtime call, as the
  // runtime initializes it.
  static bool initialized();
  static void initialize();
  // The device whose context is current on this thread, or -1 for none.
  int context_device() const;
  // Makes a device's context current on this thread (-1: none); the runtime
  // then works on that device, as it works in the current context.
  void make_context_current(int device);
  // What a runtime call does first: initialize, and when no context is
  // current, make the current device's primary context current.
  void enter_runtime_call();
  DeviceState& device(int d) { return devices_[static_cast<std::size_t>(d)]; }
  void fill_properties(cudaDeviceProp& p, int device) const;
  cudaError_t attribute(int* value, int attr, int device) const;
  // The primary context of device d reset (cuDevicePrimaryCtxReset,
  // engine/device_reset.cpp): waits for issued work, then frees the device's
  // cudaMalloc/cuMemAlloc and managed memory, destroys its streams and events,
  // and clears a kernel's sticky fault.
  void reset_device(int d);
  cudaError_t enable_peer(int peer);
  cudaError_t disable_peer(int peer);
  bool can_access_peer(int device, int peer);

  // ---- memory ----
  cudaError_t malloc_device(void** ptr, std::size_t bytes, int device);
  cudaError_t malloc_host(void** ptr, std::size_t bytes, MemoryKind kind);
  cudaError_t register_host(void* ptr, std::size_t bytes);
  cudaError_t free(void* ptr, MemoryKind expect);
  const Allocation* find(const void* ptr) const;
  MemoryKind kind_of(const void* ptr, int* device) const;
  ptx::DeviceMemory& memory() { return memory_; }
  HostMappings& host_mappings() { return host_mappings_; }  // pinned and managed host pages
  Array* make_array(const cudaChannelFormatDesc& desc, std::size_t w, std::size_t h, std::size_t d,
                    unsigned flags);
  Array* array(cudaArray_const_t a);
  cudaError_t free_array(cudaArray_t a);

  // Copies of rows: `height` rows of `width` bytes, each `src_pitch`/`dst_pitch`
  // apart (a plain copy is one row). `kind` as cudaMemcpyKind.
  struct Copy {
    void* dst;
    std::size_t dst_pitch;
    const void* src;
    std::size_t src_pitch;
    std::size_t width, height;
    int kind;
  };
  cudaError_t copy(const Copy& c, cudaStream_t stream, bool synchronous);
  cudaError_t peer_copy(void* dst, int dst_device, const void* src, int src_device,
                        std::size_t bytes, cudaStream_t stream, bool synchronous);
  cudaError_t memset(void* dst, std::size_t pitch, int value, std::size_t width, std::size_t height,
                     unsigned element_bytes, cudaStream_t stream, bool synchronous);
  cudaError_t free_async(void* ptr, cudaStream_t stream);
  // ---- commands: what a stream or a graph launch issues ----
  // Each check returns the error the call returns; the command builders
  // assume a check passed. The commands carry their NodeSpec for capture.
  cudaError_t check_copy(const Copy& c);
  CommandPtr copy_command(const Copy& c);
  cudaError_t check_memset(void* dst, std::size_t pitch, std::size_t width, std::size_t height,
                           unsigned element_bytes);
  CommandPtr memset_command(void* dst, std::size_t pitch, int value, std::size_t width,
                            std::size_t height, unsigned element_bytes);
  // Checks a launch on `device` and trims the packed parameters to the kernel's.
  cudaError_t check_launch(Kernel& k, const LaunchRequest& r, std::vector<std::uint8_t>& params,
                           int device);
  CommandPtr kernel_command(Kernel& k, const LaunchRequest& r, std::vector<std::uint8_t> params,
                            int device);
  // Allocations the engine's other memory managers make and end.
  void track(const Allocation& a) { allocations_[a.base] = a; }
  void untrack(std::uint64_t base) { allocations_.erase(base); }
  MemoryPools& memory_pools() { return *memory_pools_; }
  VirtualMemory& virtual_memory() { return *virtual_memory_; }
  IpcHandles& ipc() { return *ipc_; }
  AccessPolicies& access_policies() { return *access_policies_; }

  // ---- modules and kernels ----
  Module* load_ptx_module(const std::string& ptx, const std::string& origin);
  cudaError_t load_fatbin_image(const void* image, Module** out);
  cudaError_t kernel(const void* host, Kernel** out);
  cudaError_t kernel_by_name(Module* m, const char* name, Kernel** out);
  // The one handle of a module's kernel, not checked until the module loads.
  Kernel* kernel_handle(Module* m, const std::string& name);
  cudaError_t symbol(const void* host, std::uint64_t* address, std::size_t* size);
  cudaError_t symbol_by_name(Module* m, const char* name, std::uint64_t* address,
                             std::size_t* size);
  cudaError_t ensure_loaded(Module& m);
  const ptx::Function* function(const Kernel& k) const;
  // The per-thread stack of a launch of `k`: the stack-size limit, grown (for
  // good, as the driver does) to what the kernel's frames need.
  std::uint32_t launch_stack_bytes(const Kernel& k);
  cudaError_t launch(Kernel& k, const LaunchRequest& r, void** args);
  cudaError_t launch_packed(Kernel& k, const LaunchRequest& r, std::vector<std::uint8_t> params);
  // A module from an image that is no PTX text or fat binary: an ELF cubin NVRTC
  // compiled in this process (engine/device_images.cpp).
  cudaError_t load_elf_image(const std::uint8_t* image, Module** out);
  cudaError_t func_attributes(Kernel& k, cudaFuncAttributes* a);
  int max_active_blocks(Kernel& k, int block, std::size_t dynamic_shared);
  ptx::TextureTable& textures() { return textures_; }
  // Destroys a texture or surface object; work issued before keeps it until
  // that work has run, as on the GPU. False for an unknown or destroyed handle.
  bool destroy_texture(std::uint64_t handle);

  // ---- streams and events ----
  Stream* stream(cudaStream_t s);  // nullptr for an unknown handle
  // The calling host thread's per-thread default stream on the current device.
  Stream* per_thread_stream();
  Stream* create_stream(unsigned flags, int priority);
  cudaError_t destroy_stream(cudaStream_t s);
  // Issues a command; the first host function starts the helper that runs
  // host work while the program blocks in its own code (host_work_driver.cpp).
  void submit(Stream& s, CommandPtr c);
  Timeline& timeline() { return *timeline_; }
  Event* event(cudaEvent_t e);
  Event* create_event(unsigned flags);
  cudaError_t destroy_event(cudaEvent_t e);
  cudaError_t synchronize_device();
  // Shared by the runtime and driver entry points.
  void record_event(Event& e, Stream& s);
  // Whether `c` has finished; a negative answer costs the host one poll.
  bool poll(const CommandPtr& c);
  // Simulated milliseconds between two recorded, finished events.
  cudaError_t elapsed_ms(Event* start, Event* end, float* ms);
  bool per_thread_default = false;  // set by the _ptsz / _ptds entry points for one call

  // Stack and heap limits (cudaDeviceSetLimit).
  std::size_t stack_bytes = 1024;
  std::size_t printf_fifo_bytes = 1 << 20;
  std::size_t heap_bytes = 8 << 20;

  void flush_printf();
  void finish();  // at exit: drain, write outputs

 private:
  Runtime();
  ~Runtime();
  // Names the copy by direction and picks its route and work.
  void route_copy(Command& c, const void* dst, const void* src, std::size_t bytes);

  std::unique_ptr<PlatformSession> session_;
  std::unique_ptr<Timeline> timeline_;
  std::vector<DeviceState> devices_;
  ptx::DeviceMemory memory_;
  HostMappings host_mappings_;  // managed and pinned host memory
  ptx::TextureTable textures_;
  // Destroyed texture objects that issued work may still read, with that work.
  struct RetiredTexture {
    std::uint64_t handle;
    std::vector<CommandPtr> users;
  };
  std::vector<RetiredTexture> retired_textures_;
  std::ostringstream printf_;
  std::map<std::uint64_t, Allocation> allocations_;
  std::unique_ptr<MemoryPools> memory_pools_;
  std::unique_ptr<VirtualMemory> virtual_memory_;
  std::unique_ptr<IpcHandles> ipc_;
  std::unique_ptr<AccessPolicies> access_policies_;
  std::map<const void*, std::unique_ptr<Array>> arrays_;
  std::map<std::pair<Module*, std::string>, std::unique_ptr<Kernel>> named_kernels_;
  // Streams and events the program created, by the handle it holds.
  std::map<Stream*, std::unique_ptr<Stream>> streams_;
  std::map<Event*, std::unique_ptr<Event>> events_;
  std::set<std::string> unsupported_named_;
  // cnuas exec --checkpoint / --resume (engine/checkpoint.h); null without.
  std::unique_ptr<Checkpoints> checkpoints_;
  cudaError_t fault_ = cudaSuccess;  // the first kernel fault; later kernels do not run
  CommandPtr fault_command_;
  // Injected GPU faults (cnuas exec --faults), null without; a fault that
  // cudaDeviceReset does not clear (Xid 79: the GPU is gone).
  std::unique_ptr<GpuFaultPlan> gpu_faults_;
  bool fault_survives_reset_ = false;
  // Fails the kernel `c` of `device` if an injected fault hit it (at its end).
  void check_gpu_faults(Command& c, int device);
  // Fails `c` if its effect touched device memory past the host-memory budget.
  void check_host_memory(Command& c);
  bool finished_ = false;
  LogLevel log_level_ = LogLevel::Warning;  // CNUAS_LOG
  bool summary_ = false;                    // CNUAS_SUMMARY
  // Kernels timed by the performance model, for CNUAS_GPU_STATS and CNUAS_GPU_REPORT.
  struct PerformanceKernel {
    std::string device;
    const gpu::ArchConfig* arch;
    gpu::KernelRun run;
  };
  std::vector<PerformanceKernel> performance_runs_;
  std::string gpu_stats_path_, gpu_report_dir_, metadata_path_;
  std::vector<std::string> command_line_;  // of cnuas exec, for the metadata
  std::uint64_t kernel_limit_ = 0;         // warp instructions per launch; 0: the engine's default
  // Kept only when statistics or a report are asked for; the time series of
  // the first kKeptSeries kernels only (a training loop launches millions).
  static constexpr std::size_t kKeptSeries = 256;
  void keep_performance_run(const DeviceDesc& device, gpu::KernelRun run);
  std::set<std::string> notes_given_;  // what a device said of a launch, once each
  void print_memory_reports();         // accesses the memory checker let through
  void start_host_work_driver();
  bool host_work_driver_started_ = false;
  // Runs the work a grid's threads launched (dynamic parallelism) on the same
  // device, adding its cost to `outcome` and the performance model's runs to
  // `runs` (engine/device_launches.cpp).
  void run_device_work(const DeviceDesc& desc, Module& module, ptx::DeviceLaunches& launched,
                       gpu::KernelOutcome& outcome, std::vector<gpu::KernelRun>& runs);
  void write_gpu_outputs();
  // CNUAS_DEBUG_CAPTURE: the launch to record, null without (engine/kernel_capture.h).
  std::unique_ptr<KernelCapture> capture_;
};

// What nvcc's registration calls record while static constructors run, before
// any platform exists: fat binaries, and which host symbol is which kernel or
// variable.
struct Registrations {
  std::vector<std::unique_ptr<Module>> modules;
  std::map<const void*, Kernel> kernels;
  std::map<const void*, Variable> variables;
  static Registrations& get();
  Module* add_fatbin(const void* wrapper);
};

}  // namespace cnuas::cuda
