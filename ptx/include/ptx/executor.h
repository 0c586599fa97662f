// Runs PTX kernels functionally: grids of CTAs, warps of 32 threads executing
// each decoded instruction for all active lanes at once, with IPDOM-stack
// reconvergence. The warp-level step interface lets a timing model drive the
// same executor one instruction at a time.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ptx/device_runtime.h"
#include "ptx/errors.h"
#include "ptx/ir.h"
#include "ptx/memory.h"
#include "ptx/unit_class.h"

namespace cnuas::ptx {

// A module bound to device memory: its .global/.const variables allocated and
// initialized.
class LoadedModule {
 public:
  LoadedModule(std::shared_ptr<const Module> module, DeviceMemory& memory);
  const Module& module() const { return *module_; }
  // Distinct for every module loaded in this process (an address may be reused).
  std::uint64_t serial() const { return serial_; }
  std::uint64_t variable_address(std::size_t index) const { return addresses_[index]; }
  // Address of a named .global/.const variable (for symbol copies); throws when unknown.
  std::uint64_t symbol_address(const std::string& name) const;

 private:
  std::shared_ptr<const Module> module_;
  std::vector<std::uint64_t> addresses_;
  std::uint64_t serial_;
};

// Texture and surface objects: what a 64-bit handle in a kernel parameter
// stands for. The CUDA runtime creates them; tests may too.
enum class AddressMode : std::uint8_t { Wrap, Clamp, Mirror, Border };
enum class FilterMode : std::uint8_t { Point, Linear };
enum class ChannelKind : std::uint8_t { Unsigned, Signed, Float };

struct TextureDescriptor {
  std::uint64_t base = 0;  // device address of texel (0, 0, 0, layer 0)
  unsigned dims = 1;       // 1, 2 or 3
  bool layered = false;
  // A cube map (layers 6, in the face order +x -x +y -y +z -z) or a cube-map
  // array (6 layers per cube map); dims 2, layered: each face is a 2D layer.
  bool cube = false;
  std::uint32_t width = 0, height = 1, depth = 1, layers = 1;
  std::uint64_t pitch = 0;     // bytes per row; 0 = width x texel bytes
  unsigned channels = 1;       // 1, 2 or 4
  unsigned channel_bits = 32;  // 8, 16 or 32; 16-bit Float is binary16
  ChannelKind kind = ChannelKind::Float;
  bool normalized_read = false;  // 8/16-bit integers read as floats in [0,1] or [-1,1]
  bool normalized_coords = false;
  FilterMode filter = FilterMode::Point;
  AddressMode address[3] = {AddressMode::Clamp, AddressMode::Clamp, AddressMode::Clamp};
  float border[4] = {0, 0, 0, 0};
  unsigned texel_bytes() const { return channels * channel_bits / 8; }
  std::uint64_t row_pitch() const { return pitch ? pitch : std::uint64_t{width} * texel_bytes(); }
};

class TextureTable {
 public:
  std::uint64_t create(const TextureDescriptor& d) {
    objects_[next_] = d;
    return next_++;
  }
  bool destroy(std::uint64_t handle) { return objects_.erase(handle) != 0; }
  const TextureDescriptor* find(std::uint64_t handle) const {
    auto f = objects_.find(handle);
    return f == objects_.end() ? nullptr : &f->second;
  }
  const std::map<std::uint64_t, TextureDescriptor>& objects() const { return objects_; }

 private:
  std::map<std::uint64_t, TextureDescriptor> objects_;
  std::uint64_t next_ = 1;  // 0 is never a valid object
};

// Sees every instruction the instruction groups executed, after it ran (the
// kernel debugger's register-write trace). Only a launch that sets
// LaunchConfig::observer pays for it: one test of a null pointer per
// instruction, out of the executor's hot path otherwise.
class InstructionObserver {
 public:
  virtual ~InstructionObserver() = default;
  // `inst` of `fn` ran in lanes `active` of warp `warp` of CTA `cta`; `regs`
  // is the frame's registers, register r of lane l at regs[r * 32 + l].
  virtual void executed(Dim3 cta, std::uint32_t warp, std::uint32_t active, const Function& fn,
                        const Instruction& inst, const std::uint64_t* regs) = 0;
};

// A grid in the middle of a launch (cnuas exec --checkpoint-at KERNEL:CTA):
// the CTAs resident at one moment, each as bytes (Executor::Cta::save; empty
// for a slot whose CTA has finished and that takes the next one), in the order
// the engine runs them, and the linear index of the next CTA to begin.
struct GridSnapshot {
  std::uint64_t next_cta = 0;
  std::vector<std::vector<std::uint8_t>> resident;
};

// Asks a functional launch for its GridSnapshot right before the CTA of linear
// index `cta` (x + y*gx + z*gx*gy) begins; `take` receives it, once.
struct GridCheckpointRequest {
  std::uint64_t cta = 0;
  std::function<void(const GridSnapshot&)> take;
};

struct LaunchConfig {
  Dim3 grid, block;
  Dim3 cluster;  // CTAs per thread-block cluster (a kernel's .reqnctapercluster wins)
  std::uint32_t dynamic_shared_bytes = 0;
  std::vector<std::uint8_t> params;  // the kernel parameter buffer, laid out as the .entry declares
  std::uint32_t stack_bytes =
      1024;  // per thread: .local frames and call parameters (CUDA's default)
  std::uint64_t instruction_limit = 0;     // warp instructions per launch; 0 = 2^40
  std::uint32_t sm_count = 132;            // for %nsmid / %smid
  const TextureTable* textures = nullptr;  // texture and surface objects the kernel may use
  // A cooperative launch: every CTA is resident at once, so CTAs may wait for
  // each other (cooperative_groups::grid_group::sync).
  bool cooperative = false;
  // How many CTAs hardware holds resident at once (0: sm_count): a CTA that
  // runs long may be waiting for one of them, which then run beside it.
  std::uint64_t resident_ctas = 0;
  // %envreg0..31, what the driver passes a kernel: a cooperative launch's grid
  // barrier workspace address is in %envreg1 (high half) and %envreg2 (low half).
  std::array<std::uint32_t, 32> envreg{};
  // Where the device runtime's launches from this grid go (dynamic
  // parallelism); null: a kernel's device-side launch fails.
  DeviceLaunches* device_launches = nullptr;
  // The kernel debugger's observer (null: none); a launch with one is never replayed.
  InstructionObserver* observer = nullptr;
  // A checkpoint inside the launch (null: none), and a launch that resumes from
  // one (null: none): its saved CTAs continue, the CTAs before `next_cta` that
  // had finished do not run again. Neither launch is replayed or recorded.
  // Grids of single-CTA clusters only (not cooperative, not clustered).
  const GridCheckpointRequest* grid_checkpoint = nullptr;
  const GridSnapshot* grid_resume = nullptr;
  // Where a grid that cannot finish by itself stops (null: it faults). Its
  // resident CTAs repeat the same states and write no memory: they spin on
  // memory that only something outside the grid can change (the host, another
  // stream's work). The launch returns LaunchStats::suspended, its resident
  // CTAs saved here; a launch with grid_resume = that snapshot continues them.
  // Grids of single-CTA clusters; cooperative and clustered launches run on.
  GridSnapshot* suspend_into = nullptr;
};

struct LaunchStats {
  std::uint64_t warp_instructions = 0;
  std::uint64_t thread_instructions = 0;  // active lanes summed over warp instructions
  std::uint64_t ctas = 0;
  std::uint64_t global_bytes = 0;  // bytes global loads, stores and atomics touched
  // Calls of functions the engine provides (printf, malloc, assert, the device
  // runtime): effects outside device memory, so such a launch is never replayed.
  std::uint64_t builtin_calls = 0;
  // The engine's own cost, not the program's: bytes of CTA state it copied to
  // prove a group stuck or cycling (ptx-engine.md, "Grids that wait for the
  // host"). Bounded by about one byte per warp instruction; not carried by a
  // saved CTA state.
  std::uint64_t state_bytes_compared = 0;
  // The grid stopped into LaunchConfig::suspend_into. The figures above count
  // the work the saved CTAs do not carry (each saved slot carries its own), so
  // the parts of a suspended and resumed launch add up to the whole.
  bool suspended = false;
};

// Global bytes a bulk copy (the Tensor Memory Accelerator) reads or writes.
struct BulkRange {
  std::uint64_t address = 0;
  std::uint32_t bytes = 0;
};
// Transaction bytes a bulk copy owes an mbarrier: its CTA's cluster rank and shared offset.
struct PendingTransaction {
  std::uint32_t rank = 0;
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
};

// One issued warp instruction, as the step interface reports it.
struct StepRecord {
  std::uint32_t pc = 0;
  std::uint32_t active = 0;  // lanes that executed (guard applied)
  const Instruction* inst = nullptr;
  UnitClass unit = UnitClass::Int;
  Space space = Space::None;         // for memory instructions: the resolved space
  std::uint64_t addresses[32] = {};  // per active lane, for memory instructions
  std::uint32_t access_bytes = 0;
  // Set by a timing model: a bulk copy still moves its data at issue, but leaves its mbarrier
  // transaction bytes in `transactions` for the model to complete (Cta::complete_transaction)
  // when the data arrives, and lists in `bulk` the global ranges it reads (or, for a copy to
  // global memory, `bulk_to_global`, writes). Both lists are emptied by every step.
  bool defer_transactions = false;
  bool bulk_to_global = false;
  std::vector<BulkRange> bulk;
  std::vector<PendingTransaction> transactions;
};

class LaunchReplay;

class Executor {
 public:
  Executor(DeviceMemory& memory, std::ostream& printf_out);
  ~Executor();

  // Runs the kernel to completion. Throws ExecutionError for faults
  // (out-of-bounds access, trap, unsupported instruction, a barrier that can
  // never complete, the instruction limit) and std::invalid_argument for a bad
  // launch (unknown kernel, block too large, parameter buffer size).
  LaunchStats launch(const LoadedModule& module, const std::string& kernel,
                     const LaunchConfig& config);

  // Launch replay (ptx/src/launch_replay.h): a launch identical to an earlier
  // one in everything its outcome depends on replays that outcome instead of
  // executing again. On by default; results, statistics and traces are the
  // same either way.
  void set_launch_replay(bool on);
  std::uint64_t replayed_launches() const;

  // The step interface: begin a CTA, then issue instructions warp by warp.
  // A finished CTA passed as `recycled` lends its storage (warps, registers,
  // stacks): a grid of many CTAs then does not spend its time allocating.
  class Cta;
  std::unique_ptr<Cta> begin_cta(const LoadedModule& module, const std::string& kernel,
                                 const LaunchConfig& config, Dim3 cta_id,
                                 std::unique_ptr<Cta> recycled = nullptr);
  // The CTAs of a kernel's clusters (one CTA each without clusters).
  Dim3 cluster_dims(const LoadedModule& module, const std::string& kernel,
                    const LaunchConfig& config) const;
  // The step interface for a kernel that runs in clusters: the CTAs of the cluster at
  // `cluster_id` (in clusters), by rank. They share the cluster barrier and reach each other's
  // shared memory, so all must stay alive until the last finishes. Finished CTAs of an
  // earlier cluster of the same size lend their storage.
  std::vector<std::unique_ptr<Cta>> begin_cluster(const LoadedModule& module,
                                                  const std::string& kernel,
                                                  const LaunchConfig& config, Dim3 cluster_id,
                                                  std::vector<std::unique_ptr<Cta>> recycled = {});
  // The step interface resuming a launch: a CTA from the bytes Cta::save wrote
  // for this kernel and configuration. Throws std::invalid_argument when the
  // bytes do not describe a CTA of this kernel (ptx/src/cta_snapshot.cpp).
  std::unique_ptr<Cta> restore_cta(const LoadedModule& module, const std::string& kernel,
                                   const LaunchConfig& config,
                                   const std::vector<std::uint8_t>& saved);

 private:
  std::unique_ptr<Cta> reuse_or_new(const LoadedModule& module, const LaunchConfig& config,
                                    std::unique_ptr<Cta> recycled);
  LaunchStats execute(const LoadedModule& module, const std::string& kernel,
                      const LaunchConfig& config);
  DeviceMemory& memory_;
  std::ostream& out_;
  std::unique_ptr<LaunchReplay> replay_;
};

class Executor::Cta {
 public:
  ~Cta();
  std::size_t warp_count() const;
  bool warp_done(std::size_t w) const;
  bool warp_waiting(std::size_t w) const;  // at a barrier
  bool done() const;
  // Issues one instruction of warp w; false when the warp cannot issue now.
  bool step(std::size_t w, StepRecord* record = nullptr);
  // The instruction warp w issues next (after returns and reconvergence), or
  // null when the warp has finished or falls off the end of its function.
  const Instruction* next_instruction(std::size_t w);
  // First register of warp w's current frame: instruction register r is
  // register_base(w) + r of the warp.
  std::uint32_t register_base(std::size_t w) const;
  Dim3 cta_id() const;
  std::uint32_t cluster_rank() const;
  std::uint32_t cluster_size() const;
  // The cluster rank of the CTA whose shared memory a .shared::cluster address (or a
  // generic address in a cluster's shared window) names.
  std::uint32_t rank_of_shared_cluster_address(std::uint64_t address) const;
  // complete_tx of `bytes` on the mbarrier at CTA-relative shared offset `offset` of the
  // cluster's CTA of rank `rank`: a bulk copy's data arrived (StepRecord::bulk).
  void complete_transaction(std::uint32_t rank, std::uint64_t offset, std::uint64_t bytes);
  // What %clock/%clock64 and %smid read, for a timing model.
  void set_clock(std::uint64_t cycle);
  void set_sm(std::uint32_t sm);
  // Runs every warp to completion (functional mode).
  void run();
  // The CTA's whole state as bytes (docs/checkpoint-format.md, "CTA state"):
  // Executor::restore_cta makes a CTA that continues exactly where this one is.
  std::vector<std::uint8_t> save() const;
  const LaunchStats& stats() const;

  struct State;
  explicit Cta(std::unique_ptr<State> s);

 private:
  friend class Executor;
  std::unique_ptr<State> s_;
};

}  // namespace cnuas::ptx
