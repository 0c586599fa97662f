#include "gpu/arch_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "core/inputs/units.h"
#include "core/inputs/yaml_source.h"
#include "core/kernel/errors.h"
#include "gpu/builtin_arch.h"

namespace cnuas::gpu {

const char* unit_name(Unit u) {
  static const char* names[] = {"int",    "fp32",   "fp64",    "sfu",
                                "tensor", "memory", "control", "sync"};
  return names[static_cast<std::size_t>(u)];
}

namespace {

// One map of the profile: typed reads with file:line:col errors, and a check
// that nothing else is there.
class Section {
 public:
  Section(const YAML::Node& node, const std::string& file, std::string path)
      : node_(node), file_(file), path_(std::move(path)) {
    require_map(node_, file_, path_);
  }

  Section child(const std::string& key) { return Section(need(key), file_, name(key)); }

  std::uint32_t integer(const std::string& key, std::uint64_t min, std::uint64_t max) {
    const YAML::Node n = need(key);
    const std::string text = scalar_text(n, file_, name(key));
    std::uint64_t v = 0;
    std::size_t used = 0;
    try {
      v = std::stoull(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != text.size() || text.empty() || text[0] == '-' || v < min || v > max)
      throw InputError(
          location_of(n, file_),
          fmt::format("{} is '{}'; accepted: an integer from {} to {}", name(key), text, min, max));
    return static_cast<std::uint32_t>(v);
  }

  Rational quantity(const std::string& key, Dimension d) {
    const YAML::Node n = need(key);
    const std::string text = scalar_text(n, file_, name(key));
    try {
      return parse_quantity(text, d).value;
    } catch (const UnitError& e) {
      throw InputError(location_of(n, file_), name(key) + ": " + e.message);
    }
  }

  Rational positive(const std::string& key, Dimension d) {
    Rational v = quantity(key, d);
    if (v.is_zero())
      throw InputError(location_of(node_[key], file_), name(key) + " must be greater than zero");
    return v;
  }

  // Bytes, given as a data quantity ("128 B", "50 MiB"), a whole number of bytes.
  std::uint64_t bytes(const std::string& key) {
    const Rational bits = quantity(key, Dimension::Data);
    const Rational b = bits / Rational(8);
    if (!b.is_integer() || b.is_zero())
      throw InputError(location_of(node_[key], file_),
                       name(key) + " must be a whole, non-zero number of bytes");
    return b.floor_u64();
  }

  std::uint64_t time_ps(const std::string& key) {
    return quantity(key, Dimension::Time).ceil_u64();
  }

  bool boolean(const std::string& key) {
    const YAML::Node n = need(key);
    const std::string t = scalar_text(n, file_, name(key));
    if (t == "true") return true;
    if (t == "false") return false;
    throw InputError(location_of(n, file_),
                     fmt::format("{} is '{}'; accepted: true, false", name(key), t));
  }

  std::string choice(const std::string& key, const std::vector<std::string>& accepted) {
    const YAML::Node n = need(key);
    const std::string t = scalar_text(n, file_, name(key));
    for (const auto& a : accepted)
      if (a == t) return t;
    throw InputError(location_of(n, file_),
                     fmt::format("{} is '{}'; accepted: {}", name(key), t, join_names(accepted)));
  }

  std::string text(const std::string& key) { return scalar_text(need(key), file_, name(key)); }
  // A key that may be there and is not read (free text).
  void allow(const std::string& key) { seen_.push_back(key); }

  // Refuses any key that was not read.
  void done() const { check_keys(node_, file_, seen_, path_); }

 private:
  YAML::Node need(const std::string& key) {
    seen_.push_back(key);
    const YAML::Node n = node_[key];
    if (n) return n;
    // A misspelled key is the likeliest reason: name it where it is.
    for (const auto& kv : node_) {
      const std::string k = kv.first.as<std::string>();
      if (!node_[k] || std::find(seen_.begin(), seen_.end(), k) != seen_.end()) continue;
      if (nearest_name(k, {key}) == key)
        throw InputError(location_of(kv.first, file_),
                         fmt::format("unknown key '{}' in {}; did you mean '{}'?", k, path_, key));
    }
    throw InputError(location_of(node_, file_), fmt::format("{} is missing '{}'", path_, key));
  }
  std::string name(const std::string& key) const { return path_ + "." + key; }

  YAML::Node node_;
  const std::string& file_;
  std::string path_;
  std::vector<std::string> seen_;
};

PipeTiming read_pipe(Section s) {
  PipeTiming p;
  p.latency = s.integer("latency", 1, 100000);
  p.interval = s.integer("interval", 1, 100000);
  s.done();
  return p;
}

void read_sm(Section s, SmConfig& sm) {
  sm.count = s.integer("count", 1, 4096);
  sm.clock_hz = s.positive("clock", Dimension::Frequency);
  sm.schedulers = s.integer("schedulers", 1, 16);
  sm.policy = s.choice("scheduler_policy", {"gto", "lrr"}) == "gto"
                  ? WarpScheduler::GreedyThenOldest
                  : WarpScheduler::LooseRoundRobin;
  sm.max_warps = s.integer("max_warps", 1, 256);
  sm.max_ctas = s.integer("max_ctas", 1, 256);
  sm.registers = s.integer("registers", 1, 1u << 24);
  sm.registers_per_thread = s.integer("registers_per_thread", 1, 255);
  sm.shared_bytes = static_cast<std::uint32_t>(s.bytes("shared_memory"));
  sm.cta_launch_cycles = s.integer("cta_launch", 0, 1000000);
  Section pipes = s.child("pipes");
  for (std::size_t u = 0; u < kUnits; ++u)
    sm.pipes[u] = read_pipe(pipes.child(unit_name(static_cast<Unit>(u))));
  pipes.done();
  s.done();
}

void read_l1(Section s, L1Config& l1) {
  l1.size_bytes = static_cast<std::uint32_t>(s.bytes("size"));
  l1.line_bytes = static_cast<std::uint32_t>(s.bytes("line"));
  l1.sector_bytes = static_cast<std::uint32_t>(s.bytes("sector"));
  l1.ways = s.integer("ways", 1, 1024);
  l1.mshrs = s.integer("mshrs", 1, 65536);
  l1.hit_latency = s.integer("hit_latency", 1, 100000);
  l1.write_allocate = s.boolean("write_allocate");
  l1.shared_latency = s.integer("shared_latency", 1, 100000);
  l1.shared_banks = s.integer("shared_banks", 1, 128);
  l1.shared_bank_bytes = static_cast<std::uint32_t>(s.bytes("shared_bank_width"));
  l1.constant_latency = s.integer("constant_latency", 1, 100000);
  l1.lines_per_cycle = s.integer("lines_per_cycle", 1, 64);
  s.done();
}

void read_noc(Section s, NocConfig& noc) {
  noc.clock_hz = s.positive("clock", Dimension::Frequency);
  noc.latency = s.integer("latency", 0, 100000);
  noc.flit_bytes = static_cast<std::uint32_t>(s.bytes("flit"));
  noc.request_header_bytes = static_cast<std::uint32_t>(s.bytes("request_header"));
  s.done();
}

void read_l2(Section s, L2Config& l2) {
  l2.clock_hz = s.positive("clock", Dimension::Frequency);
  l2.slices = s.integer("slices", 1, 4096);
  l2.size_bytes = s.bytes("size");
  l2.line_bytes = static_cast<std::uint32_t>(s.bytes("line"));
  l2.sector_bytes = static_cast<std::uint32_t>(s.bytes("sector"));
  l2.ways = s.integer("ways", 1, 1024);
  l2.mshrs = s.integer("mshrs", 1, 65536);
  l2.hit_latency = s.integer("hit_latency", 1, 100000);
  l2.bytes_per_cycle = static_cast<std::uint32_t>(s.bytes("bytes_per_cycle"));
  l2.interleave_bytes = static_cast<std::uint32_t>(s.bytes("interleave"));
  s.done();
}

void read_dram(Section s, DramConfig& d) {
  d.channels = s.integer("channels", 1, 4096);
  d.banks = s.integer("banks", 1, 256);
  d.row_bytes = static_cast<std::uint32_t>(s.bytes("row"));
  d.interleave_bytes = static_cast<std::uint32_t>(s.bytes("interleave"));
  d.channel_bytes_per_s = s.positive("channel_bandwidth", Dimension::DataRate) / Rational(8);
  d.burst_bytes = static_cast<std::uint32_t>(s.bytes("burst"));
  d.tRCD_ps = s.time_ps("tRCD");
  d.tRP_ps = s.time_ps("tRP");
  d.tCL_ps = s.time_ps("tCL");
  d.tRAS_ps = s.time_ps("tRAS");
  d.tWR_ps = s.time_ps("tWR");
  d.controller_ps = s.time_ps("controller_latency");
  d.tREFI_ps = s.time_ps("tREFI");
  d.tRFC_ps = s.time_ps("tRFC");
  s.done();
}

Rational picojoules(Section& s, const std::string& key) {
  return s.quantity(key, Dimension::Energy) * Rational(1000000000000ULL);
}

void read_energy(Section s, EnergyConfig& e) {
  Section inst = s.child("instruction");
  for (std::size_t u = 0; u < kUnits; ++u)
    e.instruction_pj[u] = picojoules(inst, unit_name(static_cast<Unit>(u)));
  inst.done();
  e.l1_access_pj = picojoules(s, "l1_sector");
  e.shared_access_pj = picojoules(s, "shared_wavefront");
  e.l2_access_pj = picojoules(s, "l2_sector");
  e.noc_flit_pj = picojoules(s, "noc_flit");
  e.dram_activate_pj = picojoules(s, "dram_activate");
  e.dram_burst_pj = picojoules(s, "dram_burst");
  e.static_w = s.quantity("static_power", Dimension::Power);
  e.sm_active_w = s.quantity("sm_active_power", Dimension::Power);
  s.done();
}

bool power_of_two(std::uint64_t v) {
  return v && !(v & (v - 1));
}

// Relations between fields that the per-field ranges cannot express.
void check_consistency(const ArchConfig& a, const YAML::Node& root) {
  const SourceLocation where = location_of(root, a.file);
  auto need = [&](bool ok, const std::string& what) {
    if (!ok) throw InputError(where, a.name + ": " + what);
  };
  need(power_of_two(a.l1.line_bytes) && power_of_two(a.l1.sector_bytes) &&
           a.l1.line_bytes % a.l1.sector_bytes == 0 && a.l1.line_bytes / a.l1.sector_bytes <= 32,
       "l1.line and l1.sector must be powers of two, the line at most 32 sectors");
  need(a.l1.size_bytes % (a.l1.line_bytes * a.l1.ways) == 0,
       "l1.size must be a whole number of sets (line x ways)");
  need(a.l2.line_bytes == a.l1.line_bytes && a.l2.sector_bytes == a.l1.sector_bytes,
       "l2.line and l2.sector must equal l1.line and l1.sector");
  need(a.l2.size_bytes / a.l2.slices >= std::uint64_t{a.l2.line_bytes} * a.l2.ways,
       "l2.size must give each slice at least one set (line x ways)");
  need(a.l2.slices % a.dram.channels == 0,
       "l2.slices must be a multiple of dram.channels (each slice sits in front of one channel)");
  need(power_of_two(a.l2.interleave_bytes) && a.l2.interleave_bytes >= a.l2.line_bytes,
       "l2.interleave must be a power of two of at least one line");
  need(power_of_two(a.dram.interleave_bytes) && a.dram.interleave_bytes >= a.l1.line_bytes,
       "dram.interleave must be a power of two of at least one line");
  need(a.dram.row_bytes % a.dram.interleave_bytes == 0,
       "dram.row must be a multiple of dram.interleave");
  need(a.l1.sector_bytes % a.dram.burst_bytes == 0 || a.dram.burst_bytes % a.l1.sector_bytes == 0,
       "dram.burst must divide or be a multiple of the sector");
  need(a.sm.max_warps % a.sm.schedulers == 0 || a.sm.max_warps >= a.sm.schedulers,
       "sm.max_warps must be at least sm.schedulers");
  need(a.dram.tREFI_ps == 0 || a.dram.tRFC_ps < a.dram.tREFI_ps,
       "dram.tRFC must be shorter than dram.tREFI (or tREFI 0 for no refresh)");
}

ArchConfig parse(const YamlSource& src) {
  ArchConfig a;
  a.file = src.file;
  Section top(src.root, src.file, "gpu architecture");
  a.name = top.text("architecture");
  top.allow("description");
  read_sm(top.child("sm"), a.sm);
  read_l1(top.child("l1"), a.l1);
  read_noc(top.child("noc"), a.noc);
  read_l2(top.child("l2"), a.l2);
  read_dram(top.child("dram"), a.dram);
  read_energy(top.child("energy"), a.energy);
  top.done();
  check_consistency(a, src.root);
  return a;
}

}  // namespace

ArchConfig load_arch_file(const std::string& path) {
  return parse(load_yaml_file(path));
}

ArchConfig load_arch_text(const std::string& text, const std::string& name) {
  return parse(load_yaml_text(text, name));
}

ArchConfig load_arch(const std::string& name_or_path) {
  for (const BuiltinArch& b : builtin_archs())
    if (name_or_path == b.name)
      return load_arch_text(b.text, std::string("<built-in ") + b.name + ">");
  if (name_or_path.find('/') == std::string::npos &&
      name_or_path.find(".yaml") == std::string::npos)
    throw InputError(
        fmt::format("no GPU architecture named '{}'; built-in: {}, or a path to a "
                    "profiles/gpu-arch/*.yaml file",
                    name_or_path, builtin_arch_names()));
  return load_arch_file(name_or_path);
}

std::string builtin_arch_names() {
  std::vector<std::string> names;
  for (const BuiltinArch& b : builtin_archs()) names.push_back(b.name);
  return join_names(names);
}

}  // namespace cnuas::gpu
