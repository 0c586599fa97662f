// Graph memory: what memory allocation nodes allocate. A node reserves its
// device memory when it is created, at an address fixed for as long as a
// graph or executable graph holds the node (as CUDA fixes it for the graph's
// lifetime); the allocation is in use from the node's execution until a free
// node, cudaFree or cudaFreeAsync frees it. The device's graph memory
// attributes count both.
#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include "engine/runtime.h"

namespace cnuas::cuda {

struct GraphAllocation {
  std::uint64_t base = 0;
  std::size_t bytes = 0;
  int device = 0;
  ~GraphAllocation();  // the reservation goes with the last node that holds it
};

// The owner of graph memory (Allocation::owner): cudaFree and cudaFreeAsync
// of it end its use, not its reservation.
class GraphMemory : public MemoryOwner {
 public:
  static GraphMemory& get();
  cudaError_t free(std::uint64_t base, Stream* stream) override;
  cudaError_t reserve(Runtime& rt, std::size_t bytes, int device,
                      std::shared_ptr<GraphAllocation>* out);
  void allocated(std::uint64_t base);  // the allocation node ran
  void freed(std::uint64_t base);      // a free node, cudaFree or cudaFreeAsync ran
  bool is_graph_memory(std::uint64_t base) const { return blocks_.count(base) != 0; }
  void released(const GraphAllocation& a);

  // cudaGraphMemAttributeType: 0 used, 1 used high watermark, 2 reserved, 3 reserved high.
  bool attribute(int device, int attr, std::uint64_t* value) const;
  bool reset_high_watermark(int device, int attr);

 private:
  struct Block {
    int device;
    std::size_t bytes;
    bool in_use;
  };
  struct Usage {
    std::uint64_t used = 0, used_high = 0, reserved = 0, reserved_high = 0;
  };
  std::map<std::uint64_t, Block> blocks_;
  std::map<int, Usage> usage_;
};

}  // namespace cnuas::cuda
