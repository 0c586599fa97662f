// A memory transaction inside the GPU: one cache line (or a part of it, by
// sector mask) moving between SM, L1, NoC, L2 slice and DRAM. It travels as a
// TLM-2.0 generic payload whose extension carries the GPU-specific fields.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <tlm>

namespace cnuas::gpu {

enum class Access : std::uint8_t { Read, Write, Atomic };

struct MemRequest;

struct MemRequestExt : tlm::tlm_extension<MemRequestExt> {
  MemRequest* request = nullptr;
  tlm::tlm_extension_base* clone() const override { return new MemRequestExt(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    request = static_cast<const MemRequestExt&>(other).request;
  }
};

struct MemRequest {
  tlm::tlm_generic_payload payload;
  MemRequestExt ext;
  std::uint64_t line = 0;     // line-aligned address
  std::uint32_t sectors = 0;  // sectors of the line this request covers
  Access access = Access::Read;
  std::uint32_t sm = 0;     // the SM that asked (responses go back there)
  std::uint32_t slice = 0;  // the L2 slice it goes to: the line's home, or the SM's near copy of it
  std::uint32_t home = 0;   // the L2 slice that owns the line
  std::uint8_t hint = 0;    // CacheHint bits of the instruction
  std::uint32_t bytes = 0;  // data bytes moved (sectors x sector size)
  void* waiter = nullptr;   // who completes when the response arrives (owner-defined)
  bool tma = false;         // the SM's copy engine asked: L1 passes it on and back untouched
  std::uint64_t issued_ps = 0;

  MemRequest() {
    ext.request = this;
    payload.set_extension(&ext);
    payload.set_data_ptr(scratch_);
    payload.set_streaming_width(0);
    payload.set_byte_enable_ptr(nullptr);
    payload.set_dmi_allowed(false);
  }
  ~MemRequest() { payload.clear_extension(&ext); }
  MemRequest(const MemRequest&) = delete;
  MemRequest& operator=(const MemRequest&) = delete;

  // Fills the generic payload from the fields, for modules that read it.
  void seal() {
    payload.set_address(line);
    payload.set_command(access == Access::Write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    payload.set_data_length(bytes ? bytes : 1);
    payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  }

  static MemRequest& of(tlm::tlm_generic_payload& p) {
    return *p.get_extension<MemRequestExt>()->request;
  }

 private:
  unsigned char scratch_[8] = {};  // the model moves timing, not data (the PTX engine holds data)
};

// Requests are recycled: a kernel creates millions of them.
class RequestPool {
 public:
  MemRequest* get() {
    if (free_.empty()) {
      all_.push_back(std::make_unique<MemRequest>());
      return all_.back().get();
    }
    MemRequest* r = free_.back();
    free_.pop_back();
    return r;
  }
  void put(MemRequest* r) {
    r->waiter = nullptr;
    r->tma = false;
    r->hint = 0;
    free_.push_back(r);
  }

 private:
  std::vector<std::unique_ptr<MemRequest>> all_;
  std::vector<MemRequest*> free_;
};

}  // namespace cnuas::gpu
