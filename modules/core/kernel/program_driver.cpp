#include "core/kernel/program_driver.h"

#include <algorithm>

#include "core/kernel/element.h"
#include "core/kernel/scheduler.h"

namespace cnuas {

ProgramDriver::ProgramDriver(sc_core::sc_module_name name, PayloadPool& payloads)
    : sc_module(name), out("out"), payloads_(payloads) {
  out.register_nb_transport_bw(this, &ProgramDriver::nb_transport_bw);
}

void ProgramDriver::inject(Operation& op, std::uint64_t ready_ps) {
  ready_ps = std::max(ready_ps, now_ps());
  op.ready_ps = ready_ps;
  op.end_ps = ready_ps;
  ++in_flight_;
  tlm::tlm_generic_payload& payload = payloads_.acquire(op);
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay = ps_time(ready_ps - now_ps());
  out[static_cast<int>(op.route->path.front()->index())]->nb_transport_fw(payload, phase, delay);
}

tlm::tlm_sync_enum ProgramDriver::nb_transport_bw(int, tlm::tlm_generic_payload& trans,
                                                  tlm::tlm_phase&, sc_core::sc_time& delay) {
  Operation& op = *trans.get_extension<OperationExtension>()->operation;
  const std::uint64_t done_ps = now_ps() + delay.value();
  payloads_.release(op);
  --in_flight_;
  if (completion_) completion_(op, done_ps);
  return tlm::TLM_COMPLETED;
}

}  // namespace cnuas
