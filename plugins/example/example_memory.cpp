// A loosely-timed memory target, as any TLM-2.0 vendor model might be written:
// a tlm_utils::simple_target_socket whose b_transport stores the data and
// annotates 20 ns of access time plus 1 ns per 16 bytes (a 16 GB/s port).
#include <cstring>
#include <string>
#include <vector>

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

namespace example {

class LtMemory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<LtMemory> socket;

  explicit LtMemory(sc_core::sc_module_name name)
      : sc_module(name), socket("socket"), storage_(1 << 20) {
    socket.register_b_transport(this, &LtMemory::b_transport);
  }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
    const sc_dt::uint64 address = trans.get_address() % storage_.size();
    const unsigned length = trans.get_data_length();
    const std::size_t in_range = std::min<std::size_t>(length, storage_.size() - address);
    if (trans.is_write()) {
      std::memcpy(&storage_[address], trans.get_data_ptr(), in_range);
    } else if (trans.is_read()) {
      std::memcpy(trans.get_data_ptr(), &storage_[address], in_range);
    }
    delay +=
        sc_core::sc_time(20, sc_core::SC_NS) + sc_core::sc_time((length + 15) / 16, sc_core::SC_NS);
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
  }

  std::vector<unsigned char> storage_;
};

}  // namespace example

extern "C" {

const char* const* cnuas_plugin_model_types() {
  static const char* const types[] = {
      "example.lt_memory", "loosely-timed memory: 20 ns + 1 ns per 16 B", nullptr, nullptr};
  return types;
}

sc_core::sc_module* cnuas_plugin_create(const char* type, const char* name) {
  if (std::string(type) == "example.lt_memory") return new example::LtMemory(name);
  return nullptr;
}

}  // extern "C"
