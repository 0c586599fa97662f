// A native plugin for the error tests. `test.faulty` serves `bytes` in 1 ps
// per byte, except that a stage of exactly 13 bytes hits a bug of the model's
// own: service_ps throws std::logic_error. Cnuas must report that as an
// internal error (exit 1) naming the element and the operation, not as bad input.
#include <stdexcept>

#include "core/kernel/element.h"
#include "core/kernel/registry.h"

namespace cnuas::testing_support {

class FaultyModel : public Element {
 public:
  FaultyModel(sc_core::sc_module_name name, const ParamSet& params) : Element(name, params, 1) {}
  static const Schema& schema() {
    static const Schema s =
        Schema("test.faulty", "a test model whose service_ps throws std::logic_error at 13 bytes")
            .needs({WorkDim::Bytes});
    return s;
  }
  std::uint64_t service_ps(const Stage& stage) override {
    const std::uint64_t bytes = stage.dims().get(WorkDim::Bytes);
    if (bytes == 13) throw std::logic_error("unlucky size reached a branch the model never wrote");
    return bytes;
  }
};

CNUAS_REGISTER_MODEL(FaultyModel);

}  // namespace cnuas::testing_support
