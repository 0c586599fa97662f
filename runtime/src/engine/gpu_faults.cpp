#include "engine/gpu_faults.h"

#include <algorithm>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "core/kernel/element.h"
#include "cudart/error_names.h"

namespace cnuas::cuda {

// The Xid catalogue's meaning and what the CUDA runtime reports for it: a
// double-bit ECC error is cudaErrorECCUncorrectable; a memory page (MMU) fault
// an illegal address; a graphics engine exception and a GPU off the bus an
// unspecified launch failure.
cudaError_t xid_error(unsigned xid) {
  switch (xid) {
    case 31:
      return cudaErrorIllegalAddress;
    case 48:
      return cudaErrorECCUncorrectable;
    default:
      return cudaErrorLaunchFailure;
  }
}

namespace {

std::string when(std::uint64_t ps) {
  return fmt::format("{} ps", ps);
}

}  // namespace

GpuFaultPlan::GpuFaultPlan(std::vector<GpuFault> faults, PlatformSession& session)
    : session_(session) {
  std::stable_sort(faults.begin(), faults.end(),
                   [](const GpuFault& a, const GpuFault& b) { return a.at_ps < b.at_ps; });
  std::map<Element*, std::vector<Slowdown>> throttles;
  for (GpuFault& f : faults) {
    Planned p;
    p.element = &session.element(f.target, f.target_where);
    const auto& devices = session.devices();
    for (std::size_t d = 0; d < devices.size(); ++d)
      if (devices[d].element == f.target) p.device = static_cast<int>(d);
    if (p.device < 0)
      throw InputError(f.target_where,
                       fmt::format("GPU fault target '{}' is not a CUDA device (a GPU element)",
                                   f.target.substr(0, 60)));
    p.kernel = f.kind == GpuFaultKind::Xid || (f.kind == GpuFaultKind::EccError && f.bits == 2);
    if (f.kind == GpuFaultKind::Throttle) {
      if (!p.element->params().has("sm_clock"))
        throw InputError(f.where, fmt::format("gpu_throttle: '{}' ({}) has no sm_clock to lower",
                                              f.target, p.element->type()));
      const Rational full = p.element->params().quantity("sm_clock");
      if (!(f.clock < full))
        throw InputError(f.clock_where,
                         fmt::format("gpu_throttle clock must be below the GPU's sm_clock ({} Hz)",
                                     full.to_decimal(0)));
      const Rational rate = f.clock / full;
      if (rate.den() > (u128{1} << 40) || rate.num() > (u128{1} << 40))
        throw InputError(f.clock_where,
                         "gpu_throttle clock: its ratio to sm_clock needs too many digits");
      throttles[p.element].push_back({f.at_ps, f.at_ps + f.duration_ps,
                                      static_cast<std::uint64_t>(rate.num()),
                                      static_cast<std::uint64_t>(rate.den())});
    }
    p.fault = std::move(f);
    faults_.push_back(std::move(p));
  }
  for (auto& [element, spans] : throttles) {
    std::vector<Slowdown> all = element->slowdowns();
    all.insert(all.end(), spans.begin(), spans.end());
    std::sort(all.begin(), all.end(),
              [](const Slowdown& a, const Slowdown& b) { return a.from_ps < b.from_ps; });
    for (std::size_t i = 1; i < all.size(); ++i)
      if (all[i].from_ps < all[i - 1].to_ps)
        throw InputError(
            fmt::format("gpu_throttle spans of '{}' overlap ({} and {}); one GPU "
                        "has one clock at a time",
                        element->name(), when(all[i - 1].from_ps), when(all[i].from_ps)));
    element->set_slowdowns(std::move(all));
  }
}

bool GpuFaultPlan::watches(int device) const {
  return std::any_of(faults_.begin(), faults_.end(),
                     [&](const Planned& p) { return p.kernel && p.device == device; });
}

std::optional<GpuFaultPlan::Hit> GpuFaultPlan::kernel_ended(int device, std::uint64_t done_ps) {
  std::optional<Hit> hit;
  for (Planned& p : faults_) {
    if (!p.kernel || p.taken || p.device != device || p.fault.at_ps >= done_ps) continue;
    p.taken = true;
    if (!hit) hit = Hit{&p.fault, xid_error(p.fault.xid), p.fault.xid == 79};
  }
  return hit;
}

void GpuFaultPlan::finish(std::uint64_t end_ps, LogLevel log_level) {
  std::map<Element*, std::map<std::string, std::uint64_t>> counts;
  for (const Planned& p : faults_) {
    const GpuFault& f = p.fault;
    if (f.kind == GpuFaultKind::Throttle) {
      session_.mark(f.at_ps, *p.element, "gpu_throttled",
                    fmt::format("\"until_ps\":{},\"clock_hz\":{}", f.at_ps + f.duration_ps,
                                f.clock.to_decimal(0)));
      session_.mark(f.at_ps + f.duration_ps, *p.element, "gpu_clock_restored",
                    fmt::format("\"since_ps\":{}", f.at_ps));
      continue;
    }
    auto& c = counts[p.element];
    if (f.kind == GpuFaultKind::EccError) {
      c.try_emplace("ecc_corrected", 0);
      c.try_emplace("ecc_uncorrectable", 0);
    } else {
      c.try_emplace("xid", 0);
    }
    if (f.at_ps > end_ps) continue;  // after the run: it never happened
    if (f.kind == GpuFaultKind::EccError && f.bits == 1) {
      ++c["ecc_corrected"];
      session_.mark(f.at_ps, *p.element, "ecc_corrected", "");
      continue;
    }
    ++c[f.kind == GpuFaultKind::EccError ? "ecc_uncorrectable" : "xid"];
    session_.mark(f.at_ps, *p.element,
                  f.kind == GpuFaultKind::EccError ? "ecc_uncorrectable" : "gpu_xid",
                  fmt::format("\"xid\":{},\"kernel_failed\":{}", f.xid, p.taken));
    if (!p.taken && log_level != LogLevel::Quiet)
      std::cerr << fmt::format(
          "cnuas: {}: Xid {} ({}) at {} failed no kernel: none of device {} ran after it\n",
          f.target, f.xid, xid_meaning(f.xid), when(f.at_ps), p.device);
  }
  for (auto& [element, c] : counts) element->set_fault_counts(std::move(c));
}

}  // namespace cnuas::cuda
