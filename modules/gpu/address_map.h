// Where an address lives: its L2 slice, DRAM channel, bank and row.
//
// DRAM (high to low bits): row | bank | channel | offset within the
// interleave chunk. Consecutive `dram.interleave` chunks go to consecutive
// channels, and a channel fills a whole row of one bank before moving to the
// next bank, so streaming accesses hit open rows. Each L2 slice sits in front
// of one channel: slices / channels slices share a channel, interleaved by
// `l2.interleave` within it.
#pragma once

#include <cstdint>

#include "gpu/arch_config.h"

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
        l2_chunk_(a.l2.interleave_bytes) {}

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

 public:
 private:
  std::uint32_t channels_, banks_;
  std::uint64_t chunk_, chunks_per_row_;
  std::uint32_t slices_;
  std::uint64_t l2_chunk_;
};

}  // namespace cnuas::gpu
