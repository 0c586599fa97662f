#include "core/kernel/operation.h"

namespace cnuas {

tlm::tlm_generic_payload& PayloadPool::acquire(Operation& op) {
  if (free_.empty()) {
    all_.push_back(std::make_unique<tlm::tlm_generic_payload>());
    all_.back()->set_extension(new OperationExtension);
    free_.push_back(all_.back().get());
  }
  tlm::tlm_generic_payload* p = free_.back();
  free_.pop_back();
  auto* ext = p->get_extension<OperationExtension>();
  ext->operation = &op;
  ext->next_stage = 0;
  p->set_command(op.spec->read ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
  p->set_address(op.dims->has(WorkDim::Address) ? op.dims->get(WorkDim::Address) : 0);
  // Timing only (stage_protocol.h): the operation carries its work dimensions.
  p->set_data_ptr(nullptr);
  p->set_data_length(0);
  p->set_streaming_width(0);
  p->set_byte_enable_ptr(nullptr);
  p->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  op.payload = p;
  return *p;
}

void PayloadPool::release(Operation& op) {
  free_.push_back(op.payload);
  op.payload = nullptr;
}

}  // namespace cnuas
