// 100,000 transfers of 4 KiB between host pairs through one switch, with
// 100 Gbit/s, 500 ns links: transfers per second of host time, for a given
// number of pairs. Each pair sends its share back to back; pairs run at once.
//
//   transfers_bench [pairs=1] [transfers=100000]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <systemc>

#include "run/simulation.h"

int sc_main(int argc, char* argv[]) {
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  const unsigned pairs = argc > 1 ? static_cast<unsigned>(std::strtoul(argv[1], nullptr, 10)) : 1;
  const unsigned transfers =
      argc > 2 ? static_cast<unsigned>(std::strtoul(argv[2], nullptr, 10)) : 100000;
  std::string yaml = fmt::format(
      "platform: transfers\n"
      "elements:\n"
      "  - {{name: up, type: cnuas.pipe, count: {0}, set: {{bandwidth: 100 Gbit/s, latency: 500 "
      "ns}}}}\n"
      "  - {{name: sw, type: cnuas.switch, set: {{ports: {0}, port_rate: 100 Gbit/s}}}}\n"
      "  - {{name: down, type: cnuas.pipe, count: {0}, set: {{bandwidth: 100 Gbit/s, latency: 500 "
      "ns}}}}\n"
      "connections:\n  - up[*] -> sw\n  - sw -> down[*]\n"
      "workload:\n  operations:\n",
      pairs);
  for (unsigned p = 0; p < pairs; ++p)
    yaml += fmt::format(
        "    - {{name: pair{0}, path: [\"up[{0}]\", sw, \"down[{1}]\"], dims: {{bytes: 4 KiB}}, "
        "repeat: {2}}}\n",
        p, (p + 1) % pairs, transfers / pairs);
  const std::string path = "/tmp/cnuas-transfers-bench.yaml";
  std::ofstream(path) << yaml;

  cnuas::RunOptions options;
  options.platform_file = path;
  cnuas::Simulation simulation(options);
  const auto t0 = std::chrono::steady_clock::now();
  simulation.run();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const unsigned done = transfers / pairs * pairs;
  std::printf(
      "pairs %u: %u transfers (%u stages) in %.3f s host time: %.2f M transfers/s; simulated %.3f "
      "ms\n",
      pairs, done, done * 3, seconds, done / seconds / 1e6, simulation.makespan_ps() / 1e9);
  return 0;
}
