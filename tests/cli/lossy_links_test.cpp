// Lossy links: a link's bit error rate (its bit_error_rate, or a workload's
// link_errors span) drops packets by their CRC, and the NIC before it on the
// route retransmits them, go-back-N or selective repeat. The times are the
// hand-computed ones; the drop counts follow the binomial law; bad input is
// refused at its place; runs are byte-identical.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "cli/cli_harness.h"
#include "cli/trace_check.h"
#include "dc/packet_loss.h"

namespace cnuas {
using namespace testing_support;
using nlohmann::json;

namespace {

// NIC a -> link wire -> NIC b, all at 1 GB/s: a 1000 B packet holds a's wire
// 1 us. b's latency (1.25 us) makes the round trip a derives 2.5 us (twice
// a's latency 0 + the link's propagation 0 + b's latency). x sends 10 packets.
// Serially, without losses: a [0,10) us, wire [10,20), b [20,30) + 1.25.
std::string platform(const std::string& a_fields, const std::string& wire_fields,
                     const std::string& extra_entries = "") {
  return "platform: l\nelements:\n"
         "  - {name: a, type: cnuas.nic, set: {line_rate: 1 GB/s, mtu: 1000 B" +
         a_fields +
         "}}\n"
         "  - {name: wire, type: cnuas.link, set: {lane_rate: 1 GB/s" +
         wire_fields +
         "}}\n"
         "  - {name: b, type: cnuas.nic, set: {line_rate: 1 GB/s, mtu: 1000 B, latency: 1250 "
         "ns}}\n"
         "connections: [a -> wire, wire -> b]\n"
         "workload:\n  operations:\n"
         "    - {name: x, path: [a, wire, b], dims: {bytes: 10000}}\n" +
         extra_entries;
}

struct LossyRun {
  TraceFacts trace;
  json stats;
  std::uint64_t end_ps = 0;
};

LossyRun run(const std::string& name, const std::string& yaml) {
  const std::string p = write_file(name + ".yaml", yaml);
  const std::string trace = scratch_dir() + "/" + name + ".jsonl",
                    stats = scratch_dir() + "/" + name + ".json";
  CommandResult r = run_cnuas("run " + p + " --trace " + trace + " --stats " + stats);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  LossyRun out{check_trace_rules(trace), json::parse(read_file(stats)), 0};
  for (const TraceRecord& rec : out.trace.records) out.end_ps = std::max(out.end_ps, rec.end);
  return out;
}

// At a bit error rate of 1.2e-5 a 1000 B packet (8000 bits) is lost with
// p = 1 - (1 - 1.2e-5)^8000 = 0.0915. Which packets that drops is the hash of
// (link, operation, packet, attempt): the wire is the platform's second
// element (index 1), x the first operation (index 0). Of x's first sends only
// packet 7 draws below p, and no resend of 7, 8 or 9 does.
const double kBer = 1.2e-5;
void expect_only_packet_7_lost() {
  const double p = packet_loss_probability(kBer, 8000);
  for (std::uint64_t k = 0; k < 10; ++k) EXPECT_EQ(packet_lost(1, 0, k, 0, p), k == 7) << k;
  for (std::uint64_t k = 7; k < 10; ++k) EXPECT_FALSE(packet_lost(1, 0, k, 1, p)) << k;
}

}  // namespace

// Packet 7 lost. a sends 0..7 over [0,8) us; 8 arrives intact at 9 us, out of
// order: the NACK reaches a a round trip later, at 11.5 us. a sends 9 [9,10)
// meanwhile and then waits (stall 1.5 us).
// go-back-N: 7, 8, 9 again over [11.5,14.5): a's wire 14.5 us; the link
// carries 13000 B: [14.5,27.5); b [27.5,37.5) + 1.25 = 38.75 us.
// selective repeat: 7 alone [11.5,12.5): the link carries 11000 B
// [12.5,23.5); b [23.5,33.5) + 1.25 = 34.75 us.
// go-back-N costs 2 packets more on a's wire and 2000 B more on the link: 4 us.
TEST(LossyLinks, RetransmissionsTakeTheWireAndTheLinkAgain) {
  expect_only_packet_7_lost();
  const std::string ber = ", bit_error_rate: 1.2e-5";
  const LossyRun g = run("gbn", platform(", retransmission: go_back_n", ber));
  const LossyRun s =
      run("sr", platform(", retransmission: selective_repeat, round_trip: 2500 ns", ber));
  EXPECT_EQ(g.end_ps, 38'750'000u);
  EXPECT_EQ(s.end_ps, 34'750'000u);
  EXPECT_EQ(g.end_ps - s.end_ps, 4 * us);
  for (const TraceRecord& rec : g.trace.records)
    if (g.trace.components[rec.component] == "l.wire") {
      EXPECT_EQ(rec.start, 14'500'000u);
      EXPECT_EQ(rec.free, 27'500'000u);
    }

  const json& ga = g.stats["elements"]["l.a"]["recovery"];
  EXPECT_EQ(ga["scheme"], "go_back_n");
  EXPECT_EQ(ga["drops"], 1);
  EXPECT_EQ(ga["retransmitted_packets"], 3);
  EXPECT_EQ(ga["retransmitted_bytes"], 3000);
  EXPECT_EQ(ga["stall_ps"], 1'500'000);
  EXPECT_EQ(g.stats["elements"]["l.wire"]["errors"]["crc_drops"], 1);
  EXPECT_EQ(g.stats["elements"]["l.wire"]["errors"]["retransmitted_bytes"], 3000);
  EXPECT_FALSE(g.stats["elements"]["l.b"].contains("recovery"));  // b sends nothing across it
  EXPECT_EQ(s.stats["elements"]["l.a"]["recovery"]["retransmitted_packets"], 1);
  EXPECT_EQ(s.stats["elements"]["l.wire"]["errors"]["retransmitted_bytes"], 1000);

  ASSERT_EQ(g.trace.events.size(), 1u);
  EXPECT_EQ(g.trace.events[0]["event"], "retransmission");
  EXPECT_EQ(g.trace.events[0]["op"], "x");
  EXPECT_EQ(g.trace.events[0]["drops"], 1);
  EXPECT_EQ(g.trace.events[0]["retransmitted_bytes"], 3000);
}

// The resends cross every link and switch between the two NICs: a -> l1 ->
// sw -> l2 -> b, all at 1 GB/s, l2 at a bit error rate of 3e-5 (p = 1 - (1 -
// 3e-5)^8000 = 0.2134). l2 is the fourth element (index 3): of x's first
// sends only packet 5 draws below p, and no resend of 5..9 does. Go-back-N
// with a 1 us round trip: 0..5 over [0,6) us, 6 arrives intact at 7: NACK at
// 8 us, when 7 has left; 5..9 again over [8,13). a holds its wire 13 us, and
// l1, the switch's ingress and egress wires and l2 each carry 13000 B for
// 13 us: l1 [13,26), sw [26,39), l2 [39,52), b [52,62) us.
TEST(LossyLinks, ResentBytesCrossEveryLinkAndSwitchToTheReceivingNic) {
  const double p = packet_loss_probability(3e-5, 8000);
  for (std::uint64_t k = 0; k < 10; ++k) EXPECT_EQ(packet_lost(3, 0, k, 0, p), k == 5) << k;
  for (std::uint64_t k = 5; k < 10; ++k) EXPECT_FALSE(packet_lost(3, 0, k, 1, p)) << k;
  const LossyRun r = run(
      "through_switch",
      "platform: l\nelements:\n"
      "  - {name: a, type: cnuas.nic, set: {line_rate: 1 GB/s, mtu: 1000 B, round_trip: 1 us}}\n"
      "  - {name: l1, type: cnuas.link, set: {lane_rate: 1 GB/s}}\n"
      "  - {name: sw, type: cnuas.switch, set: {ports: 2, port_rate: 1 GB/s}}\n"
      "  - {name: l2, type: cnuas.link, set: {lane_rate: 1 GB/s, bit_error_rate: 3e-5}}\n"
      "  - {name: b, type: cnuas.nic, set: {line_rate: 1 GB/s, mtu: 1000 B}}\n"
      "connections: [a -> l1, l1 -> sw, sw -> l2, l2 -> b]\n"
      "workload:\n  operations:\n"
      "    - {name: x, path: [a, l1, sw, l2, b], dims: {bytes: 10000}}\n");
  EXPECT_EQ(r.end_ps, 62 * us);
  std::map<std::string, std::uint64_t> start;
  for (const TraceRecord& rec : r.trace.records) {
    const std::string& c = r.trace.components[rec.component];
    if (c == "l.b") continue;
    EXPECT_EQ(rec.free - rec.start, 13 * us) << c << " " << rec.part;
    start[c] = rec.start;
  }
  EXPECT_EQ(start["l.l1"], 13 * us);
  EXPECT_EQ(start["l.sw"], 26 * us);
  EXPECT_EQ(start["l.l2"], 39 * us);
  EXPECT_EQ(r.stats["elements"]["l.a"]["recovery"]["retransmitted_packets"], 3);
  EXPECT_EQ(r.stats["elements"]["l.l2"]["errors"]["retransmitted_bytes"], 3000);
  EXPECT_FALSE(r.stats["elements"]["l.l1"].contains("errors"));  // lossless: nothing to report
}

// link_errors gives the link its error rate over a span only: over [7,8) us
// it covers packet 7's first send (7 us) and none of the resends (from 11.5
// us), so the run is the go-back-N one above; over [0,7) us it covers packets
// 0..6 only, none of which draws a loss, and x takes the lossless 31.25 us.
TEST(LossyLinks, LinkErrorsApplyToThePacketsSentInTheirSpan) {
  expect_only_packet_7_lost();
  const LossyRun hit =
      run("span_hit", platform("", "",
                               "    - {name: dirty, event: link_errors, target: wire, start: "
                               "7 us, duration: 1 us, ber: 1.2e-5}\n"));
  EXPECT_EQ(hit.end_ps, 38'750'000u);
  EXPECT_EQ(hit.stats["elements"]["l.wire"]["errors"]["crc_drops"], 1);
  ASSERT_EQ(hit.trace.events.size(), 3u);  // link_errors, retransmission, link_errors_end
  EXPECT_EQ(hit.trace.events[0]["event"], "retransmission");  // at a's wire start, 0 us
  EXPECT_EQ(hit.trace.events[1]["event"], "link_errors");
  EXPECT_EQ(hit.trace.events[1]["t_ps"], 7 * us);
  EXPECT_EQ(hit.trace.events[1]["until_ps"], 8 * us);
  EXPECT_EQ(hit.trace.events[2]["event"], "link_errors_end");

  const LossyRun miss =
      run("span_miss", platform("", "",
                                "    - {name: dirty, event: link_errors, target: wire, "
                                "duration: 7 us, ber: 1.2e-5}\n"));
  EXPECT_EQ(miss.end_ps, 31'250'000u);
  EXPECT_EQ(miss.stats["elements"]["l.wire"]["errors"]["crc_drops"], 0);
  EXPECT_EQ(miss.stats["elements"]["l.a"]["recovery"]["drops"], 0);
}

// A lossless link reports no errors and its NIC no recovery.
TEST(LossyLinks, LosslessLinksReportNothing) {
  const LossyRun r = run("lossless", platform("", ", bit_error_rate: 0"));
  EXPECT_EQ(r.end_ps, 31'250'000u);
  EXPECT_FALSE(r.stats["elements"]["l.wire"].contains("errors"));
  EXPECT_FALSE(r.stats["elements"]["l.a"].contains("recovery"));
  EXPECT_TRUE(r.trace.events.empty());
}

// 20 transfers of 1000 packets (1000 B) at a bit error rate of 1e-6: each
// send is lost independently with p = 1 - (1 - 1e-6)^8000, so the drops of n
// sends (the 20000 packets and the resends) are binomial: within 5 sigma of
// n p, sigma = sqrt(n p (1 - p)). Selective repeat resends each drop once.
// The same run twice gives byte-identical trace and stats.
TEST(LossyLinks, DropsFollowTheBinomialLawAndRepeatExactly) {
  const std::string yaml =
      "platform: l\nelements:\n"
      "  - {name: a, type: cnuas.nic, set: {line_rate: 100 GB/s, mtu: 1000 B, retransmission: "
      "selective_repeat, round_trip: 2 us, retransmit_timeout: 10 us}}\n"
      "  - {name: wire, type: cnuas.link, set: {lane_rate: 100 GB/s, bit_error_rate: 1e-6}}\n"
      "  - {name: b, type: cnuas.nic, set: {line_rate: 100 GB/s, mtu: 1000 B}}\n"
      "connections: [a -> wire, wire -> b]\n"
      "workload:\n  operations:\n"
      "    - {name: x, path: [a, wire, b], dims: {bytes: 1000000}, repeat: 20}\n";
  const std::string p = write_file("binomial.yaml", yaml);
  std::string outputs[2][2];
  for (int i = 0; i < 2; ++i) {
    const std::string base = scratch_dir() + "/binomial" + std::to_string(i);
    CommandResult r =
        run_cnuas("run " + p + " --trace " + base + ".jsonl --stats " + base + ".json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    outputs[i][0] = read_file(base + ".jsonl");
    outputs[i][1] = read_file(base + ".json");
    if (i == 0) check_trace_rules(base + ".jsonl");
  }
  EXPECT_EQ(outputs[0][0], outputs[1][0]);
  EXPECT_EQ(outputs[0][1], outputs[1][1]);

  const json stats = json::parse(outputs[0][1]);
  const json& rec = stats["elements"]["l.a"]["recovery"];
  const double drops = rec["drops"].get<double>();
  const double n = 20000 + rec["retransmitted_packets"].get<double>();
  const double q = 1 - std::pow(1 - 1e-6, 8000);  // 0.0079681
  EXPECT_NEAR(drops, n * q, 5 * std::sqrt(n * q * (1 - q)));
  EXPECT_GT(drops, 0);
  EXPECT_EQ(rec["retransmitted_packets"], rec["drops"]);  // selective repeat
  EXPECT_EQ(stats["elements"]["l.wire"]["errors"]["crc_drops"], rec["drops"]);
  EXPECT_EQ(rec["retransmitted_bytes"].get<double>(), 1000 * drops);
}

// At 1e-2 a 1000 B packet is lost with p = 1 - 0.99^8000 (1 - 1e-35): the
// first packet exhausts the retries and the run stops with the operation's place.
TEST(LossyLinks, ATransportThatRunsOutOfRetriesFailsTheRun) {
  const std::string p =
      write_file("hopeless.yaml", platform(", retry_limit: 3", ", bit_error_rate: 1e-2"));
  CommandResult r = run_cnuas("run " + p);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("hopeless.yaml:9:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("packet 0 was lost 4 times on 'l.wire'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("retry_limit 3"), std::string::npos) << r.err;
}

TEST(LossyLinks, BadErrorRatesAreRefusedAtTheirPlace) {
  struct Case {
    std::string a, wire, entry, where, expect;
  };
  const Case cases[] = {
      {"", ", bit_error_rate: -1e-5", "", "lossy_bad.yaml:4:", "negative"},
      {"", ", bit_error_rate: 2e-2", "", "lossy_bad.yaml:4:", "above the largest accepted"},
      {"", ", bit_error_rate: nan", "", "lossy_bad.yaml:4:", "bit_error_rate"},
      {", retransmission: go_back", "", "", "lossy_bad.yaml:3:", "go_back_n"},
      {", retry_limit: 8", "", "", "lossy_bad.yaml:3:", "retry_limit"},
      {"", "", "    - {event: link_errors, target: a, duration: 1 us, ber: 1e-6}\n",
       "lossy_bad.yaml:10:", "link_errors target 'a' is a cnuas.nic"},
      {"", "", "    - {event: link_errors, target: wire, ber: 1e-6}\n",
       "lossy_bad.yaml:10:", "link_errors needs 'duration:'"},
      {"", "", "    - {event: link_errors, target: wire, duration: 1 us, ber: 5e-2}\n",
       "lossy_bad.yaml:10:", "must be from 0 to 1e-2"},
      {"", "", "    - {event: link_errors, target: wire, duration: 1 us, ber: -1}\n",
       "lossy_bad.yaml:10:", "negative"},
      {"", "",
       "    - {event: link_errors, target: wire, duration: 2 us, ber: 1e-6}\n"
       "    - {event: link_errors, target: wire, start: 1 us, duration: 1 us, ber: 1e-6}\n",
       "lossy_bad.yaml:11:", "overlaps the one at 0 ps"},
  };
  for (const Case& c : cases) {
    const std::string p = write_file("lossy_bad.yaml", platform(c.a, c.wire, c.entry));
    CommandResult r = run_cnuas("validate " + p);
    EXPECT_EQ(r.exit_code, 2) << c.expect;
    EXPECT_NE(r.err.find(c.where), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
  }
}

}  // namespace cnuas
