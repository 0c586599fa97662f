#include "core/outputs/waveforms.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "core/kernel/errors.h"
#include "core/kernel/scheduler.h"

namespace cnuas {

namespace {

// VCD identifier codes: printable ASCII '!' to '~', shortest first.
std::string identifier_code(std::size_t index) {
  std::string code;
  do {
    code.push_back(static_cast<char>('!' + index % 94));
    index /= 94;
  } while (index-- > 0);
  return code;
}

}  // namespace

Waveforms::Waveforms(sc_core::sc_module_name name, const std::string& vcd_path)
    : sc_module(name), path_(vcd_path) {
  out_.open(path_, std::ios::binary | std::ios::trunc);
  if (!out_) throw InputError(fmt::format("cannot write VCD file '{}'", path_));
  SC_METHOD(apply);
  sensitive << wake_;
  dont_initialize();
}

Waveforms::~Waveforms() {
  try {
    close();
  } catch (...) {
    // A destructor must not throw; close() was called already where it matters.
  }
}

std::string Waveforms::save_file_path(const std::string& vcd_path) {
  std::filesystem::path p(vcd_path);
  p.replace_extension(".gtkw");
  return p.string();
}

std::uint32_t Waveforms::add_signal(const std::string& group, const std::string& signal, int width,
                                    Display display) {
  if (std::find(groups_.begin(), groups_.end(), group) == groups_.end()) groups_.push_back(group);
  Signal s;
  s.group = group;
  s.name = group + "." + signal;
  s.width = width;
  s.display = display;
  s.code = identifier_code(signals_.size());
  signals_.push_back(std::move(s));
  return static_cast<std::uint32_t>(signals_.size() - 1);
}

std::uint32_t Waveforms::power_signal(const std::string& rack) {
  auto [it, inserted] = power_signals_.try_emplace(rack, 0);
  if (inserted)
    it->second = add_signal("power", (rack.empty() ? std::string("platform") : rack) + "_mW", 32,
                            Display::Analog);
  return it->second;
}

void Waveforms::add_initial(std::uint32_t id, std::uint32_t value) {
  signals_[id].value += value;
}

void Waveforms::start_of_simulation() {
  write_header();
}

// One scope per group would make GTKWave show "lane0_busy" alone; the full
// name as the variable's reference reads the same in the VCD, the viewer, the
// trace and the stats.
void Waveforms::write_header() {
  if (header_written_) return;
  header_written_ = true;
  // No $date: the same inputs give byte-identical files.
  out_ << "$version cnuas $end\n$timescale 1 ps $end\n$scope module cnuas $end\n";
  for (const Signal& s : signals_)
    out_ << fmt::format("$var {} {} {} {} $end\n", s.width == 1 ? "wire" : "reg", s.width, s.code,
                        s.name);
  out_ << "$upscope $end\n$enddefinitions $end\n#0\n$dumpvars\n";
  for (Signal& s : signals_) {
    write_value(s);
    s.written = s.value;
  }
  out_ << "$end\n";
}

void Waveforms::write_value(const Signal& s) {
  if (s.width == 1) {
    out_ << (s.value != 0 ? '1' : '0') << s.code << '\n';
    return;
  }
  std::string bits;
  for (std::uint32_t v = s.value; v != 0; v >>= 1) bits.push_back(v & 1 ? '1' : '0');
  if (bits.empty()) bits = "0";
  std::reverse(bits.begin(), bits.end());
  out_ << 'b' << bits << ' ' << s.code << '\n';
}

void Waveforms::post(std::uint32_t id, std::uint64_t at_ps, int delta) {
  heap_.push_back({at_ps, order_++, id, delta});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
  if (at_ps < armed_for_) {
    armed_for_ = at_ps;
    wake_.notify(ps_time(at_ps - now_ps()));
  }
}

// Values of one time step are written once it is over: several deltas at the
// same picosecond may change the same signal.
void Waveforms::flush_pending() {
  bool stamped = pending_ps_ == written_ps_;
  for (std::uint32_t id : dirty_) {
    Signal& s = signals_[id];
    s.dirty = false;
    if (s.value == s.written) continue;
    if (!stamped) {
      out_ << '#' << pending_ps_ << '\n';
      written_ps_ = pending_ps_;
      stamped = true;
    }
    write_value(s);
    s.written = s.value;
  }
  dirty_.clear();
}

void Waveforms::apply() {
  const std::uint64_t now = now_ps();
  if (now != pending_ps_) flush_pending();
  pending_ps_ = now;
  armed_for_ = UINT64_MAX;
  while (!heap_.empty() && heap_.front().at_ps <= now) {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    const Change c = heap_.back();
    heap_.pop_back();
    Signal& s = signals_[c.signal];
    s.value = static_cast<std::uint32_t>(static_cast<int>(s.value) + c.delta);
    if (!s.dirty) {
      s.dirty = true;
      dirty_.push_back(c.signal);
    }
  }
  if (!heap_.empty()) {
    armed_for_ = heap_.front().at_ps;
    wake_.notify(ps_time(armed_for_ - now));
  }
}

void Waveforms::close() {
  if (closed_) return;
  closed_ = true;
  write_header();  // a run that never started still gets a readable file
  flush_pending();
  // The run's end, so that viewers show its whole span.
  const std::uint64_t end = std::max<std::uint64_t>(
      written_ps_, static_cast<std::uint64_t>(sc_core::sc_time_stamp().value()));
  if (end > written_ps_) out_ << '#' << end << '\n';
  out_.close();
  write_save_file(end);
}

// GTKWave's save file: one group per element (closed when there are many),
// power as decimal analog steps three rows high, counts in decimal, and the
// zoom that shows the whole run in the window it asks for.
void Waveforms::write_save_file(std::uint64_t end_ps) const {
  std::ofstream gtkw(save_file_path(path_), std::ios::binary | std::ios::trunc);
  if (!gtkw) throw InputError(fmt::format("cannot write '{}'", save_file_path(path_)));
  // GTKWave trace flags (its analyzer.h): decimal 0x4, binary 0x8, right
  // justified 0x20, blank row 0x200, analog step 0x8000, analog row stretch
  // 0x20000, closed group 0x400000, group begin 0x800000, group end 0x1000000.
  constexpr unsigned kDec = 0x4, kBin = 0x8, kRight = 0x20, kBlank = 0x200, kAnalog = 0x8000,
                     kStretch = 0x20000, kClosed = 0x400000, kBegin = 0x800000, kEnd = 0x1000000;
  // The wave area is the window less the two panes beside it: about 800 px.
  constexpr int kWidth = 1400, kTreeWidth = 250, kNamesWidth = 350;
  const double wave_px = kWidth - kTreeWidth - kNamesWidth;
  // GTKWave draws 2^-zoom time units per pixel; a little out so the end shows.
  const double zoom =
      end_ps == 0 ? 0.0 : -std::ceil(std::log2(static_cast<double>(end_ps) / wave_px) + 0.05);
  gtkw << "[*] GTKWave save file written by cnuas for "
       << std::filesystem::path(path_).filename().string() << "\n";
  gtkw << "[dumpfile] \"" << std::filesystem::path(path_).filename().string() << "\"\n";
  gtkw << "[timestart] 0\n";
  gtkw << fmt::format("[size] {} 900\n[pos] -1 -1\n", kWidth);
  gtkw << fmt::format("*{:.6f} -1", zoom);
  for (int marker = 0; marker < 26; ++marker) gtkw << " -1";
  gtkw << "\n";
  gtkw << fmt::format("[sst_width] {}\n[signals_width] {}\n", kTreeWidth, kNamesWidth);
  gtkw << "[sst_expanded] 1\n[sst_vpaned_height] 300\n";
  const bool closed = groups_.size() > 16;
  for (const std::string& group : groups_) {
    const bool power = group == "power";
    gtkw << fmt::format("@{:x}\n-{}\n", kBegin | kBlank | (closed && !power ? kClosed : 0), group);
    for (const Signal& s : signals_) {
      if (s.group != group) continue;
      switch (s.display) {
        case Display::Bit:
          gtkw << fmt::format("@{:x}\ncnuas.{}\n", kRight | kBin, s.name);
          break;
        case Display::Decimal:
          gtkw << fmt::format("@{:x}\ncnuas.{}\n", kRight | kDec, s.name);
          break;
        case Display::Analog:
          gtkw << fmt::format("@{:x}\ncnuas.{}\n@{:x}\n-\n-\n", kRight | kDec | kAnalog, s.name,
                              kStretch);
          break;
      }
    }
    gtkw << fmt::format("@{:x}\n-{}\n", kEnd | kBlank, group);
  }
}

}  // namespace cnuas
