// Power losses that stop a rack's elements. When a shelf loses power
// (battery_depleted, or no battery to take over) depends on the rack's load,
// and the load on when the elements stop: the run is repeated, each time in a
// child process forked before elaboration (SystemC elaborates once per
// process), with the power cuts the previous run found, until a run finds the
// cuts it was given. Work in flight at a cut is cut off there, not moved
// ahead of it, so a run's load up to its first cut does not depend on the
// cut: each repetition settles at least one more loss.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include <fmt/format.h>

#include "run/simulation.h"

namespace cnuas {
namespace {

constexpr int kMaxRuns = 16;

// Per rack, from the shelves' events: power_loss until power_restored (or for ever).
PowerCuts cuts_of(const PowerReport& report) {
  PowerCuts cuts;
  for (const PowerEvent& e : report.events) {
    auto& spans = cuts[e.shelf->params().text("rack")];
    if (e.kind == "power_loss" && (spans.empty() || spans.back().to_ps != UINT64_MAX))
      spans.push_back({e.at_ps, UINT64_MAX});
    if (e.kind == "power_restored" && !spans.empty() && spans.back().to_ps == UINT64_MAX)
      spans.back().to_ps = e.at_ps;
  }
  for (auto it = cuts.begin(); it != cuts.end();) {
    // A loss and its restore at one instant stop nothing.
    auto& spans = it->second;
    spans.erase(std::remove_if(spans.begin(), spans.end(),
                               [](const Outage& o) { return o.to_ps <= o.from_ps; }),
                spans.end());
    it = spans.empty() ? cuts.erase(it) : std::next(it);
  }
  return cuts;
}

std::string encode(const PowerCuts& cuts) {
  std::string text;
  for (const auto& [rack, spans] : cuts)
    for (const Outage& o : spans) text += fmt::format("{}\t{}\t{}\n", o.from_ps, o.to_ps, rack);
  return text;
}

PowerCuts decode(const std::string& text) {
  PowerCuts cuts;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::uint64_t from = 0, to = 0;
    int used = 0;
    if (std::sscanf(line.c_str(), "%lu\t%lu\t%n", &from, &to, &used) < 2) continue;
    cuts[line.substr(static_cast<std::size_t>(used))].push_back({from, to});
  }
  return cuts;
}

}  // namespace

bool Simulation::may_lose_power() const {
  for (const SupplyEvent& e : workload_.supply_events)
    if (e.kind != "supply_restore") return true;
  return false;
}

// One run in a child process with `cuts`; the cuts it found, or nothing when
// it failed (the run in this process then reports why).
std::optional<PowerCuts> Simulation::cuts_found_with(const PowerCuts& cuts) {
  int fds[2];
  if (pipe(fds) != 0) throw InternalError("cannot create a pipe for the power runs");
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child < 0) throw InternalError("cannot fork for the power runs");
  if (child == 0) {
    close(fds[0]);
    // Its messages would repeat this process's.
    if (std::FILE* null = std::freopen("/dev/null", "w", stderr)) (void)null;
    int status = 3;
    try {
      power_cuts_ = cuts;
      options_.vcd_path.clear();  // this run writes nothing
      elaborate();
      sc_core::sc_start();
      context_->throw_if_failed();
      roll_up();
      const std::string text = encode(cuts_of(power_));
      status = write(fds[1], text.data(), text.size()) == static_cast<ssize_t>(text.size()) ? 0 : 3;
    } catch (...) {
    }
    close(fds[1]);
    _exit(status);
  }
  close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, n);
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return decode(text);
}

void Simulation::settle_power_cuts() {
  PowerCuts cuts;
  for (int run = 0; run < kMaxRuns; ++run) {
    const std::optional<PowerCuts> found = cuts_found_with(cuts);
    if (!found) return;  // the run fails; this process's own run says why
    if (*found == cuts) {
      power_cuts_ = cuts;
      return;
    }
    cuts = *found;
  }
  throw InputError(fmt::format(
      "the racks' power losses do not settle after {} runs (each stops the rack's elements, which "
      "changes the load that decides the next): last found {}",
      kMaxRuns, encode(cuts)));
}

}  // namespace cnuas
