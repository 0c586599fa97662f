#include "launch_replay.h"

#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <type_traits>

namespace cnuas::ptx {
namespace {

class Hasher {
 public:
  Hasher() : state_(XXH3_createState(), XXH3_freeState) { XXH3_128bits_reset(state_.get()); }
  void bytes(const void* p, std::size_t n) { XXH3_128bits_update(state_.get(), p, n); }
  template <class T>
  void value(const T& v) {
    static_assert(std::is_arithmetic_v<T> || std::is_enum_v<T>, "hash fields one by one");
    bytes(&v, sizeof v);
  }
  void dim(const Dim3& d) {
    value(d.x);
    value(d.y);
    value(d.z);
  }
  LaunchReplay::Key digest() const {
    const XXH128_hash_t h = XXH3_128bits_digest(state_.get());
    return {h.high64, h.low64};
  }

 private:
  std::unique_ptr<XXH3_state_t, XXH_errorcode (*)(XXH3_state_t*)> state_;
};

// Every field, so that padding never reaches the hash; the size check makes a
// new field fail to compile until it is hashed too.
void hash_texture(Hasher& h, std::uint64_t handle, const TextureDescriptor& d) {
  static_assert(sizeof(TextureDescriptor) == 72, "hash the new TextureDescriptor field");
  h.value(handle);
  h.value(d.base);
  h.value(d.dims);
  h.value(d.layered);
  h.value(d.cube);
  h.value(d.width);
  h.value(d.height);
  h.value(d.depth);
  h.value(d.layers);
  h.value(d.pitch);
  h.value(d.channels);
  h.value(d.channel_bits);
  h.value(d.kind);
  h.value(d.normalized_read);
  h.value(d.normalized_coords);
  h.value(d.filter);
  for (AddressMode a : d.address) h.value(a);
  for (float b : d.border) h.value(b);
}

// Everything about the launch besides memory that its outcome depends on.
LaunchReplay::Key signature(const LoadedModule& module, const std::string& kernel,
                            const LaunchConfig& c, bool strict) {
  static_assert(sizeof(LaunchConfig) == 280, "hash the new LaunchConfig field");
  Hasher h;
  h.value(module.serial());
  h.value(kernel.size());
  h.bytes(kernel.data(), kernel.size());
  h.dim(c.grid);
  h.dim(c.block);
  h.dim(c.cluster);
  h.value(c.dynamic_shared_bytes);
  h.value(c.params.size());
  h.bytes(c.params.data(), c.params.size());
  h.value(c.stack_bytes);
  h.value(c.instruction_limit);
  h.value(c.sm_count);
  h.value(c.cooperative);
  h.value(c.resident_ctas);
  for (std::uint32_t e : c.envreg) h.value(e);
  h.value(c.device_launches != nullptr);
  h.value(c.observer != nullptr);         // never replayed; kept apart all the same
  h.value(c.grid_checkpoint != nullptr);  // neither are these
  h.value(c.grid_resume != nullptr);
  // Not c.suspend_into: a launch that stops part-way is never recorded, and a
  // whole one ends the same whether or not it could have stopped.
  h.value(strict);
  if (c.textures)
    for (const auto& [handle, d] : c.textures->objects()) hash_texture(h, handle, d);
  return h.digest();
}

constexpr LaunchReplay::Key kUntouched{0, 1};  // a chunk never touched reads as zeros

}  // namespace

LaunchReplay::Snapshot LaunchReplay::pieces() const {
  Snapshot s;
  memory_.for_each_mapping([&](std::uint64_t device, std::uint8_t* host, std::uint64_t size) {
    for (std::uint64_t off = 0; off < size;) {
      const host_backing::Chunk c = host_backing::chunk_at(host + off);
      std::uint64_t bytes = std::min<std::uint64_t>(kDevicePage, size - off);
      if (c.state != host_backing::ChunkState::NotReserved)
        bytes = std::min<std::uint64_t>(bytes, c.start + c.bytes - (host + off));
      s.pieces.push_back({device + off, host + off, bytes, c.state});
      if (c.state == host_backing::ChunkState::Scratch) s.scratch = true;
      if (c.state != host_backing::ChunkState::Untouched) s.readable_bytes += bytes;
      off += bytes;
    }
  });
  return s;
}

void LaunchReplay::hash(Snapshot& s) {
  Hasher all;
  s.hashes.reserve(s.pieces.size());
  for (const Piece& p : s.pieces) {
    Key k = kUntouched;
    if (p.state != host_backing::ChunkState::Untouched) {
      const XXH128_hash_t h = XXH3_128bits(p.host, p.bytes);
      k = {h.high64, h.low64};
    }
    s.hashes.push_back(k);
    all.value(p.device);
    all.value(p.bytes);
    all.value(k.first);
    all.value(k.second);
  }
  s.state = all.digest();
}

LaunchStats LaunchReplay::launch(const LoadedModule& module, const std::string& kernel,
                                 const LaunchConfig& config,
                                 const std::function<LaunchStats()>& execute) {
  if (!enabled_) return execute();
  const Key sig = signature(module, kernel, config, memory_.strict());
  auto [it, first] = history_.try_emplace(sig);
  History& history = it->second;
  if (first || history.given_up) {
    const LaunchStats stats = execute();
    history.warp_instructions = stats.warp_instructions;
    // Effects outside device memory, or a grid that stopped part-way: never replayed.
    if (stats.builtin_calls || stats.suspended) history.given_up = true;
    return stats;
  }
  Snapshot before = pieces();
  if (before.scratch ||
      before.readable_bytes > kHashBytesPerWarpInstruction * history.warp_instructions) {
    const LaunchStats stats = execute();
    history.warp_instructions = stats.warp_instructions;
    return stats;
  }
  hash(before);
  if (auto o = outcomes_.find({sig, before.state}); o != outcomes_.end()) {
    for (const auto& [index, bytes] : o->second.changed)
      std::memcpy(before.pieces[index].host, bytes.data(), bytes.size());
    history.misses = 0;
    history.replayed = true;
    ++replayed_;
    return o->second.stats;
  }
  const LaunchStats stats = execute();
  history.warp_instructions = stats.warp_instructions;
  const unsigned allowed =
      history.replayed ? kMissesAfterReplaysBeforeGivingUp : kMissesBeforeGivingUp;
  if (stats.builtin_calls || stats.suspended || ++history.misses >= allowed) {
    history.given_up = true;
    forget(sig);
    return stats;
  }
  Snapshot after = pieces();
  if (after.scratch || after.pieces.size() != before.pieces.size()) return stats;
  hash(after);
  Outcome outcome;
  outcome.stats = stats;
  for (std::size_t i = 0; i < after.pieces.size(); ++i) {
    const Piece& p = after.pieces[i];
    if (p.device != before.pieces[i].device || p.bytes != before.pieces[i].bytes) return stats;
    if (after.hashes[i] == before.hashes[i]) continue;
    outcome.changed.emplace_back(i, std::vector<std::uint8_t>(p.host, p.host + p.bytes));
    outcome.bytes += p.bytes;
    if (outcome.bytes > kStoredBytesLimit / 2) return stats;
  }
  store(sig, before.state, std::move(outcome));
  return stats;
}

void LaunchReplay::store(const Key& signature, const Key& state, Outcome outcome) {
  stored_bytes_ += outcome.bytes;
  outcomes_[{signature, state}] = std::move(outcome);
  stored_order_.emplace_back(signature, state);
  std::size_t drop = 0;
  while (stored_bytes_ > kStoredBytesLimit && drop < stored_order_.size()) {
    auto o = outcomes_.find(stored_order_[drop++]);
    if (o == outcomes_.end()) continue;
    stored_bytes_ -= o->second.bytes;
    outcomes_.erase(o);
  }
  stored_order_.erase(stored_order_.begin(), stored_order_.begin() + drop);
}

void LaunchReplay::forget(const Key& signature) {
  auto from = outcomes_.lower_bound({signature, Key{0, 0}});
  auto to = from;
  while (to != outcomes_.end() && to->first.first == signature) {
    stored_bytes_ -= to->second.bytes;
    ++to;
  }
  outcomes_.erase(from, to);
  stored_order_.erase(std::remove_if(stored_order_.begin(), stored_order_.end(),
                                     [&](const auto& k) { return k.first == signature; }),
                      stored_order_.end());
}

}  // namespace cnuas::ptx
