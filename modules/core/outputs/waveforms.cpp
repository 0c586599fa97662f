#include "core/outputs/waveforms.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "core/kernel/scheduler.h"

namespace cnuas {

Waveforms::Waveforms(sc_core::sc_module_name name, const std::string& vcd_path) : sc_module(name) {
  std::string base = vcd_path;
  // sc_create_vcd_trace_file appends ".vcd" itself.
  if (base.size() > 4 && base.compare(base.size() - 4, 4, ".vcd") == 0)
    base.resize(base.size() - 4);
  path_ = base + ".vcd";
  file_ = sc_core::sc_create_vcd_trace_file(base.c_str());
  file_->set_time_unit(1, sc_core::SC_PS);
  SC_METHOD(apply);
  sensitive << wake_;
  dont_initialize();
}

Waveforms::~Waveforms() {
  if (file_ == nullptr) return;
  sc_core::sc_close_vcd_trace_file(file_);
  remove_date(path_);
}

// SystemC stamps the wall-clock date into the header; without it the same
// inputs give byte-identical VCD files.
void Waveforms::remove_date(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  in.close();
  auto begin = text.find("$date");
  auto end = text.find("$end", begin);
  if (begin == std::string::npos || end == std::string::npos) return;
  text.replace(begin, end - begin,
               "$date\n     (omitted so that identical runs give identical files)\n");
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

std::uint32_t Waveforms::add_signal(const std::string& signal_name, int width) {
  pending_names_.push_back(signal_name);
  pending_widths_.push_back(width);
  initial_.push_back(0);
  return static_cast<std::uint32_t>(pending_names_.size() - 1);
}

std::uint32_t Waveforms::power_signal(const std::string& rack) {
  auto [it, inserted] = power_signals_.try_emplace(rack, 0);
  if (inserted)
    it->second = add_signal("power." + (rack.empty() ? std::string("platform") : rack) + "_mW", 32);
  return it->second;
}

void Waveforms::add_initial(std::uint32_t id, std::uint32_t value) {
  initial_[id] += value;
}

void Waveforms::start_of_simulation() {
  // All signals are known once elaboration ends; trace them from stable storage.
  capacity_ = pending_names_.size();
  values_ = std::make_unique<std::uint32_t[]>(capacity_ ? capacity_ : 1);
  for (std::size_t i = 0; i < capacity_; ++i) {
    values_[i] = initial_[i];
    sc_core::sc_trace(file_, values_[i], pending_names_[i], pending_widths_[i]);
  }
}

void Waveforms::post(std::uint32_t id, std::uint64_t at_ps, int delta) {
  heap_.push_back({at_ps, order_++, id, delta});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
  if (at_ps < armed_for_) {
    armed_for_ = at_ps;
    wake_.notify(ps_time(at_ps - now_ps()));
  }
}

void Waveforms::apply() {
  const std::uint64_t now = now_ps();
  armed_for_ = UINT64_MAX;
  const bool applied_any = !heap_.empty() && heap_.front().at_ps <= now;
  while (!heap_.empty() && heap_.front().at_ps <= now) {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    const Change c = heap_.back();
    heap_.pop_back();
    values_[c.signal] = static_cast<std::uint32_t>(static_cast<int>(values_[c.signal]) + c.delta);
  }
  if (!heap_.empty()) {
    armed_for_ = heap_.front().at_ps;
    wake_.notify(ps_time(armed_for_ - now));
  } else if (applied_any) {
    // SystemC writes a time step's values when time moves on; when these were
    // the last changes, one more picosecond makes sure they reach the file.
    wake_.notify(ps_time(1));
  }
}

}  // namespace cnuas
