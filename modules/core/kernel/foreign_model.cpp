#include "core/kernel/foreign_model.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

namespace cnuas {

ForeignModel::ForeignModel(sc_core::sc_module_name name, const ParamSet& params,
                           ForeignCreateFn create)
    : Element(name, params, static_cast<std::uint32_t>(params.integer("lanes"))),
      to_model("to_model") {
  // The plugin makes the model with `new`; the wrapper owns it from here on and
  // deletes it before itself, as SystemC wants children gone before parents.
  model_.reset(create(type().c_str(), "model"));
  if (model_ == nullptr)
    throw InputError(
        describe(fmt::format("the plugin did not create a model of type '{}'", type())));
  using TargetSocket =
      tlm::tlm_base_target_socket_b<32, tlm::tlm_fw_transport_if<>, tlm::tlm_bw_transport_if<>>;
  TargetSocket* target = nullptr;
  for (sc_core::sc_object* child : model_->get_child_objects())
    if (auto* s = dynamic_cast<TargetSocket*>(child)) {
      target = s;
      break;
    }
  if (target == nullptr)
    throw InputError(describe("the plugin's model has no 32-bit TLM-2.0 target socket"));
  to_model.bind(*target);
}

std::uint64_t ForeignModel::service_ps(const Stage& stage) {
  const std::uint64_t bytes = stage.dims().get(WorkDim::Bytes);
  // A base-protocol payload's length is an unsigned int; the buffer is real.
  if (bytes > UINT32_MAX)
    throw InputError(fmt::format("{} bytes in one request; a TLM-2.0 model takes at most {}", bytes,
                                 UINT32_MAX));
  unsigned char* data = scratch_.at_least(bytes);
  if (data == nullptr)
    throw InputError(fmt::format("cannot map a {}-byte data buffer for the request", bytes));
  tlm::tlm_generic_payload trans;
  trans.set_command(tlm::TLM_WRITE_COMMAND);
  trans.set_address(stage.dims().has(WorkDim::Address) ? stage.dims().get(WorkDim::Address) : 0);
  trans.set_data_ptr(data);
  trans.set_data_length(static_cast<unsigned>(bytes));
  trans.set_streaming_width(static_cast<unsigned>(bytes));
  trans.set_byte_enable_ptr(nullptr);
  trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  to_model->b_transport(trans, delay);
  if (trans.is_response_error())
    throw InputError(fmt::format("the model answered with {}", trans.get_response_string()));
  return delay.value();
}

ForeignModel::Scratch::~Scratch() {
  if (data != nullptr) munmap(data, bytes);
}

unsigned char* ForeignModel::Scratch::at_least(std::size_t wanted) {
  if (wanted <= bytes && data != nullptr) return data;
  if (data != nullptr) munmap(data, bytes);
  const std::size_t size = std::max<std::size_t>(wanted, 4096);
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  data = p == MAP_FAILED ? nullptr : static_cast<unsigned char*>(p);
  bytes = data != nullptr ? size : 0;
  return data;
}

std::unique_ptr<Schema> foreign_model_schema(const std::string& type, const std::string& summary) {
  auto schema = std::make_unique<Schema>(type, summary + " (third-party TLM-2.0 model)");
  schema->timing(
      "A request takes the lane that frees first and holds it for the delay the model annotates "
      "in b_transport (occupancy); no latency.");
  schema->integer("lanes", 1, "requests the model serves at once", 1, 4096);
  schema->needs({WorkDim::Bytes});
  return schema;
}

ModelInfo foreign_model_info(const Schema& schema, ForeignCreateFn create,
                             const std::string& origin) {
  return {&schema,
          [create](const std::string& name, const ParamSet& params) -> std::unique_ptr<Element> {
            return std::make_unique<ForeignModel>(name.c_str(), params, create);
          },
          origin};
}

}  // namespace cnuas
