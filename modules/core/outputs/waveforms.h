// VCD waveforms: per-lane busy, per-element queue depth and power, with a
// GTKWave save file beside them.
//
// Bookings know their start and end ahead of time, so changes are posted to a
// small calendar and applied by one SC_METHOD at the right picosecond. The VCD
// is written here, not through sc_trace: SystemC rewrites names with brackets
// ("server[0]" becomes "server(0)", with a warning per signal), and signal
// names must read as they do in the trace and stats. Nothing here runs unless a
// VCD file was asked for.
#pragma once

#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <systemc>

namespace cnuas {

class Waveforms : public sc_core::sc_module {
 public:
  // How GTKWave shows a signal (the save file's trace flags).
  enum class Display { Bit, Decimal, Analog };

  SC_HAS_PROCESS(Waveforms);
  Waveforms(sc_core::sc_module_name name, const std::string& vcd_path);
  ~Waveforms() override;

  // Registers `group`.`signal` (the group an element's name, or "power") with
  // `width` bits; returns its id. Groups keep the order they first appear in.
  std::uint32_t add_signal(const std::string& group, const std::string& signal, int width,
                           Display display);
  // Adds `delta` to signal `id` at absolute time `at_ps`.
  void post(std::uint32_t id, std::uint64_t at_ps, int delta);
  // The signal carrying a rack's power in milliwatts ("power.<rack>_mW"; the
  // empty rack is the whole platform), created on first use.
  std::uint32_t power_signal(const std::string& rack);
  // A value the signal starts from (an element's idle power).
  void add_initial(std::uint32_t id, std::uint32_t value);
  // Writes what is left, the run's end time and the GTKWave save file. The
  // destructor does it when nobody did.
  void close();

  // The save file written beside `vcd_path` ("waves.vcd" -> "waves.gtkw").
  static std::string save_file_path(const std::string& vcd_path);

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
  struct Signal {
    std::string group;
    std::string name;  // group + "." + signal: what the VCD and GTKWave show
    int width;
    Display display;
    std::string code;  // the VCD identifier code
    std::uint32_t value = 0;
    std::uint32_t written = 0;
    bool dirty = false;
  };
  void apply();
  void flush_pending();
  void write_value(const Signal& s);
  void write_header();
  void write_save_file(std::uint64_t end_ps) const;

  std::string path_;
  std::ofstream out_;
  std::vector<Signal> signals_;
  std::vector<std::string> groups_;  // in order of appearance
  std::map<std::string, std::uint32_t> power_signals_;
  std::vector<std::uint32_t> dirty_;
  std::uint64_t pending_ps_ = 0;  // the time the dirty values belong to
  std::uint64_t written_ps_ = 0;  // the last "#time" written
  bool header_written_ = false;
  bool closed_ = false;
  std::vector<Change> heap_;
  std::uint64_t order_ = 0;
  std::uint64_t armed_for_ = UINT64_MAX;
  sc_core::sc_event wake_;

  void start_of_simulation() override;
};

}  // namespace cnuas
