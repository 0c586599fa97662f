// The workload driver: the initiator that issues operations into the platform.
//
// It injects each operation into its first element with the ready time as
// annotated delay, and releases dependent operations when responses come back,
// so no SystemC event is spent per operation.
#pragma once

#include <cstdint>
#include <vector>

#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "core/operation.h"

namespace cnuas {

class Element;

// Operations of one workload entry: its repetitions and what it waits for.
struct OperationGroup {
  std::vector<Operation*> instances;
  std::uint64_t start_ps = 0;
  bool periodic = false;  // false: repetitions run back to back
  std::uint64_t interval_ps = 0;
  std::vector<std::uint32_t> after;  // groups this one waits for
  std::vector<std::uint32_t> dependents;
  std::uint32_t waiting_for = 0;     // groups not yet complete
  std::uint64_t released_at_ps = 0;  // latest completion among the groups waited for
  std::uint32_t completed = 0;
  std::uint64_t completed_at_ps = 0;
};

class WorkloadDriver : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_initiator_socket<WorkloadDriver, 32, tlm::tlm_base_protocol_types, 0,
                                                sc_core::SC_ZERO_OR_MORE_BOUND>
      out;

  SC_HAS_PROCESS(WorkloadDriver);
  WorkloadDriver(sc_core::sc_module_name name, std::vector<OperationGroup> groups);

  std::uint64_t completed_operations() const { return completed_; }
  std::uint64_t total_operations() const { return total_; }
  const std::vector<OperationGroup>& groups() const { return groups_; }

 private:
  void start();
  void release(std::uint32_t group);
  void inject(Operation& op, std::uint64_t ready_ps);
  tlm::tlm_sync_enum nb_transport_bw(int id, tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);

  std::vector<OperationGroup> groups_;
  std::vector<std::uint32_t> group_of_;  // by operation index
  std::vector<std::uint32_t> position_;  // repetition number by operation index
  PayloadPool& payloads_;
  std::uint64_t completed_ = 0;
  std::uint64_t total_ = 0;
};

}  // namespace cnuas
