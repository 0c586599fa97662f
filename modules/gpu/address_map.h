// Where an address lives: its L2 slice, DRAM channel, bank and row.
//
// DRAM (high to low bits): row | bank | channel | offset within the
// interleave chunk. Consecutive `dram.interleave` chunks go to consecutive
// channels, and a channel fills a whole row of one bank before moving to the
// next bank, so streaming accesses hit open rows. Each L2 slice sits in front
// of one channel: slices / channels slices share a channel, interleaved by
// `l2.interleave` within it.
//
// With two L2 partitions, the slices of the first half of the channels form partition 0 and the
// rest partition 1 (so consecutive chunks, going to consecutive channels, spread over both),
// and the SMs of the first half of the GPCs are near partition 0. A slice's mirror, the slice
// of the same place in the other partition, holds that partition's copies of its lines.
#pragma once

#include <cstdint>
#include <vector>

#include "gpu/arch_config.h"
#include "gpu/cluster_placement.h"

namespace cnuas::gpu {

struct DramLocation {
  std::uint32_t channel;
  std::uint32_t bank;  // within the channel
  std::uint64_t row;
};

class AddressMap {
 public:
  explicit AddressMap(const ArchConfig& a)
      : channels_(a.dram.channels),
        banks_(a.dram.banks),
        chunk_(a.dram.interleave_bytes),
        chunks_per_row_(a.dram.row_bytes / a.dram.interleave_bytes),
        slices_(a.l2.slices),
        l2_chunk_(a.l2.interleave_bytes),
        partitions_(a.l2.partitions) {
    const ClusterPlacement gpcs(a.sm);
    for (std::uint32_t sm = 0; sm < a.sm.count; ++sm)
      sm_partition_.push_back(gpcs.gpc_of(sm) * partitions_ / gpcs.gpcs());
  }

  DramLocation dram(std::uint64_t address) const {
    const std::uint64_t chunk = address / chunk_;
    const std::uint32_t channel = static_cast<std::uint32_t>(chunk % channels_);
    const std::uint64_t row_in_channel = (chunk / channels_) / chunks_per_row_;
    return {channel, static_cast<std::uint32_t>(row_in_channel % banks_), row_in_channel / banks_};
  }

  std::uint32_t slice(std::uint64_t address) const {
    const std::uint32_t channel = static_cast<std::uint32_t>((address / chunk_) % channels_);
    const std::uint32_t per_channel = slices_ / channels_;
    const std::uint64_t within = (channel_local(address) / l2_chunk_) % per_channel;
    return channel * per_channel + static_cast<std::uint32_t>(within);
  }

  std::uint32_t partition_of_slice(std::uint32_t slice) const {
    return slice * partitions_ / slices_;
  }
  // Where an SM's access to a line homed at `home` goes: the home slice when it is in the SM's
  // partition, else its mirror (the SM's partition keeps the copies).
  std::uint32_t near_slice(std::uint32_t home, std::uint32_t sm) const {
    if (partitions_ == 1 || partition_of_slice(home) == sm_partition_[sm]) return home;
    return mirror(home);
  }
  std::uint32_t mirror(std::uint32_t slice) const { return (slice + slices_ / 2) % slices_; }

  // The address with the bits that chose the slice taken out: dense within a
  // slice, so that the slice's cache sets are all used.
  std::uint64_t slice_local(std::uint64_t address) const {
    const std::uint64_t local = channel_local(address);
    const std::uint64_t per_channel = slices_ / channels_;
    return local / (l2_chunk_ * per_channel) * l2_chunk_ + local % l2_chunk_;
  }

 private:
  std::uint64_t channel_local(std::uint64_t address) const {
    return address / (chunk_ * channels_) * chunk_ + address % chunk_;
  }

 private:
  std::uint32_t channels_, banks_;
  std::uint64_t chunk_, chunks_per_row_;
  std::uint32_t slices_;
  std::uint64_t l2_chunk_;
  std::uint32_t partitions_;
  std::vector<std::uint32_t> sm_partition_;
};

}  // namespace cnuas::gpu
