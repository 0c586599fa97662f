// Counter tracks for the Perfetto / Chrome trace: per element, its power and
// its queue depth as step functions of time, derived from the booked stages.
//
// Power: idle_power, plus active_power (or the model's own stage power, e.g. a
// GPU kernel's counted energy) while a stage holds a main lane, nothing while
// a power cut holds the element. Queue depth: the element's stages waiting for
// one of its lanes (ready, not yet started). One point per time the value
// changes, in time order, so the tracks are the same on every run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cnuas {

class RunContext;

struct CounterTrack {
  std::uint32_t component;  // index into the run's components
  std::string name;         // "power" or "queue depth"
  std::string unit;         // the series name Perfetto shows: "W" or "stages"
  // (time, value): power in integer microwatts, queue depth in stages.
  std::vector<std::pair<std::uint64_t, std::int64_t>> points;
};

// The tracks of every traced element (an element with nothing to show, no
// power and no waits, has none).
std::vector<CounterTrack> element_counter_tracks(const RunContext& context);

// Integer microwatts as exact decimal watts: 12500000 -> "12.5".
std::string microwatts_text(std::int64_t uw);

}  // namespace cnuas
