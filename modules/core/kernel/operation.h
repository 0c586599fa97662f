// One operation instance in flight: its work, its route and where it has been.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <tlm>

#include "core/kernel/work.h"

namespace cnuas {

class Element;

enum class StageMode : std::uint8_t {
  Serial,   // stage k+1 is ready when stage k ends
  Overlap,  // stages stream: all are ready together, the slowest decides the end
};

// The elements an operation crosses and the socket bindings between them;
// shared by every repetition of a workload entry.
struct Route {
  static constexpr std::uint32_t kNoPort = UINT32_MAX;
  std::vector<Element*> path;
  std::vector<std::uint32_t> out_port;  // out_port[k]: binding of path[k].out leading to path[k+1]
  // Binding of path[0].in the initiator is on: the response goes back through it.
  std::uint32_t initiator_port = 0;
  // in_port[k]: where path[k-1] is among path[k]'s senders (Element::senders());
  // kNoPort for k = 0 or when unknown. May be empty.
  std::vector<std::uint32_t> in_port;
};

// What every repetition of a workload entry shares.
struct OperationSpec {
  std::string name;
  WorkDims dims;
  bool repeated = false;  // instances are named "name#i"
  bool read = false;      // a read (data flows back): PCIe adds the read-request round trip
  std::string request;    // management request kind, for BMC-class elements
  std::string where;      // "file:line:col" of its workload entry, for messages ("" if none)
  // Its time came from the cycle-level GPU model (a kernel in performance
  // mode), not from a closed form: its stages are of class "model".
  bool model_timed = false;
};

// One cache line per operation instance: large workloads stay cache-friendly.
struct Operation {
  const OperationSpec* spec = nullptr;
  const WorkDims* dims = nullptr;  // &spec->dims, at hand for the models
  const Route* route = nullptr;
  std::uint64_t ready_ps = 0;  // when its first stage became ready
  std::uint64_t end_ps = 0;    // latest stage end so far
  std::uint32_t index = 0;
  std::uint32_t repetition = 0;
  StageMode mode = StageMode::Serial;
  // Failed: a stage met an outage of an element that fails its operations
  // (on_outage: fail, or a request timed out); cancelled: something it waited
  // for failed or was cancelled, so it never started.
  enum class Outcome : std::uint8_t { Done, Failed, Cancelled };
  Outcome outcome = Outcome::Done;
  tlm::tlm_generic_payload* payload = nullptr;  // held only while in flight

  // "h2d", or "h2d#3" for the fourth repetition.
  std::string name() const {
    return spec->repeated ? spec->name + "#" + std::to_string(repetition) : spec->name;
  }
};

// One stage of an operation as a model sees it: the work, and where on its
// route the operation is (the switch picks its output port from the next hop).
struct Stage {
  const Operation& op;
  std::uint32_t index;

  const WorkDims& dims() const { return *op.dims; }
  const Element* previous() const { return index > 0 ? op.route->path[index - 1] : nullptr; }
  const Element* next() const {
    return index + 1 < op.route->path.size() ? op.route->path[index + 1] : nullptr;
  }
  // Binding of this element's `out` socket towards next(); only valid when next() exists.
  std::uint32_t out_port() const { return op.route->out_port[index]; }
  // Where previous() is among this element's senders, or Route::kNoPort.
  std::uint32_t in_port() const {
    return index < op.route->in_port.size() ? op.route->in_port[index] : Route::kNoPort;
  }
};

// Ties a stage-protocol transaction to its operation and the stage it is
// heading for: the work travels here, not in the payload's data.
struct OperationExtension : tlm::tlm_extension<OperationExtension> {
  Operation* operation = nullptr;
  std::uint32_t next_stage = 0;

  tlm::tlm_extension_base* clone() const override { return new OperationExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const OperationExtension&>(other);
  }
};

// Payloads for operations in flight, reused in LIFO order so that the ones in
// use stay in cache (the role of a TLM memory manager).
class PayloadPool {
 public:
  tlm::tlm_generic_payload& acquire(Operation& op);
  void release(Operation& op);

 private:
  std::vector<std::unique_ptr<tlm::tlm_generic_payload>> all_;
  std::vector<tlm::tlm_generic_payload*> free_;
};

}  // namespace cnuas
