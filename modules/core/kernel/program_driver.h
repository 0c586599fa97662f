// The initiator for a program that drives the platform as it runs (the CUDA
// runtime): operations arrive one by one while the simulation is paused, each
// with its ready time, and their completions are reported back.
#pragma once

#include <cstdint>
#include <functional>

#include <systemc>
#include <tlm>

#include "core/kernel/operation.h"
#include "core/kernel/stage_protocol.h"

namespace cnuas {

class ProgramDriver : public sc_core::sc_module {
 public:
  StageInitiatorSocket<ProgramDriver> out;
  using Completion = std::function<void(Operation&, std::uint64_t done_ps)>;

  // Payloads come from the run's pool, which must outlive the driver.
  ProgramDriver(sc_core::sc_module_name name, PayloadPool& payloads);
  void on_completion(Completion c) { completion_ = std::move(c); }
  // Starts `op` at its first element at `ready_ps` (not before the current time).
  void inject(Operation& op, std::uint64_t ready_ps);
  std::uint64_t in_flight() const { return in_flight_; }

 private:
  tlm::tlm_sync_enum nb_transport_bw(int id, tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  PayloadPool& payloads_;
  Completion completion_;
  std::uint64_t in_flight_ = 0;
};

}  // namespace cnuas
