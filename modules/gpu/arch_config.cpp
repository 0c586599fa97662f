#include "gpu/arch_config.h"

#include <filesystem>

#include <fmt/format.h>

#include "core/inputs/yaml_source.h"
#include "core/kernel/errors.h"
#include "gpu/arch_schema.h"
#include "gpu/builtin_arch.h"

namespace cnuas::gpu {

const char* unit_name(Unit u) {
  static const char* names[] = {"int",    "fp32",   "fp64",    "sfu",
                                "tensor", "memory", "control", "sync"};
  return names[static_cast<std::size_t>(u)];
}

namespace {

// Typed reads of the resolved fields; sizes must also fit their ArchConfig
// member, and an error points at where the value was written.
class Fields {
 public:
  Fields(const ParamSet& params, std::string owner) : p_(params), owner_(std::move(owner)) {}

  std::uint32_t u32(const std::string& name) const {
    return static_cast<std::uint32_t>(p_.integer(name));  // the schema's range fits
  }
  Rational quantity(const std::string& name) const { return p_.quantity(name); }
  std::uint64_t time_ps(const std::string& name) const { return p_.time_ps(name); }
  bool boolean(const std::string& name) const { return p_.boolean(name); }
  const std::string& text(const std::string& name) const { return p_.text(name); }
  std::uint64_t bytes(const std::string& name) const { return p_.whole_bytes(name, owner_); }
  std::uint32_t bytes32(const std::string& name) const {
    const std::uint64_t b = bytes(name);
    if (b > UINT32_MAX)
      throw InputError(p_.get(name).where,
                       fmt::format("{}: {} is {} bytes; accepted: at most {} bytes (4 GiB - 1)",
                                   owner_, name, b, UINT32_MAX));
    return static_cast<std::uint32_t>(b);
  }
  Rational picojoules(const std::string& name) const {
    return quantity(name) * Rational(1000000000000ULL);
  }
  const SourceLocation& where(const std::string& name) const { return p_.get(name).where; }

 private:
  const ParamSet& p_;
  std::string owner_;
};

std::string pipe_field(Unit u, const char* what) {
  return fmt::format("sm.pipes.{}.{}", unit_name(u), what);
}

void read_sm(const Fields& f, SmConfig& sm) {
  sm.count = f.u32("sm.count");
  sm.clock_hz = f.quantity("sm.clock");
  sm.schedulers = f.u32("sm.schedulers");
  sm.policy = f.text("sm.scheduler_policy") == "gto" ? WarpScheduler::GreedyThenOldest
                                                     : WarpScheduler::LooseRoundRobin;
  sm.max_warps = f.u32("sm.max_warps");
  sm.max_ctas = f.u32("sm.max_ctas");
  sm.registers = f.u32("sm.registers");
  sm.registers_per_thread = f.u32("sm.registers_per_thread");
  sm.shared_bytes = f.bytes32("sm.shared_memory");
  sm.cta_launch_cycles = f.u32("sm.cta_launch");
  sm.gpcs = f.u32("sm.gpcs");
  sm.max_cluster = f.u32("sm.max_cluster");
  sm.max_cluster_non_portable = f.u32("sm.max_cluster_non_portable");
  for (std::size_t i = 0; i < kUnits; ++i) {
    const Unit u = static_cast<Unit>(i);
    sm.pipes[i].latency = f.u32(pipe_field(u, "latency"));
    sm.pipes[i].interval = f.u32(pipe_field(u, "interval"));
  }
  sm.wgmma.f16 = f.u32("sm.wgmma.f16");
  sm.wgmma.tf32 = f.u32("sm.wgmma.tf32");
  sm.wgmma.fp8 = f.u32("sm.wgmma.fp8");
  sm.mma.rates.f16 = f.u32("sm.mma.f16");
  sm.mma.rates.tf32 = f.u32("sm.mma.tf32");
  sm.mma.rates.fp8 = f.u32("sm.mma.fp8");
  sm.mma.rates.int8 = f.u32("sm.mma.int8");
  sm.mma.rates.f64 = f.u32("sm.mma.f64");
  sm.mma.overhead = f.u32("sm.mma.overhead");
  sm.mma.stages = f.u32("sm.mma.stages");
  sm.dsmem.latency = f.u32("sm.dsmem.latency");
  sm.dsmem.bytes_per_cycle = f.u32("sm.dsmem.bytes_per_cycle");
  sm.tma.latency = f.u32("sm.tma.latency");
  sm.tma.bytes_per_cycle = f.u32("sm.tma.bytes_per_cycle");
  sm.tma.outstanding = f.u32("sm.tma.outstanding");
  sm.wgmma.int8 = f.u32("sm.wgmma.int8");
}

void read_l1(const Fields& f, L1Config& l1) {
  l1.size_bytes = f.bytes32("l1.size");
  l1.line_bytes = f.bytes32("l1.line");
  l1.sector_bytes = f.bytes32("l1.sector");
  l1.ways = f.u32("l1.ways");
  l1.mshrs = f.u32("l1.mshrs");
  l1.hit_latency = f.u32("l1.hit_latency");
  l1.write_allocate = f.boolean("l1.write_allocate");
  l1.shared_latency = f.u32("l1.shared_latency");
  l1.shared_banks = f.u32("l1.shared_banks");
  l1.shared_bank_bytes = f.bytes32("l1.shared_bank_width");
  l1.constant_latency = f.u32("l1.constant_latency");
  l1.lines_per_cycle = f.u32("l1.lines_per_cycle");
}

void read_noc(const Fields& f, NocConfig& noc) {
  noc.clock_hz = f.quantity("noc.clock");
  noc.latency = f.u32("noc.latency");
  noc.flit_bytes = f.bytes32("noc.flit");
  noc.request_header_bytes = f.bytes32("noc.request_header");
}

void read_l2(const Fields& f, L2Config& l2) {
  l2.clock_hz = f.quantity("l2.clock");
  l2.slices = f.u32("l2.slices");
  l2.size_bytes = f.bytes("l2.size");
  l2.line_bytes = f.bytes32("l2.line");
  l2.sector_bytes = f.bytes32("l2.sector");
  l2.ways = f.u32("l2.ways");
  l2.mshrs = f.u32("l2.mshrs");
  l2.hit_latency = f.u32("l2.hit_latency");
  l2.bytes_per_cycle = f.bytes32("l2.bytes_per_cycle");
  l2.interleave_bytes = f.bytes32("l2.interleave");
  l2.partitions = f.u32("l2.partitions");
  l2.far_latency = f.u32("l2.far_latency");
  l2.far_bytes_per_cycle = f.bytes32("l2.far_bytes_per_cycle");
  l2.fetch_bytes = f.bytes32("l2.fetch_granularity");
}

void read_dram(const Fields& f, DramConfig& d) {
  d.channels = f.u32("dram.channels");
  d.banks = f.u32("dram.banks");
  d.row_bytes = f.bytes32("dram.row");
  d.interleave_bytes = f.bytes32("dram.interleave");
  d.channel_bytes_per_s = f.quantity("dram.channel_bandwidth") / Rational(8);
  d.burst_bytes = f.bytes32("dram.burst");
  d.tRCD_ps = f.time_ps("dram.tRCD");
  d.tRP_ps = f.time_ps("dram.tRP");
  d.tCL_ps = f.time_ps("dram.tCL");
  d.tRAS_ps = f.time_ps("dram.tRAS");
  d.tWR_ps = f.time_ps("dram.tWR");
  d.controller_ps = f.time_ps("dram.controller_latency");
  d.tREFI_ps = f.time_ps("dram.tREFI");
  d.tRFC_ps = f.time_ps("dram.tRFC");
  d.refresh_per_bank = f.boolean("dram.refresh_per_bank");
  d.bank_groups = f.u32("dram.bank_groups");
  d.tCCD_L_ps = f.time_ps("dram.tCCD_L");
  d.tRRD_ps = f.time_ps("dram.tRRD");
  d.tWTR_ps = f.time_ps("dram.tWTR");
  d.tRTW_ps = f.time_ps("dram.tRTW");
}

void read_energy(const Fields& f, EnergyConfig& e) {
  for (std::size_t i = 0; i < kUnits; ++i)
    e.instruction_pj[i] =
        f.picojoules(fmt::format("energy.instruction.{}", unit_name(static_cast<Unit>(i))));
  e.l1_access_pj = f.picojoules("energy.l1_sector");
  e.shared_access_pj = f.picojoules("energy.shared_wavefront");
  e.l2_access_pj = f.picojoules("energy.l2_sector");
  e.noc_flit_pj = f.picojoules("energy.noc_flit");
  e.dram_activate_pj = f.picojoules("energy.dram_activate");
  e.dram_burst_pj = f.picojoules("energy.dram_burst");
  e.static_w = f.quantity("energy.static_power");
  e.sm_active_w = f.quantity("energy.sm_active_power");
  e.tensor_flop_pj = f.picojoules("energy.tensor_flop");
}

void read_power(const Fields& f, PowerConfig& p) {
  p.tdp_w = f.quantity("power.tdp");
  p.clock_step_hz = f.quantity("power.clock_step");
  p.min_clock_hz = f.quantity("power.min_clock");
  p.interval_ps = f.time_ps("power.interval");
}

bool power_of_two(std::uint64_t v) {
  return v && !(v & (v - 1));
}

// Relations between fields that the per-field ranges cannot express; each
// error points at the first field it names.
void check_consistency(const ArchConfig& a, const Fields& f) {
  auto need = [&](bool ok, const std::string& field, const std::string& what) {
    if (!ok) throw InputError(f.where(field), a.name + ": " + what);
  };
  need(power_of_two(a.l1.line_bytes) && power_of_two(a.l1.sector_bytes) &&
           a.l1.line_bytes % a.l1.sector_bytes == 0 && a.l1.line_bytes / a.l1.sector_bytes <= 32,
       "l1.line", "l1.line and l1.sector must be powers of two, the line at most 32 sectors");
  need(a.l1.size_bytes % (a.l1.line_bytes * a.l1.ways) == 0, "l1.size",
       "l1.size must be a whole number of sets (line x ways)");
  need(a.l2.line_bytes == a.l1.line_bytes && a.l2.sector_bytes == a.l1.sector_bytes, "l2.line",
       "l2.line and l2.sector must equal l1.line and l1.sector");
  need(a.l2.size_bytes / a.l2.slices >= std::uint64_t{a.l2.line_bytes} * a.l2.ways, "l2.size",
       "l2.size must give each slice at least one set (line x ways)");
  need(a.l2.slices % a.dram.channels == 0, "l2.slices",
       "l2.slices must be a multiple of dram.channels (each slice sits in front of one channel)");
  need(power_of_two(a.l2.interleave_bytes) && a.l2.interleave_bytes >= a.l2.line_bytes,
       "l2.interleave", "l2.interleave must be a power of two of at least one line");
  const std::uint32_t fetch = a.l2.fetch_bytes;
  need(fetch == 0 || (fetch % a.l2.sector_bytes == 0 && fetch <= a.l2.line_bytes &&
                      (fetch & (fetch - 1)) == 0),
       "l2.fetch_granularity",
       "l2.fetch_granularity must be 0 or a power-of-two multiple of l2.sector up to l2.line");
  need(a.l2.partitions == 1 || a.dram.channels % 2 == 0, "l2.partitions",
       "l2.partitions 2 needs an even dram.channels (each partition holds half the channels)");
  need(a.l2.partitions == 1 || a.l2.far_bytes_per_cycle >= a.l2.sector_bytes,
       "l2.far_bytes_per_cycle",
       "l2.far_bytes_per_cycle must be at least one sector (l2.sector) with two partitions");
  need(a.l2.partitions == 1 || a.l2.mshrs >= 2, "l2.mshrs",
       "l2.mshrs must be at least 2 with two partitions (a copy slice's fetches from the other "
       "partition never take a slice's last entry)");
  need(a.l2.partitions == 1 || a.sm.gpcs % 2 == 0, "l2.partitions",
       "l2.partitions 2 needs an even sm.gpcs (each partition serves half the GPCs)");
  need(power_of_two(a.dram.interleave_bytes) && a.dram.interleave_bytes >= a.l1.line_bytes,
       "dram.interleave", "dram.interleave must be a power of two of at least one line");
  need(a.dram.row_bytes % a.dram.interleave_bytes == 0, "dram.row",
       "dram.row must be a multiple of dram.interleave");
  need(a.l1.sector_bytes % a.dram.burst_bytes == 0 || a.dram.burst_bytes % a.l1.sector_bytes == 0,
       "dram.burst", "dram.burst must divide or be a multiple of the sector");
  need(a.sm.max_warps % a.sm.schedulers == 0 || a.sm.max_warps >= a.sm.schedulers, "sm.max_warps",
       "sm.max_warps must be at least sm.schedulers");
  need(a.sm.gpcs <= a.sm.count, "sm.gpcs", "sm.gpcs must be at most sm.count");
  need(a.sm.max_cluster <= a.sm.max_cluster_non_portable, "sm.max_cluster",
       "sm.max_cluster must be at most sm.max_cluster_non_portable");
  need(a.dram.tREFI_ps == 0 || a.dram.tRFC_ps < a.dram.tREFI_ps, "dram.tRFC",
       "dram.tRFC must be shorter than dram.tREFI (or tREFI 0 for no refresh)");
  need(a.dram.banks % a.dram.bank_groups == 0, "dram.bank_groups",
       "dram.bank_groups must divide dram.banks");
  need(a.power.min_clock_hz <= a.sm.clock_hz, "power.min_clock",
       "power.min_clock must be at most sm.clock");
}

ArchConfig parse(const YamlSource& src) {
  const ParamSet params = read_arch_params(src);
  const Fields f(params, "GPU architecture profile");
  ArchConfig a;
  a.file = src.file;
  a.name = f.text("architecture");
  read_sm(f, a.sm);
  read_l1(f, a.l1);
  read_noc(f, a.noc);
  read_l2(f, a.l2);
  read_dram(f, a.dram);
  read_energy(f, a.energy);
  read_power(f, a.power);
  check_consistency(a, f);
  return a;
}

}  // namespace

ArchConfig load_arch_file(const std::string& path) {
  return parse(load_yaml_file(path));
}

ArchConfig load_arch_text(const std::string& text, const std::string& name) {
  return parse(load_yaml_text(text, name));
}

namespace {

const BuiltinArch* builtin_named(const std::string& name) {
  for (const BuiltinArch& b : builtin_archs())
    if (name == b.name) return &b;
  return nullptr;
}

}  // namespace

void check_arch_reference(const std::string& name_or_path) {
  if (builtin_named(name_or_path)) return;
  if (name_or_path.find('/') == std::string::npos &&
      name_or_path.find(".yaml") == std::string::npos)
    throw InputError(
        fmt::format("no GPU architecture named '{}'; built-in: {}, or a path to a "
                    "profiles/gpu-arch/*.yaml file",
                    name_or_path, builtin_arch_names()));
  std::error_code error;
  if (!std::filesystem::is_regular_file(name_or_path, error))
    throw InputError(fmt::format("cannot open GPU architecture file '{}'", name_or_path));
}

ArchConfig load_arch(const std::string& name_or_path) {
  if (const BuiltinArch* b = builtin_named(name_or_path))
    return load_arch_text(b->text, std::string("<built-in ") + b->name + ">");
  check_arch_reference(name_or_path);
  return load_arch_file(name_or_path);
}

std::string builtin_arch_names() {
  std::vector<std::string> names;
  for (const BuiltinArch& b : builtin_archs()) names.push_back(b.name);
  return join_names(names);
}

}  // namespace cnuas::gpu
