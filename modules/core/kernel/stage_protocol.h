// The protocol Cnuas elements speak among themselves: not the TLM-2.0 base
// protocol, so its sockets have their own protocol type and a base-protocol
// socket cannot be bound to them (the bind does not compile).
//
// Rules (the only ones; nothing else is sent):
// - Forward: an initiator (a driver, or the element before on the path) calls
//   nb_transport_fw(payload, BEGIN_REQ, delay) on the target's `in` with the
//   stage's ready time as annotated delay (ready = now + delay). The target
//   returns TLM_ACCEPTED and queues the stage with the shared scheduler; there
//   is no END_REQ: acceptance is immediate and a target never refuses.
// - Backward: when the operation's last stage is booked, its end is known; the
//   last element sends nb_transport_bw(payload, BEGIN_RESP, delay) straight to
//   the operation's initiator (through the first element's `in`), with
//   delay = end - now. The elements in between are not called again. The
//   initiator returns TLM_COMPLETED; there is no END_RESP.
// - No b_transport, no DMI, no debug transport.
// - The payload carries timing only: the work (bytes, flops, address, ...) is
//   in the OperationExtension. The command says read or write and the address
//   repeats the `address` dimension for the curious; the data pointer is null
//   and the data length is 0.
//
// Third-party models speak the base protocol; ForeignModel (foreign_model.h)
// is the one bridge between the two.
#pragma once

#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <systemc>
#include <tlm>

namespace cnuas {

struct stage_protocol {
  using tlm_payload_type = tlm::tlm_generic_payload;
  using tlm_phase_type = tlm::tlm_phase;
};

// Multi-bindable sockets of the stage protocol (an element's `in` and `out`,
// a driver's `out`).
template <class Owner>
using StageTargetSocket =
    tlm_utils::multi_passthrough_target_socket<Owner, 32, stage_protocol, 0,
                                               sc_core::SC_ZERO_OR_MORE_BOUND>;
template <class Owner>
using StageInitiatorSocket =
    tlm_utils::multi_passthrough_initiator_socket<Owner, 32, stage_protocol, 0,
                                                  sc_core::SC_ZERO_OR_MORE_BOUND>;

}  // namespace cnuas
