// VCD waveforms through sc_trace: per-lane busy and per-element queue depth.
//
// Bookings know their start and end ahead of time, so changes are posted to a
// small calendar and applied by one SC_METHOD at the right picosecond; the VCD
// writer samples the traced variables at the end of each time step. Nothing
// here runs unless a VCD file was asked for.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

namespace cnuas {

class Waveforms : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Waveforms);
  Waveforms(sc_core::sc_module_name name, const std::string& vcd_path);
  ~Waveforms() override;

  // Registers a counter traced as `signal_name` with `width` bits; returns its id.
  std::uint32_t add_signal(const std::string& signal_name, int width);
  // Adds `delta` to signal `id` at absolute time `at_ps`.
  void post(std::uint32_t id, std::uint64_t at_ps, int delta);
  // The signal carrying a rack's power in milliwatts ("power.<rack>_mW"; the
  // empty rack is the whole platform), created on first use.
  std::uint32_t power_signal(const std::string& rack);
  // A value the signal starts from (an element's idle power).
  void add_initial(std::uint32_t id, std::uint32_t value);

 private:
  struct Change {
    std::uint64_t at_ps;
    std::uint64_t order;
    std::uint32_t signal;
    int delta;
  };
  struct Later {
    bool operator()(const Change& a, const Change& b) const {
      return a.at_ps != b.at_ps ? a.at_ps > b.at_ps : a.order > b.order;
    }
  };
  void apply();
  static void remove_date(const std::string& path);

  sc_core::sc_trace_file* file_ = nullptr;
  std::string path_;
  std::vector<std::string> pending_names_;
  std::vector<int> pending_widths_;
  std::vector<std::uint32_t> initial_;
  std::map<std::string, std::uint32_t> power_signals_;
  // Stable addresses: sc_trace keeps references to these.
  std::unique_ptr<std::uint32_t[]> values_;
  std::size_t capacity_ = 0;
  std::vector<Change> heap_;
  std::uint64_t order_ = 0;
  std::uint64_t armed_for_ = UINT64_MAX;
  sc_core::sc_event wake_;

  void start_of_simulation() override;
};

}  // namespace cnuas
