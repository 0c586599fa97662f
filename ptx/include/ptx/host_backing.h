// The host memory behind device memory, committed as it is first touched.
//
// Device memory is address space only (PROT_NONE, MAP_NORESERVE) until
// something reads or writes it: the first access to each 2 MiB chunk (the
// GPU's page, kDevicePage) faults, and a SIGSEGV handler makes the chunk
// readable and writable if the host-memory budget allows. So seven 10 GiB
// allocations cost a few pages of host memory, and running out is an error
// the runtime reports (cudaErrorMemoryAllocation) instead of the kernel's OOM
// killer ending the process: a touch past the budget gets a shared scratch
// chunk instead (what is written there is lost) and is remembered until the
// caller takes it (take_refused). The fast path of a load or store is
// unchanged: committed chunks are plain memory.
#pragma once

#include <cstdint>

namespace cnuas::ptx::host_backing {

// Zero-filled address space of `bytes` (a multiple of 2 MiB) committed on
// first touch; nullptr when even the address space is not there.
std::uint8_t* reserve(std::uint64_t bytes);
// Gives the range back, and its committed chunks to the budget.
void release(std::uint8_t* data, std::uint64_t bytes);

// The bytes device memory may commit. Default: 90 % of the host's
// MemAvailable when the first range is reserved.
void set_limit(std::uint64_t bytes);
std::uint64_t limit();
std::uint64_t committed();  // bytes of committed chunks

// What a chunk of a reserved range holds: never touched (reads as zeros
// without being committed), committed, or the shared scratch chunk a refused
// touch got. NotReserved: the bytes are not device memory's (adopted host memory).
enum class ChunkState : std::uint8_t { Untouched = 0, Committed, Scratch, NotReserved };
struct Chunk {
  std::uint8_t* start = nullptr;  // the chunk holding the queried byte
  std::uint64_t bytes = 0;
  ChunkState state = ChunkState::NotReserved;
};
// The chunk of reserved memory that holds p (state NotReserved, start null
// when p is not in a reserved range). Never touches the memory.
Chunk chunk_at(const std::uint8_t* p);

// The address of the first touch refused since the last call (0: none).
std::uintptr_t take_refused();

}  // namespace cnuas::ptx::host_backing
