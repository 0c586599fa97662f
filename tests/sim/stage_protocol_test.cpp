// Compile-time checks of the stage protocol: an element's sockets bind to
// stage-protocol sockets and to nothing of the TLM-2.0 base protocol, so a
// standard TLM model can only reach an element through ForeignModel. The
// static_asserts are the test: this file does not compile if they fail.
#include <type_traits>
#include <utility>

#include <gtest/gtest.h>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "core/kernel/element.h"
#include "core/kernel/foreign_model.h"

namespace cnuas {
namespace {

// Whether `initiator.bind(target)` names a viable bind (checked without binding).
template <class Initiator, class Target, class = void>
struct Binds : std::false_type {};
template <class Initiator, class Target>
struct Binds<Initiator, Target,
             std::void_t<decltype(std::declval<Initiator&>().bind(std::declval<Target&>()))>>
    : std::true_type {};

struct Owner : sc_core::sc_module {};
using BaseSimpleInitiator = tlm_utils::simple_initiator_socket<Owner>;
using BaseMultiInitiator =
    tlm_utils::multi_passthrough_initiator_socket<Owner, 32, tlm::tlm_base_protocol_types, 0,
                                                  sc_core::SC_ZERO_OR_MORE_BOUND>;
using BaseTarget = tlm_utils::simple_target_socket<Owner>;
// Element::in as it was before the stage protocol: same socket, base protocol.
using BaseMultiTarget =
    tlm_utils::multi_passthrough_target_socket<Owner, 32, tlm::tlm_base_protocol_types, 0,
                                               sc_core::SC_ZERO_OR_MORE_BOUND>;

// The detector works: what Cnuas binds today is seen as bindable.
static_assert(Binds<StageInitiatorSocket<Owner>, decltype(Element::in)>::value,
              "a driver's stage-protocol socket must bind to Element::in");
static_assert(Binds<decltype(Element::out), decltype(Element::in)>::value,
              "Element::out must bind to Element::in");
static_assert(Binds<decltype(ForeignModel::to_model), BaseTarget>::value,
              "the foreign-model bridge must bind to a base-protocol target");
// ... and so are the base-protocol bindings the negative checks below refuse,
// had the element's socket kept the base protocol: only the protocol differs.
static_assert(Binds<BaseSimpleInitiator, BaseMultiTarget>::value);
static_assert(Binds<BaseMultiInitiator, BaseMultiTarget>::value);

// A standard TLM-2.0 base-protocol initiator cannot be bound to an element.
static_assert(!Binds<BaseSimpleInitiator, decltype(Element::in)>::value,
              "a base-protocol simple_initiator_socket must not bind to Element::in");
static_assert(!Binds<BaseMultiInitiator, decltype(Element::in)>::value,
              "a base-protocol multi_passthrough_initiator_socket must not bind to Element::in");
// Nor can an element's `out` drive a base-protocol target directly.
static_assert(!Binds<decltype(Element::out), BaseTarget>::value,
              "Element::out must not bind to a base-protocol target");

}  // namespace

// The checks above run when this file compiles; the test records that it did.
TEST(StageProtocol, BaseProtocolSocketsDoNotBindToElements) {
  SUCCEED();
}

}  // namespace cnuas
