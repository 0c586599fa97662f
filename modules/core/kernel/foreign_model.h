// A third-party TLM-2.0 target placed on a Cnuas path: the one bridge between
// Cnuas's stage protocol (stage_protocol.h) and the TLM-2.0 base protocol.
//
// The wrapper is a Cnuas element: it takes stages on its stage-protocol `in`,
// books lanes and writes the trace like any other. Its service time is what the
// foreign model annotates when the wrapper calls its b_transport through the
// base-protocol socket `to_model`, with a real data buffer of `bytes` bytes
// (loosely-timed style; the model must not wait()).
#pragma once

#include <memory>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>

#include "core/kernel/element.h"
#include "core/kernel/registry.h"

namespace cnuas {

using ForeignCreateFn = sc_core::sc_module* (*)(const char* type, const char* name);

class ForeignModel : public Element {
 public:
  tlm_utils::simple_initiator_socket<ForeignModel> to_model;

  ForeignModel(sc_core::sc_module_name name, const ParamSet& params, ForeignCreateFn create);
  std::uint64_t service_ps(const Stage& stage) override;
  // The foreign model may read sc_time_stamp() in b_transport: call it on time.
  bool allows_lookahead() const override { return false; }
  sc_core::sc_module* model() const { return model_.get(); }

 private:
  // The request's data buffer: anonymous pages mapped on demand, so host
  // memory is spent only on the bytes the model really touches.
  struct Scratch {
    unsigned char* data = nullptr;
    std::size_t bytes = 0;
    ~Scratch();
    unsigned char* at_least(std::size_t wanted);
  };
  std::unique_ptr<sc_core::sc_module> model_;  // declared after to_model: destroyed first
  Scratch scratch_;
};

std::unique_ptr<Schema> foreign_model_schema(const std::string& type, const std::string& summary);
ModelInfo foreign_model_info(const Schema& schema, ForeignCreateFn create,
                             const std::string& origin);

}  // namespace cnuas
