// Stream-ordered memory pools (cudaMallocAsync, cudaFreeAsync, cudaMemPool*).
//
// A pool reserves device memory in chunks: a request is rounded up to
// kPoolAlignment bytes, and a chunk is 2 MiB (kPoolChunk) or, for a larger
// request, the request rounded up to whole 2 MiB pages. Allocations are
// carved first-fit from the free ranges of the pool's chunks, oldest chunk
// first; a request no free range can serve reserves a new chunk. So the
// pool's figures are: used = the rounded sizes of its live allocations,
// reserved = the sizes of its chunks.
//
// A free is stream-ordered: cudaFreeAsync returns the range to the pool at
// once (used drops), tagged with the free's place in its stream. A later
// allocation may take the range when its stream is ordered after that free:
// the same stream; a stream that already waits for it through events or the
// legacy stream (cudaMemPoolReuseFollowEventDependencies); any stream once the
// free has completed (cudaMemPoolReuseAllowOpportunistic); or any stream by
// making it wait for the free (cudaMemPoolReuseAllowInternalDependencies, the
// wait goes before the stream's next command). Once the host has synchronized
// with a completed free, its range is free for everyone.
//
// Memory goes back to the device only at a stream, event or device
// synchronization (when the pool holds more than its release threshold) or
// cudaMemPoolTrimTo: whole chunks with no live allocation and no free the
// host has not seen complete, newest first, never below the threshold.
//
// A chunk is one device allocation, so a kernel overrunning a pool
// allocation into its neighbour is not reported, as on the GPU without a
// memory checker. Pool accessibility from other devices (cudaMemPoolSetAccess)
// is kept and reported; the unified memory of the simulator does not refuse
// other accesses. Export and import of pools and pointers work within the
// process (a pool's shareable handle is a memfd descriptor); an imported
// pointer is a second address of the same bytes.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "engine/runtime.h"
#include "memory_abi.h"

namespace cnuas::cuda {

constexpr std::uint64_t kPoolAlignment = 512;
constexpr std::uint64_t kPoolChunk = 2ull << 20;

// One pool; a cudaMemPool_t (CUmemoryPool) points at one.
struct MemoryPool {
  std::uint64_t serial = 0;
  int device = 0;
  abi::MemPoolProps props{};
  bool is_default = false;
  // Pinned host memory (cudaMemLocationTypeHost/HostNuma) rather than the
  // device's; `device` is then the device current when it was created.
  bool host = false;
  bool destroyed = false;              // by the program; it goes once nothing of it is outstanding
  std::shared_ptr<MemoryPool> source;  // an imported pool: the pool it stands for
  // Attributes.
  std::uint64_t release_threshold = 0;
  bool follow_event_dependencies = true, allow_opportunistic = true,
       allow_internal_dependencies = true;
  std::uint64_t reserved = 0, reserved_high = 0, used = 0, used_high = 0;
  std::vector<int> access;  // per device, abi::kAccess*
  int export_fd = -1;       // the memfd its shareable handles duplicate
  std::pair<dev_t, ino_t> export_file{};

  // Where a free stood in its stream.
  struct PendingFree {
    std::uint64_t stream = 0;  // Stream::serial
    int device = 0;
    bool legacy = false, blocking = true;
    CommandPtr command;
  };
  struct FreeRange {
    std::uint64_t bytes = 0;
    std::vector<PendingFree> frees;  // that a user of the range must come after
  };
  struct Chunk {
    std::uint64_t bytes = 0;
    std::map<std::uint64_t, FreeRange> free;  // by offset
  };
  std::map<std::uint64_t, Chunk> chunks;  // by base address: oldest first
  struct Live {
    std::uint64_t chunk = 0, bytes = 0;  // bytes: rounded
  };
  std::map<std::uint64_t, Live> live;  // by address
};

class MemoryPools : public MemoryOwner {
 public:
  explicit MemoryPools(Runtime& rt);
  ~MemoryPools() override;
  MemoryPools(const MemoryPools&) = delete;
  MemoryPools& operator=(const MemoryPools&) = delete;

  // Handles: a pool the program may use (not destroyed), or null.
  MemoryPool* pool(const void* handle) const;
  // `device`, or kHost for the host's pinned memory (cudaMemLocationTypeHost),
  // whose default pool is made on first use.
  static constexpr int kHost = -1;
  MemoryPool* default_pool(int device);
  MemoryPool* current_pool(int device);

  // Each returns cudaSuccess or the documented error; none sets the last error.
  cudaError_t set_current(int device, MemoryPool* pool);
  cudaError_t create(MemoryPool** out, const abi::MemPoolProps* props);
  cudaError_t destroy(MemoryPool* pool);
  cudaError_t allocate(void** ptr, std::size_t bytes, MemoryPool& pool, Stream& stream);
  cudaError_t set_attribute(MemoryPool& pool, int attr, const void* value);
  cudaError_t get_attribute(const MemoryPool& pool, int attr, void* value) const;
  cudaError_t trim(MemoryPool& pool, std::uint64_t keep);
  cudaError_t set_access(MemoryPool& pool, const abi::MemAccessDesc* desc, std::size_t count);
  cudaError_t get_access(int* flags, const MemoryPool& pool,
                         const abi::MemLocation* location) const;
  cudaError_t export_pool(void* out, MemoryPool& pool, int type, unsigned long long flags);
  cudaError_t import_pool(MemoryPool** out, void* os_handle, int type, unsigned long long flags);
  cudaError_t export_pointer(abi::MemPoolPtrExportData* out, const void* ptr) const;
  cudaError_t import_pointer(void** out, MemoryPool& pool, const abi::MemPoolPtrExportData* data);

  // cudaFree (stream null: waits for the device first) and cudaFreeAsync of a
  // pool allocation or an imported pointer.
  cudaError_t free(std::uint64_t base, Stream* stream) override;
  // After a stream, event or device synchronization: completed frees become
  // plain free memory, and pools above their release threshold shrink.
  void synchronized();

 private:
  MemoryPool* add(std::shared_ptr<MemoryPool> pool);
  // Whether a range freed by `frees` may serve an allocation on `s`; the
  // frees `s` must first wait for go to `waits`.
  bool reusable(const MemoryPool& pool, const MemoryPool::FreeRange& range, const Stream& s,
                std::vector<CommandPtr>& waits) const;
  // Whether work issued next on `s` already comes after `free`.
  bool ordered_after(const Stream& s, const MemoryPool::PendingFree& free) const;
  // First fit in the existing chunks; 0 when none serves.
  std::uint64_t carve(MemoryPool& pool, std::uint64_t bytes, Stream& s);
  cudaError_t add_chunk(MemoryPool& pool, std::uint64_t bytes);
  void give_back(MemoryPool& pool, std::uint64_t chunk, std::uint64_t offset, std::uint64_t bytes,
                 std::vector<MemoryPool::PendingFree> frees);
  void trim_to(MemoryPool& pool, std::uint64_t keep);
  void forget_if_done(MemoryPool* pool);

  Runtime& rt_;
  std::uint64_t next_serial_ = 1;
  std::map<const MemoryPool*, std::shared_ptr<MemoryPool>> pools_;
  std::vector<MemoryPool*> defaults_, current_;
  MemoryPool* default_host_ = nullptr;
  MemoryPool* current_host_ = nullptr;
  std::map<std::uint64_t, MemoryPool*> allocation_pool_;  // live allocation -> its pool
  std::map<std::uint64_t, std::uint64_t> imported_;       // imported pointer -> bytes
};

}  // namespace cnuas::cuda
