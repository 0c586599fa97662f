// A platform small enough to time by hand, for the tests of the run tools.
#pragma once

#include <string>

#include "cli/cli_harness.h"

namespace cnuas::testing_support {

// src -> wire: a 1000 B message, twice, one after the other. The wire moves
// 8 Gbit/s = 1 B/ns, so it holds each message 1000 ns, and its 1 us latency
// delays the result without holding the wire: each send takes 2 us, the run
// 4 us, the wire is busy 2 us; src (a 0 ns delay) takes no time.
inline std::string tiny_platform() {
  return write_file(
      "tiny.yaml",
      "platform: tiny\n"
      "elements:\n"
      "  - {name: src, type: cnuas.fixed_delay, set: {delay: 0 ns}}\n"
      "  - {name: wire, type: cnuas.pipe, set: {bandwidth: 8 Gbit/s, latency: 1 us}}\n"
      "connections:\n"
      "  - src -> wire\n"
      "workload:\n"
      "  operations:\n"
      "    - {name: send, path: [src, wire], dims: {bytes: 1000}, repeat: 2}\n");
}

}  // namespace cnuas::testing_support
