// The trace's rules (docs/concepts.md, "The trace's rules"), checked from a
// JSON Lines trace alone:
//
//  * records only, ordered by (t_ps, seq), seq unique; the header (version 3)
//    in the run's metadata.json next to the trace when there is one, its
//    `events` equal to the records;
//  * every stage record: t_ps = start_ps, ready_ps <= start_ps <= free_ps <= end_ps;
//  * replaying the records in seq (booking) order, each took its lane at
//    start = max(ready_ps, or admitted_ps when held upstream, the lane's free
//    time) — the lane's free time being the free_ps of the last record on it —
//    and, unless pinned, took the lane of its `among` group that freed first
//    (ties to the lowest index);
//  * so no two records overlap on a lane between start_ps and free_ps;
//  * an engine or ingress record (`part`) is followed by its stage's main
//    record, which it reached no earlier than it started; an engine is held
//    until the data has left the main lane (its free_ps >= the main free_ps).
#pragma once

#include <algorithm>
#include <charconv>
#include <fstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace cnuas::testing_support {

struct TraceRecord {
  std::uint64_t seq, ready, start, free, end, admitted;
  std::uint32_t component, lane, stage, first, count;
  std::string op, part;  // part: "", "engine" or "ingress"
  bool pinned;
};

struct TraceFacts {
  nlohmann::json header;
  std::vector<std::string> components;  // by id
  std::vector<TraceRecord> records;     // in seq order
  std::vector<nlohmann::json> events;   // point events (power)
};

// A stage record's members, read straight from the line the writer wrote
// (flat members but for `dims` and `among`, no quotes inside names): parsing
// every line as JSON takes minutes on the large platforms' traces.
class RecordLine {
 public:
  explicit RecordLine(std::string_view line) : line_(line) {}
  bool has(std::string_view key) const { return find(key) != std::string_view::npos; }
  std::uint64_t number(std::string_view key, std::uint64_t otherwise = 0) const {
    const std::size_t at = find(key);
    if (at == std::string_view::npos) return otherwise;
    std::uint64_t value = 0;
    const char* begin = line_.data() + at;
    if (std::from_chars(begin, line_.data() + line_.size(), value).ptr == begin)
      ADD_FAILURE() << key << " is not a number in " << line_;
    return value;
  }
  std::string text(std::string_view key) const {
    const std::size_t at = find(key);
    if (at == std::string_view::npos || line_[at] != '"') return "";
    return std::string(line_.substr(at + 1, line_.find('"', at + 1) - at - 1));
  }
  // [a,b] of `among`.
  std::pair<std::uint32_t, std::uint32_t> pair(std::string_view key) const {
    const std::size_t at = find(key);
    std::uint32_t a = 0, b = 0;
    if (at == std::string_view::npos || line_[at] != '[') return {a, b};
    const char* end = line_.data() + line_.size();
    auto [next, ec] = std::from_chars(line_.data() + at + 1, end, a);
    if (ec == std::errc() && next < end && *next == ',') std::from_chars(next + 1, end, b);
    return {a, b};
  }

 private:
  // Where `"key":`'s value starts.
  std::size_t find(std::string_view key) const {
    for (std::size_t at = line_.find(key); at != std::string_view::npos;
         at = line_.find(key, at + 1))
      if (at > 0 && line_[at - 1] == '"' && at + key.size() + 1 < line_.size() &&
          line_[at + key.size()] == '"' && line_[at + key.size() + 1] == ':')
        return at + key.size() + 2;
    return std::string_view::npos;
  }
  std::string_view line_;
};

// Reads `path` line by line (traces of large platforms are big) and checks the
// rules above with gtest assertions; returns what it read.
inline TraceFacts check_trace_rules(const std::string& path) {
  TraceFacts facts;
  std::ifstream in(path);
  std::string line;
  const std::string metadata = path.substr(0, path.rfind('/') + 1) + "metadata.json";
  if (std::ifstream meta{metadata}) {
    facts.header = nlohmann::json::parse(meta)["trace_header"];
    EXPECT_EQ(facts.header["format"], "cnuas-trace");
    EXPECT_EQ(facts.header["version"], 3);
  }
  std::unordered_map<std::string, std::uint32_t> component_ids;
  std::uint64_t lines = 0, last_t = 0, last_seq = 0;
  std::vector<std::uint64_t> event_seqs;
  while (std::getline(in, line)) {
    const RecordLine e(line);
    EXPECT_TRUE(line.size() > 2 && line.front() == '{' && line.back() == '}') << line;
    const std::uint64_t t = e.number("t_ps"), seq = e.number("seq");
    EXPECT_TRUE(lines == 0 || t > last_t || (t == last_t && seq > last_seq))
        << "trace not ordered at line " << lines + 1;
    last_t = t;
    last_seq = seq;
    ++lines;
    if (e.has("event")) {  // a point event: time, seq, component, class
      const nlohmann::json event = nlohmann::json::parse(line);
      for (const char* key : {"t_ps", "seq", "component", "class"})
        EXPECT_TRUE(event.contains(key)) << line;
      facts.events.push_back(event);
      event_seqs.push_back(seq);
      continue;
    }
    for (const char* key : {"t_ps", "seq", "op", "stage", "component", "lane", "ready_ps",
                            "start_ps", "free_ps", "end_ps", "dims", "class"})
      EXPECT_TRUE(e.has(key)) << key << " missing in " << line;
    EXPECT_NE(e.has("pinned"), e.has("among")) << "pinned or among: " << line;
    TraceRecord r{};
    r.seq = seq;
    r.ready = e.number("ready_ps");
    r.start = e.number("start_ps");
    r.free = e.number("free_ps");
    r.end = e.number("end_ps");
    r.admitted = e.number("admitted_ps", r.ready);
    const std::string component = e.text("component");
    r.component = component_ids.emplace(component, component_ids.size()).first->second;
    if (r.component == facts.components.size()) facts.components.push_back(component);
    r.lane = static_cast<std::uint32_t>(e.number("lane"));
    r.stage = static_cast<std::uint32_t>(e.number("stage"));
    r.op = e.text("op");
    r.part = e.text("part");
    r.pinned = e.has("pinned");
    const auto among = e.pair("among");
    r.first = r.pinned ? r.lane : among.first;
    r.count = r.pinned ? 1 : among.second;
    EXPECT_EQ(t, r.start) << line;
    EXPECT_TRUE(r.ready <= r.admitted && r.admitted <= r.start && r.start <= r.free &&
                r.free <= r.end)
        << "times out of order: " << line;
    facts.records.push_back(std::move(r));
  }
  if (facts.header.contains("events")) {
    EXPECT_EQ(facts.header["events"].get<std::uint64_t>(), lines);
  }
  EXPECT_GT(lines, 0u) << path << " is empty";
  std::sort(facts.records.begin(), facts.records.end(),
            [](const TraceRecord& a, const TraceRecord& b) { return a.seq < b.seq; });
  // seq is unique over stages and point events.
  std::vector<std::uint64_t> seqs = event_seqs;
  for (const TraceRecord& r : facts.records) seqs.push_back(r.seq);
  std::sort(seqs.begin(), seqs.end());
  EXPECT_TRUE(std::adjacent_find(seqs.begin(), seqs.end()) == seqs.end()) << "duplicate seq";
  // Replay in booking order: each lane's free time is that of its last booking.
  std::unordered_map<std::uint64_t, std::uint64_t> lane_free;  // by component x 65536 + lane
  auto free_of = [&](std::uint32_t c, std::uint32_t lane) {
    auto it = lane_free.find(std::uint64_t{c} << 16 | lane);
    return it == lane_free.end() ? std::uint64_t{0} : it->second;
  };
  for (std::size_t i = 0; i < facts.records.size(); ++i) {
    const TraceRecord& r = facts.records[i];
    const std::string& name = facts.components[r.component];
    EXPECT_TRUE(r.first <= r.lane && r.lane < r.first + r.count)
        << name << " seq " << r.seq << ": lane outside its group";
    if (!r.pinned)
      for (std::uint32_t l = r.first; l < r.first + r.count; ++l) {
        const std::uint64_t other = free_of(r.component, l), mine = free_of(r.component, r.lane);
        EXPECT_TRUE(mine < other || (mine == other && r.lane <= l))
            << name << " seq " << r.seq << ": lane " << r.lane << " (free at " << mine
            << ") taken while lane " << l << " was free at " << other;
      }
    const std::uint64_t lane_was_free = free_of(r.component, r.lane);
    EXPECT_EQ(r.start, std::max(r.admitted, lane_was_free))
        << name << " seq " << r.seq << " lane " << r.lane;
    lane_free[std::uint64_t{r.component} << 16 | r.lane] = r.free;
    if (!r.part.empty()) {
      EXPECT_TRUE(i + 1 < facts.records.size() && facts.records[i + 1].part.empty() &&
                  facts.records[i + 1].op == r.op && facts.records[i + 1].stage == r.stage &&
                  facts.records[i + 1].component == r.component)
          << name << " seq " << r.seq << ": a " << r.part << " record without its main record";
      if (i + 1 < facts.records.size()) {
        const TraceRecord& main = facts.records[i + 1];
        EXPECT_GE(main.ready, r.start) << name << " seq " << r.seq;
        EXPECT_EQ(main.end, r.end) << name << " seq " << r.seq;
        if (r.part == "engine") {
          EXPECT_GE(r.free, main.free) << name << " seq " << r.seq;
        }
      }
    }
  }
  // No lane is held while its element is down (element_down ... element_up);
  // a failed port's event lists its `lanes`, the only ones down.
  struct Down {
    std::uint64_t from, to;
    std::vector<std::uint32_t> lanes;  // empty: all
  };
  std::unordered_map<std::string, std::vector<Down>> down;
  for (const nlohmann::json& e : facts.events)
    if (e["event"] == "element_down")
      down[e["component"].get<std::string>()].push_back(
          {e["t_ps"].get<std::uint64_t>(), e["until_ps"].get<std::uint64_t>(),
           e.contains("lanes") ? e["lanes"].get<std::vector<std::uint32_t>>()
                               : std::vector<std::uint32_t>{}});
  if (!down.empty())
    for (const TraceRecord& r : facts.records) {
      const auto spans = down.find(facts.components[r.component]);
      if (spans == down.end()) continue;
      for (const auto& [from, to, lanes] : spans->second)
        EXPECT_TRUE(
            r.start >= to || std::max(r.free, r.start + 1) <= from ||
            (!lanes.empty() && std::find(lanes.begin(), lanes.end(), r.lane) == lanes.end()))
            << facts.components[r.component] << " seq " << r.seq << " holds its lane over ["
            << r.start << ", " << r.free << ") while down over [" << from << ", " << to << ")";
    }
  return facts;
}

}  // namespace cnuas::testing_support
