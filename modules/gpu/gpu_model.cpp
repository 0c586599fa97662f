#include "gpu/gpu_model.h"

#include <algorithm>
#include <deque>
#include <map>
#include <stdexcept>

#include "core/kernel/progress.h"
#include "gpu/address_map.h"
#include "gpu/cluster_placement.h"
#include "gpu/dram.h"
#include "gpu/event_queue.h"
#include "gpu/l1_cache.h"
#include "gpu/l2_slice.h"
#include "gpu/mem_request.h"
#include "gpu/noc.h"
#include "gpu/power_manager.h"
#include "gpu/sm.h"
#include "gpu/warp_deps.h"

namespace cnuas::gpu {

namespace {
std::string indexed(const char* base, std::uint32_t i) {
  return std::string(base) + std::to_string(i);
}
}  // namespace

struct PerformanceGpu::Top : sc_core::sc_module, CtaSink {
  ArchConfig arch;
  EventQueue events;
  RequestPool pool;
  PerfRecorder stats;
  DepsCache deps;
  AddressMap map;
  std::vector<std::unique_ptr<Sm>> sms;
  std::vector<std::unique_ptr<L1Cache>> l1s;
  std::unique_ptr<Noc> noc;
  std::vector<std::unique_ptr<L2Slice>> slices;
  std::vector<std::unique_ptr<DramChannel>> channels;

  // The kernel being run: its CTAs are handed out in order.
  struct Launch {
    ptx::Executor* executor = nullptr;
    const ptx::LoadedModule* module = nullptr;
    const std::string* kernel = nullptr;
    const ptx::LaunchConfig* config = nullptr;
    CtaShape shape;
    std::uint64_t next = 0, count = 0;  // CTAs handed out, and the grid's
    ptx::Dim3 cluster;                  // CTAs per cluster; clusters go out whole
    // A launch resumed inside (LaunchConfig::grid_resume): the checkpoint's
    // resident CTAs, restored, go to SMs before CTA `next`.
    std::deque<std::unique_ptr<ptx::Executor::Cta>> restored;
    bool more() const { return !restored.empty() || next < count; }
  } launch;
  // A running cluster: its CTAs (with their SMs) stay alive until the last finishes, since each
  // may reach the others' shared memory and the cluster barrier counts them all.
  struct ClusterRun {
    std::vector<std::pair<const ptx::Executor::Cta*, std::uint32_t>> members;
    std::vector<std::unique_ptr<ptx::Executor::Cta>> finished;
  };
  std::unique_ptr<ClusterPlacement> placement;
  std::map<const ptx::Executor::Cta*, std::shared_ptr<ClusterRun>> cluster_of;
  std::vector<std::vector<std::unique_ptr<ptx::Executor::Cta>>> spare_clusters;
  std::uint32_t cursor = 0;                                // next SM to try, breadth-first over SMs
  std::vector<std::unique_ptr<ptx::Executor::Cta>> spare;  // finished CTAs, for their storage
  std::string failed;     // the kernel that faulted, after which the model cannot run on
  L2AccessPolicy policy;  // the running kernel's
  PowerManager power;

  // At the end of a power interval: a new clock applies from a cycle no SM evaluated yet.
  void manage_power(std::uint64_t now_ps) {
    std::uint64_t earliest = 0;
    for (auto& sm : sms) earliest = std::max(earliest, sm->evaluated());
    if (const auto from = power.control(now_ps, earliest, stats.total()))
      for (auto& sm : sms) sm->clock_changed(*from);
  }

  Top(sc_core::sc_module_name name, ArchConfig a, std::uint64_t sample_cycles)
      : sc_core::sc_module(name),
        arch(std::move(a)),
        stats(arch, sample_cycles),
        map(arch),
        power(arch, stats.sm_clock()) {
    placement = std::make_unique<ClusterPlacement>(arch.sm);
    noc = std::make_unique<Noc>("noc", arch, events, stats);
    for (std::uint32_t i = 0; i < arch.sm.count; ++i) {
      sms.push_back(std::make_unique<Sm>(indexed("sm", i).c_str(), i, arch, events, pool, stats,
                                         deps, *this));
      l1s.push_back(
          std::make_unique<L1Cache>(indexed("l1_", i).c_str(), i, arch, map, events, pool, stats));
      sms.back()->to_l1.bind(l1s.back()->from_sm);
      l1s.back()->to_noc.bind(*noc->from_sm[i]);
    }
    const std::uint32_t per_channel = arch.l2.slices / arch.dram.channels;
    for (std::uint32_t c = 0; c < arch.dram.channels; ++c)
      channels.push_back(std::make_unique<DramChannel>(indexed("dram", c).c_str(), c, per_channel,
                                                       arch, map, events, stats));
    for (std::uint32_t s = 0; s < arch.l2.slices; ++s) {
      slices.push_back(std::make_unique<L2Slice>(indexed("l2_slice", s).c_str(), s, arch, map,
                                                 events, pool, stats));
      noc->to_l2[s]->bind(slices.back()->from_noc);
      slices.back()->to_dram.bind(*channels[s / per_channel]->from_l2[s % per_channel]);
    }
    if (arch.l2.partitions == 2)
      for (std::uint32_t s = 0; s < arch.l2.slices; ++s)
        slices[s]->set_mirror(slices[map.mirror(s)].get());
  }

  // The next CTA to hand out: a restored one, else the grid's next.
  std::unique_ptr<ptx::Executor::Cta> next_cta() {
    if (launch.restored.empty()) return make_cta(launch.next++);
    std::unique_ptr<ptx::Executor::Cta> cta = std::move(launch.restored.front());
    launch.restored.pop_front();
    return cta;
  }

  std::unique_ptr<ptx::Executor::Cta> make_cta(std::uint64_t linear) {
    const ptx::Dim3 g = launch.config->grid;
    const ptx::Dim3 id{static_cast<std::uint32_t>(linear % g.x),
                       static_cast<std::uint32_t>((linear / g.x) % g.y),
                       static_cast<std::uint32_t>(linear / (std::uint64_t{g.x} * g.y))};
    std::unique_ptr<ptx::Executor::Cta> reuse;
    if (!spare.empty()) {
      reuse = std::move(spare.back());
      spare.pop_back();
    }
    return launch.executor->begin_cta(*launch.module, *launch.kernel, *launch.config, id,
                                      std::move(reuse));
  }

  // Hands out whole clusters, each to the SMs of one GPC, while one fits.
  void dispatch_clusters(std::uint64_t cycle) {
    const ptx::Dim3 cd = launch.cluster;
    const std::uint32_t size = static_cast<std::uint32_t>(cd.count());
    const ptx::Dim3 g = launch.config->grid;
    const std::uint32_t across = g.x / cd.x, down = g.y / cd.y;
    std::vector<std::uint32_t> room(sms.size());
    while (launch.next < launch.count) {
      for (std::size_t s = 0; s < sms.size(); ++s) room[s] = sms[s]->room(launch.shape);
      const std::vector<std::uint32_t> where = placement->place(size, room);
      if (where.empty()) return;
      const std::uint64_t c = launch.next / size;
      const ptx::Dim3 id{static_cast<std::uint32_t>(c % across),
                         static_cast<std::uint32_t>(c / across % down),
                         static_cast<std::uint32_t>(c / (std::uint64_t{across} * down))};
      std::vector<std::unique_ptr<ptx::Executor::Cta>> reuse;
      if (!spare_clusters.empty()) {
        reuse = std::move(spare_clusters.back());
        spare_clusters.pop_back();
      }
      std::vector<std::unique_ptr<ptx::Executor::Cta>> ctas = launch.executor->begin_cluster(
          *launch.module, *launch.kernel, *launch.config, id, std::move(reuse));
      auto run = std::make_shared<ClusterRun>();
      for (std::uint32_t r = 0; r < size; ++r) {
        run->members.emplace_back(ctas[r].get(), where[r]);
        cluster_of[ctas[r].get()] = run;
      }
      launch.next += size;
      for (std::uint32_t r = 0; r < size; ++r)
        sms[where[r]]->launch(std::move(ctas[r]), launch.shape, cycle);
    }
  }

  void cluster_barrier_changed(const ptx::Executor::Cta* cta, std::uint64_t cycle) override {
    auto it = cluster_of.find(cta);
    if (it == cluster_of.end()) return;
    for (const auto& [member, sm] : it->second->members)
      if (member != cta) sms[sm]->refresh_barrier_waiters(member, cycle);
  }

  // Hands out CTAs breadth-first: one per SM in turn while they fit.
  void dispatch(std::uint64_t cycle) {
    if (launch.cluster.count() > 1) {
      dispatch_clusters(cycle);
      return;
    }
    std::uint32_t tried = 0;
    while (launch.more() && tried < sms.size()) {
      Sm& sm = *sms[cursor];
      cursor = (cursor + 1) % static_cast<std::uint32_t>(sms.size());
      if (!sm.fits(launch.shape)) {
        ++tried;
        continue;
      }
      tried = 0;
      sm.launch(next_cta(), launch.shape, cycle);
    }
  }

  void cta_finished(std::uint32_t sm, std::uint64_t cycle,
                    std::unique_ptr<ptx::Executor::Cta> done) override {
    if (launch.cluster.count() > 1) {
      auto it = cluster_of.find(done.get());
      std::shared_ptr<ClusterRun> run = it->second;
      cluster_of.erase(it);
      run->finished.push_back(std::move(done));
      if (run->finished.size() == run->members.size())
        spare_clusters.push_back(std::move(run->finished));
      dispatch_clusters(cycle + arch.sm.cta_launch_cycles);
      return;
    }
    spare.push_back(std::move(done));
    if (launch.more() && sms[sm]->fits(launch.shape))
      sms[sm]->launch(next_cta(), launch.shape, cycle + arch.sm.cta_launch_cycles);
  }
};

PerformanceGpu::PerformanceGpu(const std::string& name, ArchConfig arch,
                               std::uint64_t sample_cycles)
    : top_(std::make_unique<Top>(name.c_str(), std::move(arch), sample_cycles)) {}

PerformanceGpu::~PerformanceGpu() = default;

const ArchConfig& PerformanceGpu::arch() const {
  return top_->arch;
}

namespace {

CtaShape shape_of(const ArchConfig& arch, const ptx::Function& f, const ptx::LaunchConfig& config) {
  CtaShape s;
  const std::uint64_t threads = config.block.count();
  s.warps = static_cast<std::uint32_t>((threads + 31) / 32);
  s.registers = s.warps * 32 * arch.sm.registers_per_thread;
  s.shared_bytes = f.static_shared_bytes + config.dynamic_shared_bytes;
  return s;
}

std::uint32_t ctas_per_sm(const ArchConfig& arch, const CtaShape& s) {
  std::uint32_t n = arch.sm.max_ctas;
  n = std::min(n, arch.sm.max_warps / s.warps);
  if (s.registers) n = std::min(n, arch.sm.registers / s.registers);
  if (s.shared_bytes) n = std::min(n, arch.sm.shared_bytes / s.shared_bytes);
  return n;
}

}  // namespace

void PerformanceGpu::reset_persisting_l2() {
  for (auto& slice : top_->slices) slice->reset_persisting();
}

KernelRun PerformanceGpu::run(ptx::Executor& executor, const ptx::LoadedModule& module,
                              const std::string& kernel, const ptx::LaunchConfig& config,
                              const L2AccessPolicy& policy) {
  Top& t = *top_;
  if (!t.failed.empty())
    throw std::logic_error("the performance model stopped inside kernel '" + t.failed +
                           "' (a fault) and cannot run another kernel");
  const ptx::Function* f = module.module().find(kernel);
  if (!f || !f->is_entry) throw std::invalid_argument("no kernel (.entry) named '" + kernel + "'");
  KernelRun result;
  result.kernel = kernel;
  t.launch = Top::Launch{&executor,
                         &module,
                         &kernel,
                         &config,
                         shape_of(t.arch, *f, config),
                         0,
                         config.grid.count(),
                         executor.cluster_dims(module, kernel, config),
                         {}};
  if (const ptx::GridSnapshot* resume = config.grid_resume) {
    if (t.launch.cluster.count() > 1 || config.cooperative)
      throw std::invalid_argument("kernel '" + kernel +
                                  "': a checkpoint inside a kernel needs a grid of single CTAs");
    t.launch.next = std::min(resume->next_cta, t.launch.count);
    for (const std::vector<std::uint8_t>& saved : resume->resident)
      if (!saved.empty())
        t.launch.restored.push_back(executor.restore_cta(module, kernel, config, saved));
  }
  result.ctas_per_sm = ctas_per_sm(t.arch, t.launch.shape);
  if (result.ctas_per_sm == 0)
    throw std::invalid_argument(
        "kernel '" + kernel + "': one CTA needs " + std::to_string(t.launch.shape.warps) +
        " warps, " + std::to_string(t.launch.shape.registers) + " registers and " +
        std::to_string(t.launch.shape.shared_bytes) + " bytes of shared memory; an SM of " +
        t.arch.name + " has " + std::to_string(t.arch.sm.max_warps) + ", " +
        std::to_string(t.arch.sm.registers) + " and " + std::to_string(t.arch.sm.shared_bytes));
  if (t.launch.cluster.count() > 1 && result.ctas_per_sm > 0) {
    // The runtime checked the non-portable opt-in; here: what the GPU can ever hold.
    const std::string why = t.placement->refusal(
        static_cast<std::uint32_t>(t.launch.cluster.count()), true, result.ctas_per_sm);
    if (!why.empty())
      throw std::invalid_argument("kernel '" + kernel + "': " + why + " cannot run on " +
                                  t.arch.name);
  }
  t.policy = policy;
  for (auto& slice : t.slices) slice->set_policy(t.policy);
  const SmClock& clock = t.stats.sm_clock();
  const std::uint64_t start_ps = t.events.now();
  const std::uint64_t start = clock.cycle_at_or_after(start_ps);
  t.stats.reset(start);
  t.power.begin(start, clock.ps(start), t.stats.total());
  for (auto& sm : t.sms) sm->begin(start);
  try {
    t.dispatch(start);
    // Between events no module holds a window, so automatic sampling may merge
    // them; the kernel's time so far goes to the progress line every 4096 events.
    for (std::uint64_t n = 1; t.events.run_one(); ++n) {
      t.stats.coarsen_if_automatic();
      if (t.power.due(t.events.now())) t.manage_power(t.events.now());
      if (n % 4096 == 0)
        progress::gpu_kernel_ps.store(t.events.now() - start_ps, std::memory_order_relaxed);
    }
    progress::gpu_kernel_ps.store(0, std::memory_order_relaxed);
  } catch (...) {
    // A fault leaves warps and requests in flight: this model's state is spent.
    t.failed = kernel;
    throw;
  }
  bool stuck = t.launch.more();
  std::vector<std::string> blocked;
  for (auto& sm : t.sms)
    if (!sm->idle()) {
      stuck = true;
      sm->blocked_warps(blocked);
    }
  if (stuck) {
    // The first few name the pattern; a full GPU has thousands of warps.
    constexpr std::size_t kNamed = 8;
    std::string named;
    for (std::size_t i = 0; i < blocked.size() && i < kNamed; ++i) named += " " + blocked[i] + ";";
    if (blocked.size() > kNamed)
      named += " and " + std::to_string(blocked.size() - kNamed) + " more warps";
    throw ptx::ExecutionError(kernel, {}, {}, f->line, "",
                              "the kernel cannot finish: every remaining warp waits for something "
                              "that never comes:" +
                                  named);
  }
  std::uint64_t end = clock.cycle_at_or_after(t.events.now());
  for (auto& sm : t.sms) end = std::max(end, sm->evaluated());
  for (auto& sm : t.sms) sm->finish(end);
  result.cycles = end - start;
  result.time_ps = clock.ps(end) - clock.ps(start);
  result.ctas = static_cast<std::uint32_t>(t.launch.count);
  result.grid = config.grid;
  result.block = config.block;
  result.warps_per_cta = t.launch.shape.warps;
  result.registers_per_thread = t.arch.sm.registers_per_thread;
  result.shared_bytes = t.launch.shape.shared_bytes;
  result.total = t.stats.total();
  result.windows = t.stats.windows();
  result.sample_cycles = t.stats.sample_cycles();
  const std::uint64_t kernel_start_ps = clock.ps(start);
  for (const SmClock::Segment& s : clock.segments()) {
    if (s.first_cycle >= end) break;
    if (s.first_cycle <= start) result.clock.clear();
    const std::uint64_t from = std::max(s.first_cycle, start);
    result.clock.push_back({from - start, clock.ps(from) - kernel_start_ps, s.hz});
  }
  result.throttle_events = t.power.throttle_events();
  result.raise_events = t.power.raise_events();
  t.events.advance_to(clock.ps(end));
  return result;
}

}  // namespace cnuas::gpu
