#include "ptx/host_backing.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <map>

namespace cnuas::ptx::host_backing {
namespace {

constexpr std::uint64_t kChunk = 2ull << 20;  // kDevicePage

struct Range {
  std::uint64_t bytes;
  std::uint64_t committed;  // chunks made accessible, counted in g_committed
  // Per chunk: a ChunkState. Sized at reserve, so the handler never allocates.
  std::uint8_t* states;
};

// The ranges, by start address. Changed under g_lock; the handler reads them
// under it too (a fault never happens while the faulting thread holds it: no
// device memory is touched then).
std::map<std::uintptr_t, Range>& ranges() {
  static auto* r = new std::map<std::uintptr_t, Range>();
  return *r;
}
std::atomic_flag g_lock = ATOMIC_FLAG_INIT;
struct Guard {
  Guard() {
    while (g_lock.test_and_set(std::memory_order_acquire)) {
    }
  }
  ~Guard() { g_lock.clear(std::memory_order_release); }
};

std::atomic<std::uint64_t> g_limit{0};  // 0: not decided yet
std::atomic<std::uint64_t> g_committed{0};
std::atomic<std::uintptr_t> g_refused{0};
int g_scratch = -1;  // a memfd of one chunk, mapped where the budget refuses one
struct sigaction g_previous;

std::uint64_t default_limit() {
  std::FILE* f = std::fopen("/proc/meminfo", "r");
  if (!f) return UINT64_MAX;
  char line[256];
  unsigned long long kib = 0;
  bool found = false;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
      found = true;
      break;
    }
  std::fclose(f);
  return found ? kib * 1024 / 10 * 9 : UINT64_MAX;
}

void on_fault(int signal, siginfo_t* info, void* context) {
  const auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
  bool handled = false;
  {
    Guard guard;
    auto& r = ranges();
    auto it = r.upper_bound(addr);
    if (it != r.begin()) {
      --it;
      if (addr < it->first + it->second.bytes) {
        const std::uintptr_t chunk = it->first + (addr - it->first) / kChunk * kChunk;
        void* at = reinterpret_cast<void*>(chunk);
        if (g_committed.load() + kChunk <= g_limit.load() &&
            ::mprotect(at, kChunk, PROT_READ | PROT_WRITE) == 0) {
          g_committed += kChunk;
          ++it->second.committed;
          it->second.states[(chunk - it->first) / kChunk] =
              static_cast<std::uint8_t>(ChunkState::Committed);
        } else {
          ::mmap(at, kChunk, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, g_scratch, 0);
          it->second.states[(chunk - it->first) / kChunk] =
              static_cast<std::uint8_t>(ChunkState::Scratch);
          std::uintptr_t none = 0;
          g_refused.compare_exchange_strong(none, addr);
        }
        handled = true;
      }
    }
  }
  if (handled) return;
  // Not device memory: whoever handled SIGSEGV before (a sanitizer), or the default.
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction) return g_previous.sa_sigaction(signal, info, context);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    return g_previous.sa_handler(signal);
  }
  ::signal(SIGSEGV, SIG_DFL);  // the access faults again, and ends the process as it would have
}

void install() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  if (g_limit.load() == 0) g_limit = default_limit();
  g_scratch = ::memfd_create("cnuas-device-scratch", MFD_CLOEXEC);
  if (g_scratch >= 0 && ::ftruncate(g_scratch, kChunk) != 0) {
    ::close(g_scratch);
    g_scratch = -1;
  }
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGSEGV, &action, &g_previous);
}

}  // namespace

std::uint8_t* reserve(std::uint64_t bytes) {
  install();
  if (g_scratch < 0) return nullptr;
  void* p = ::mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  auto* states = new std::uint8_t[(bytes + kChunk - 1) / kChunk]();
  Guard guard;
  ranges()[reinterpret_cast<std::uintptr_t>(p)] = Range{bytes, 0, states};
  return static_cast<std::uint8_t*>(p);
}

void release(std::uint8_t* data, std::uint64_t bytes) {
  {
    Guard guard;
    auto it = ranges().find(reinterpret_cast<std::uintptr_t>(data));
    if (it != ranges().end()) {
      g_committed -= it->second.committed * kChunk;
      delete[] it->second.states;
      ranges().erase(it);
    }
  }
  ::munmap(data, bytes);
}

void set_limit(std::uint64_t bytes) {
  g_limit = bytes;
}

std::uint64_t limit() {
  if (g_limit.load() == 0) g_limit = default_limit();
  return g_limit.load();
}

std::uint64_t committed() {
  return g_committed.load();
}

Chunk chunk_at(const std::uint8_t* p) {
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  Guard guard;
  auto& r = ranges();
  auto it = r.upper_bound(addr);
  if (it == r.begin()) return {};
  --it;
  if (addr >= it->first + it->second.bytes) return {};
  const std::uint64_t index = (addr - it->first) / kChunk;
  const std::uintptr_t start = it->first + index * kChunk;
  return {reinterpret_cast<std::uint8_t*>(start),
          std::min<std::uint64_t>(kChunk, it->first + it->second.bytes - start),
          static_cast<ChunkState>(it->second.states[index])};
}

std::uintptr_t take_refused() {
  return g_refused.exchange(0);
}

}  // namespace cnuas::ptx::host_backing
