#include "gpu/arch_schema.h"

#include <fmt/format.h>

#include "core/inputs/profile.h"
#include "gpu/arch_config.h"

namespace cnuas::gpu {
namespace {

// Latencies and intervals in cycles; wide enough for any real part.
constexpr std::uint64_t kMaxCycles = 100000;

void declare_sm(Schema& s) {
  s.integer("sm.count", std::nullopt, "streaming multiprocessors", 1, 4096)
      .quantity("sm.clock", Dimension::Frequency, std::nullopt, "SM clock", true)
      .integer("sm.schedulers", std::nullopt,
               "warp schedulers (sub-partitions) per SM, one warp instruction each per cycle", 1,
               16)
      .choice("sm.scheduler_policy", {"gto", "lrr"}, std::nullopt,
              "warp pick: greedy-then-oldest or loose round robin")
      .integer("sm.max_warps", std::nullopt, "resident warps per SM", 1, 256)
      .integer("sm.max_ctas", std::nullopt, "resident CTAs per SM", 1, 256)
      .integer("sm.registers", std::nullopt, "32-bit registers per SM", 1, 1u << 24)
      .integer("sm.registers_per_thread", std::nullopt,
               "registers a thread is assumed to use for occupancy (PTX registers are virtual)", 1,
               255)
      .quantity("sm.shared_memory", Dimension::Data, std::nullopt,
                "shared memory per SM, for occupancy", true)
      .integer("sm.cta_launch", std::nullopt,
               "SM cycles from a CTA slot freeing to the next CTA issuing", 0, 1000000)
      .integer("sm.gpcs", 1, "GPCs; the CTAs of a thread-block cluster share one", 1, 256)
      .integer("sm.max_cluster", 1, "most CTAs in a thread-block cluster (portable)", 1, 64)
      .integer("sm.max_cluster_non_portable", 1,
               "most CTAs in a cluster of a kernel that allows non-portable sizes", 1, 64);
  for (std::size_t u = 0; u < kUnits; ++u) {
    const std::string pipe = fmt::format("sm.pipes.{}.", unit_name(static_cast<Unit>(u)));
    s.integer(pipe + "latency", std::nullopt,
              "cycles from issue until a dependent instruction may issue", 1, kMaxCycles)
        .integer(pipe + "interval", std::nullopt,
                 "cycles before the same scheduler's pipe takes another warp", 1, kMaxCycles);
  }
  for (const char* t : {"f16", "tf32", "fp8", "int8"})
    s.integer(fmt::format("sm.wgmma.{}", t), 0,
              fmt::format("dense wgmma throughput per SM per cycle with {} inputs, in FLOP "
                          "(0: no warpgroup tensor cores)",
                          t),
              0, 1u << 20);
  for (const char* t : {"f16", "tf32", "fp8", "int8", "f64"})
    s.integer(fmt::format("sm.mma.{}", t), 0,
              fmt::format("tensor-core rate for mma.sync/wmma.mma per SM per cycle with {} inputs, "
                          "in FLOP (0: each such instruction takes sm.pipes.tensor's interval "
                          "and latency)",
                          t),
              0, 1u << 20);
  s.integer("sm.mma.overhead", 0,
            "cycles an mma.sync holds its sub-partition's tensor pipe on top of its FLOP at "
            "the sm.mma rate",
            0, kMaxCycles)
      .integer("sm.mma.stages", 0,
               "an mma.sync's result is ready this many times its tensor-pipe cycles after "
               "issue (0: sm.pipes.tensor.latency, or the pipe cycles if longer)",
               0, 64);
  s.integer("sm.dsmem.latency", 0,
            "SM cycles until a load from another CTA's shared memory (DSMEM) returns", 0,
            kMaxCycles)
      .integer("sm.dsmem.bytes_per_cycle", 0,
               "bytes per SM cycle one SM's port to the SM-to-SM network moves (0: remote "
               "shared memory costs what local does)",
               0, 4096)
      .integer("sm.tma.latency", 0,
               "SM cycles from a bulk copy's issue to the TMA's first line request", 0, kMaxCycles)
      .integer("sm.tma.bytes_per_cycle", 0,
               "bytes of line requests the SM's TMA issues per SM cycle (0: no copy engine; a "
               "bulk copy completes at issue)",
               0, 4096)
      .integer("sm.tma.outstanding", 1, "line reads the SM's TMA keeps in flight", 1, 65536);
}

void declare_l1(Schema& s) {
  s.quantity("l1.size", Dimension::Data, std::nullopt, "L1 data cache per SM", true)
      .quantity("l1.line", Dimension::Data, std::nullopt, "cache line (a power of two)", true)
      .quantity("l1.sector", Dimension::Data, std::nullopt,
                "sector, the unit of a fill (a power of two, at most 32 per line)", true)
      .integer("l1.ways", std::nullopt, "associativity", 1, 1024)
      .integer("l1.mshrs", std::nullopt, "misses in flight per SM (lines)", 1, 65536)
      .integer("l1.hit_latency", std::nullopt, "SM cycles for a hit", 1, kMaxCycles)
      .boolean("l1.write_allocate", false, "stores allocate a line (write-through either way)")
      .integer("l1.shared_latency", std::nullopt, "SM cycles for a shared-memory access", 1,
               kMaxCycles)
      .integer("l1.shared_banks", std::nullopt, "shared-memory banks", 1, 128)
      .quantity("l1.shared_bank_width", Dimension::Data, std::nullopt,
                "bytes one bank delivers per wavefront", true)
      .integer("l1.constant_latency", std::nullopt,
               "SM cycles for a constant-cache hit (ld.const, ld.param)", 1, kMaxCycles)
      .integer("l1.lines_per_cycle", std::nullopt, "coalesced lines the LSU looks up per cycle", 1,
               64);
}

void declare_noc(Schema& s) {
  s.quantity("noc.clock", Dimension::Frequency, std::nullopt, "crossbar clock", true)
      .integer("noc.latency", std::nullopt, "NoC cycles each direction", 0, kMaxCycles)
      .quantity("noc.flit", Dimension::Data, std::nullopt, "bytes a port moves per NoC cycle", true)
      .quantity("noc.request_header", Dimension::Data, std::nullopt,
                "bytes of header on every request", true);
}

void declare_l2(Schema& s) {
  s.quantity("l2.clock", Dimension::Frequency, std::nullopt, "L2 clock", true)
      .integer("l2.slices", std::nullopt,
               "L2 slices, each in front of one DRAM channel (a multiple of dram.channels)", 1,
               4096)
      .quantity("l2.size", Dimension::Data, std::nullopt, "all slices together", true)
      .quantity("l2.line", Dimension::Data, std::nullopt, "cache line (equal to l1.line)", true)
      .quantity("l2.sector", Dimension::Data, std::nullopt, "sector (equal to l1.sector)", true)
      .integer("l2.ways", std::nullopt, "associativity", 1, 1024)
      .integer("l2.mshrs", std::nullopt, "misses in flight per slice (lines)", 1, 65536)
      .integer("l2.hit_latency", std::nullopt, "L2 cycles for tag and data on a hit", 1, kMaxCycles)
      .quantity("l2.bytes_per_cycle", Dimension::Data, std::nullopt,
                "bytes a slice's port moves per L2 cycle", true)
      .quantity("l2.interleave", Dimension::Data, std::nullopt,
                "consecutive chunks of this size go to consecutive slices of a channel (a power "
                "of two of at least one line)",
                true)
      .integer("l2.partitions", 1,
               "L2 partitions: 2 splits slices and SMs in halves, each half caching copies of the "
               "other's lines for its own SMs (dram.channels even)",
               1, 2)
      .integer("l2.far_latency", 0,
               "L2 cycles across the crossbar between the partitions, each way (0 with one)", 0,
               kMaxCycles)
      .quantity("l2.far_bytes_per_cycle", Dimension::Data, "0 B",
                "bytes per L2 cycle the partition crossbar moves per slice pair and direction "
                "(at least one sector with two partitions)")
      .quantity("l2.fetch_granularity", Dimension::Data, "0 B",
                "a read miss fetches the aligned group of this many bytes around each sector it "
                "misses (a power-of-two multiple of l2.sector up to l2.line; 0: the sector alone)");
}

void declare_dram(Schema& s) {
  s.integer("dram.channels", std::nullopt, "memory channels", 1, 4096)
      .integer("dram.banks", std::nullopt, "banks per channel", 1, 256)
      .quantity("dram.row", Dimension::Data, std::nullopt,
                "row buffer (page) per bank (a multiple of dram.interleave)", true)
      .quantity("dram.interleave", Dimension::Data, std::nullopt,
                "consecutive chunks of this size go to consecutive channels (a power of two of "
                "at least one line)",
                true)
      .quantity("dram.channel_bandwidth", Dimension::DataRate, std::nullopt,
                "data bus of one channel", true)
      .quantity("dram.burst", Dimension::Data, std::nullopt,
                "bytes one column access moves (divides or is a multiple of the sector)", true)
      .quantity("dram.tRCD", Dimension::Time, std::nullopt, "activate to column command")
      .quantity("dram.tRP", Dimension::Time, std::nullopt, "precharge")
      .quantity("dram.tCL", Dimension::Time, std::nullopt, "column command to data")
      .quantity("dram.tRAS", Dimension::Time, std::nullopt, "activate to precharge, at least")
      .quantity("dram.tWR", Dimension::Time, std::nullopt, "end of a write to precharge")
      .quantity("dram.tREFI", Dimension::Time, std::nullopt, "refresh interval (0: no refresh)")
      .quantity("dram.tRFC", Dimension::Time, std::nullopt,
                "refresh duration, all banks (shorter than tREFI)")
      .quantity("dram.controller_latency", Dimension::Time, std::nullopt,
                "controller and PHY, added once to every access")
      .boolean("dram.refresh_per_bank", false,
               "each bank refreshes on its own, staggered across tREFI, for tRFC (else all banks "
               "at once)")
      .integer("dram.bank_groups", 1, "bank groups per channel (divides dram.banks)", 1, 256)
      .quantity("dram.tCCD_L", Dimension::Time, "0 ns",
                "column to column within one bank group (the data bus spaces the others)")
      .quantity("dram.tRRD", Dimension::Time, "0 ns", "activate to activate in one channel")
      .quantity("dram.tWTR", Dimension::Time, "0 ns", "end of write data to a read command")
      .quantity("dram.tRTW", Dimension::Time, "0 ns", "read command to a write command");
}

void declare_energy(Schema& s) {
  for (std::size_t u = 0; u < kUnits; ++u) {
    const char* unit = unit_name(static_cast<Unit>(u));
    s.quantity(fmt::format("energy.instruction.{}", unit), Dimension::Energy, std::nullopt,
               fmt::format("per warp instruction of the {} unit class", unit));
  }
  s.quantity("energy.l1_sector", Dimension::Energy, std::nullopt, "per sector looked up in L1")
      .quantity("energy.shared_wavefront", Dimension::Energy, std::nullopt,
                "per shared-memory wavefront")
      .quantity("energy.l2_sector", Dimension::Energy, std::nullopt, "per sector at an L2 slice")
      .quantity("energy.noc_flit", Dimension::Energy, std::nullopt, "per flit on the crossbar")
      .quantity("energy.dram_activate", Dimension::Energy, std::nullopt,
                "per activate and precharge")
      .quantity("energy.dram_burst", Dimension::Energy, std::nullopt, "per burst read or written")
      .quantity("energy.static_power", Dimension::Power, std::nullopt,
                "leakage and clocks of the whole GPU while a kernel runs")
      .quantity("energy.sm_active_power", Dimension::Power, std::nullopt,
                "per SM with resident warps, on top of static_power")
      .quantity("energy.tensor_flop", Dimension::Energy, "0 pJ",
                "per FLOP of mma.sync, wmma.mma and wgmma.mma_async, on top of the tensor "
                "instruction's energy");
}

void declare_power(Schema& s) {
  s.quantity("power.tdp", Dimension::Power, "0 W",
             "power limit: above it over an interval the SM clock steps down (0: no limit)")
      .quantity("power.clock_step", Dimension::Frequency, "15 MHz",
                "one step of the SM clock under power management", true)
      .quantity("power.min_clock", Dimension::Frequency, "200 MHz",
                "lowest SM clock power management sets", true)
      .quantity("power.interval", Dimension::Time, "1 us",
                "the power manager averages power over this interval and then sets the clock",
                true);
}

Schema declare() {
  Schema s("cnuas.gpu_arch",
           "GPU architecture for the detailed performance model (profiles/gpu-arch/*.yaml, named "
           "by a cnuas.gpu element's `architecture` or `cnuas exec --gpu-arch`); a profile, not "
           "an element. Sections are nested maps: `sm.pipes.int.latency` is written "
           "`sm: {pipes: {int: {latency: 4}}}`",
           ProfileKind{});
  s.text("architecture", std::nullopt, "the part's name")
      .text("description", "", "free text about the part and its sources");
  declare_sm(s);
  declare_l1(s);
  declare_noc(s);
  declare_l2(s);
  declare_dram(s);
  declare_energy(s);
  declare_power(s);
  return s;
}

}  // namespace

const Schema& arch_schema() {
  static const Schema s = declare();
  return s;
}

ParamSet read_arch_params(const YamlSource& src) {
  require_map(src.root, src.file, "a GPU architecture profile");
  RawValues raw;
  read_field_values(src.root, src.file, arch_schema(), {}, "GPU architecture profile", raw);
  return resolve_params(arch_schema(), raw, "GPU architecture profile",
                        location_of(src.root, src.file));
}

}  // namespace cnuas::gpu
