// Data-center element models, each against a hand computation in picoseconds.
#include <sstream>

#include "basic/fixed_delay.h"
#include "dc/bmc.h"
#include "dc/host_cpu.h"
#include "dc/link.h"
#include "dc/mgmt_bus.h"
#include "dc/nic.h"
#include "dc/pcie_root.h"
#include "dc/switch.h"
#include "gpu/gpu_element.h"
#include "sim/sim_harness.h"

namespace cnuas {
using namespace testing_support;

static WorkDims dims(std::initializer_list<std::pair<WorkDim, std::uint64_t>> values) {
  WorkDims d;
  for (auto [k, v] : values) d.set(k, v);
  return d;
}

// Runs one operation through `element` alone and returns its single stage's
// main record (an element with engines books one first).
template <class Model>
static StageEvent one_stage(Model& element, WorkDims work) {
  TestInitiator initiator("initiator");
  initiator.out.bind(element.in);
  Operation& op = make_operation("op", work, StageMode::Serial, {&element});
  initiator.plan(0, op, 0);
  sc_core::sc_start();
  auto stages = stages_of("op");
  EXPECT_TRUE(stages.size() == 1 || stages.size() == 2);
  EXPECT_EQ(stages.back().part(), StageEvent::kMain);
  EXPECT_EQ(stages.front().part(), stages.size() == 2 ? StageEvent::kEngine : StageEvent::kMain);
  return stages.back();
}

TEST(DcModels, LinkEncodingAndPropagation) {
  // 4 lanes x 25 Gbit/s, 64b/66b, 2 m at 0.7 c: 1 MiB takes 8388608 bit x 66 / (1e11 x 64) s
  // = 86507520 ps, plus 2 / (299792458 x 0.7) s = 9530.41 ps; rounded up 86517051 ps.
  auto link = make_element<Link>("link", {{"lane_rate", "25 Gbit/s"},
                                          {"width", "4"},
                                          {"encoding", "64b/66b"},
                                          {"length", "2 m"},
                                          {"velocity_factor", "70 %"}});
  EXPECT_EQ(one_stage(*link, bytes(1 << 20)).end_ps, 86'517'051u);
}

TEST(DcModels, NicPacketizesAndChargesOverheads) {
  // 10000 B in 4096 B packets = 3 packets; 3 x 78 B headers: 10234 B at 400 Gbit/s
  // = 204.68 ns; plus 500 ns per message.
  auto nic = make_element<Nic>("nic", {{"line_rate", "400 Gbit/s"},
                                       {"mtu", "4096 B"},
                                       {"header", "78 B"},
                                       {"per_message", "500 ns"}});
  EXPECT_EQ(one_stage(*nic, bytes(10000)).end_ps, 204'680u + 500'000u);
}

TEST(DcModels, NicMessageRateCeiling) {
  // 4 messages of 1000 B at 1 M messages/s: the queue is held at least 4 x 1 us
  // = 4 us, which covers the 4 x 500 ns of per-message processing before the
  // wire and the wire time (1078 B = 21.56 ns) after it.
  auto nic = make_element<Nic>("nic", {{"line_rate", "400 Gbit/s"},
                                       {"header", "78 B"},
                                       {"per_message", "500 ns"},
                                       {"message_rate", "1 Mop/s"}});
  EXPECT_EQ(one_stage(*nic, dims({{WorkDim::Bytes, 1000}, {WorkDim::Messages, 4}})).end_ps,
            4'000'000u);
}

TEST(DcModels, PcieGen4WriteCountsTlpOverheads) {
  // Gen4 x16: 16 GT/s x 128/130 x 16 lanes. 4096 B in 256 B TLPs = 16 TLPs x 24 B:
  // 4480 B = 35840 bit; 35840 x 130 / (16e9 x 128 x 16) s = 142187.5 ps, rounded up.
  auto pcie = make_element<PcieRoot>("pcie", {{"generation", "4"}, {"tlp_overhead", "24 B"}});
  EXPECT_EQ(one_stage(*pcie, bytes(4096)).end_ps, 142'188u);
}

TEST(DcModels, PcieReadAddsTheRoundTripAndRespectsTheTagWindow) {
  auto pcie = make_element<PcieRoot>("pcie", {{"generation", "4"},
                                              {"max_read_request", "512 B"},
                                              {"outstanding_reads", "64"},
                                              {"read_round_trip", "1 us"}});
  TestInitiator initiator("initiator");
  initiator.out.bind(pcie->in);
  // 1 MiB: 4096 TLPs add 98304 B; 1146880 B = 36.4 us on the wire, + 1 us round trip
  // = 37.4 us, beating the window bound of 2048 requests / 64 tags x 1 us = 32 us.
  const OperationSpec& big =
      RunContext::current().add_spec({"big", bytes(1 << 20), false, true, "", ""});
  // 64 KiB with 2 tags: 128 requests / 2 = 64 round trips = 64 us, beating 2.275 us + 1 us.
  Operation& a = make_operation("unused", bytes(1), StageMode::Serial, {pcie.get()});
  a.spec = &big;
  a.dims = &big.dims;
  initiator.plan(0, a, 0);
  sc_core::sc_start();
  // The DMA engine (record 0) is held from 0 until the data has left the link:
  // it reaches the link after the 1 us round trip and holds it 36.4 us.
  const StageEvent engine = RunContext::current().trace()[0];
  const StageEvent link = RunContext::current().trace()[1];
  EXPECT_EQ(engine.part(), StageEvent::kEngine);
  EXPECT_EQ(link.start_ps, 1'000'000u);
  EXPECT_EQ(link.free_ps - link.start_ps, 36'400'000u);
  EXPECT_EQ(engine.free_ps - engine.start_ps, 37'400'000u);
  EXPECT_EQ(link.end_ps, 37'400'000u);
}

// host <-> pcie <-> gpu bound by hand: pcie.out 0 leads to the gpu, 1 to the
// host, so its lanes are [engine, link] towards the gpu, then towards the host.
struct PcieFixture {
  std::unique_ptr<FixedDelay> host = make_element<FixedDelay>("host", {{"delay", "0 ns"}});
  std::unique_ptr<PcieRoot> pcie;
  std::unique_ptr<FixedDelay> gpu = make_element<FixedDelay>("gpu", {{"delay", "0 ns"}});
  TestInitiator initiator{"initiator"};
  Route h2d, d2h;

  explicit PcieFixture(const char* engines) {
    pcie = make_element<PcieRoot>("pcie", {{"generation", "4"},
                                           {"tlp_overhead", "24 B"},
                                           {"upstream", "host"},
                                           {"dma_engines", engines}});
    initiator.out.bind(host->in);
    initiator.out.bind(gpu->in);
    host->out.bind(pcie->in);
    gpu->out.bind(pcie->in);
    pcie->out.bind(gpu->in);
    pcie->out.bind(host->in);
    // The initiator is binding 0 of host.in and gpu.in.
    h2d = {{host.get(), pcie.get(), gpu.get()}, {0, 0, 0}, 0, {}};
    d2h = {{gpu.get(), pcie.get(), host.get()}, {0, 1, 0}, 0, {}};
  }
  Operation& copy(const std::string& name, bool down) {
    Operation& op = make_operation(name, bytes(4096), StageMode::Serial, {});
    op.route = &RunContext::current().add_route(down ? h2d : d2h);
    return op;
  }
  // The stage's record on the element's link (not its engine's).
  static StageEvent link(const std::string& name) {
    for (const StageEvent& e : stages_of(name))
      if (e.stage() == 1 && e.part() == StageEvent::kMain) return e;
    ADD_FAILURE() << name << " has no link record";
    return {};
  }
};

// 4096 B on Gen4 x16 with 24 B per TLP: 142 188 ps on a link (see above).
constexpr std::uint64_t kGen4Page = 142'188;

TEST(DcModels, PcieOppositeDirectionsDoNotShareALink) {
  PcieFixture f("1");
  Operation& down = f.copy("down", true);
  Operation& up = f.copy("up", false);
  f.initiator.plan(0, down, 0, 0);
  f.initiator.plan(0, up, 0, 1);
  sc_core::sc_start();
  // Both directions run at once: towards the gpu on lane 1, towards the host on lane 3.
  EXPECT_EQ(PcieFixture::link("down").lane, 1u);
  EXPECT_EQ(PcieFixture::link("up").lane, 3u);
  EXPECT_EQ(PcieFixture::link("down").start_ps, 0u);
  EXPECT_EQ(PcieFixture::link("up").start_ps, 0u);
  EXPECT_EQ(f.initiator.completed_ps.at("down"), kGen4Page);
  EXPECT_EQ(f.initiator.completed_ps.at("up"), kGen4Page);
}

TEST(DcModels, PcieCopiesInOneDirectionShareItsLink) {
  // Two DMA engines towards the gpu, one link: the second copy takes the
  // second engine at once but the link only when the first has left it.
  PcieFixture f("2");
  Operation& a = f.copy("a", true);
  Operation& b = f.copy("b", true);
  f.initiator.plan(0, a, 0, 0);
  f.initiator.plan(0, b, 0, 0);
  sc_core::sc_start();
  EXPECT_EQ(stages_of("b")[1].part(), StageEvent::kEngine);
  EXPECT_EQ(stages_of("b")[1].lane, 1u);  // the second engine towards the gpu
  EXPECT_EQ(stages_of("b")[1].start_ps, 0u);
  EXPECT_EQ(PcieFixture::link("b").lane, 2u);
  EXPECT_EQ(PcieFixture::link("b").start_ps, kGen4Page);
  EXPECT_EQ(f.initiator.completed_ps.at("a"), kGen4Page);
  EXPECT_EQ(f.initiator.completed_ps.at("b"), 2 * kGen4Page);  // half the bandwidth each
  // The engine is held until its data has left the link.
  EXPECT_EQ(stages_of("b")[1].free_ps, 2 * kGen4Page);
}

TEST(DcModels, ModbusTransactionAt19200Baud) {
  // 8 B request + 7 B response + 2 x 3.5 character gaps = 22 characters of 11 bits:
  // 242 / 19200 s = 12.604 ms, rounded up to the picosecond.
  auto bus = make_element<ManagementBus>("bus", {{"baud", "19200 baud"}});
  EXPECT_EQ(one_stage(*bus, dims({{WorkDim::Requests, 1}})).end_ps, 12'604'166'667u);
}

TEST(DcModels, HostCpuIcount) {
  // shift 3: 1000 instructions x 2^3 ns = 8 us; 2 requests x 1 us extra.
  auto cpu = make_element<HostCpu>("cpu", {{"icount_shift", "3"}, {"per_request", "1 us"}});
  EXPECT_EQ(one_stage(*cpu, dims({{WorkDim::Instructions, 1000}, {WorkDim::Requests, 2}})).end_ps,
            10'000'000u);
}

TEST(DcModels, GpuRoofline) {
  // 1 TFLOP at 1000 TFLOP/s = 1 ms; 8 GB at 4 TB/s = 2 ms: memory-bound, + 5 us launch.
  auto gpu = make_element<Gpu>(
      "gpu",
      {{"peak_rate", "1000 TFLOP/s"}, {"memory_bandwidth", "4 TB/s"}, {"launch_overhead", "5 us"}});
  EXPECT_EQ(one_stage(*gpu, dims({{WorkDim::Flops, 1'000'000'000'000ULL},
                                  {WorkDim::Bytes, 8'000'000'000ULL}}))
                .end_ps,
            2'005'000'000u);
}

TEST(DcModels, BmcRequestKinds) {
  auto bmc = make_element<Bmc>(
      "bmc", {{"sensor_read", "2 ms"}, {"redfish_get", "50 ms"}, {"ipmi_command", "5 ms"}});
  const OperationSpec& spec = RunContext::current().add_spec(
      {"poll", dims({{WorkDim::Requests, 3}}), false, false, "redfish_get", ""});
  TestInitiator initiator("initiator");
  initiator.out.bind(bmc->in);
  Operation& op = make_operation("unused", bytes(0), StageMode::Serial, {bmc.get()});
  op.spec = &spec;
  op.dims = &spec.dims;
  initiator.plan(0, op, 0);
  sc_core::sc_start();
  EXPECT_EQ(RunContext::current().trace()[0].end_ps, 150'000'000'000u);  // 3 x 50 ms
}

struct SwitchFixture {
  // Four sources, one switch, one destination: incast into one output port.
  std::vector<std::unique_ptr<FixedDelay>> sources;
  std::unique_ptr<Switch> sw;
  std::unique_ptr<FixedDelay> sink = make_element<FixedDelay>("sink", {{"delay", "0 ns"}});
  TestInitiator initiator{"initiator"};

  explicit SwitchFixture(std::map<std::string, std::string> switch_fields) {
    sw = make_element<Switch>("sw", switch_fields);
    for (int i = 0; i < 4; ++i) {
      std::string name = "src" + std::to_string(i);
      sources.push_back(make_element<FixedDelay>(name.c_str(), {{"delay", "0 ns"}}));
      initiator.out.bind(sources.back()->in);
      sources.back()->out.bind(sw->in);
    }
    sw->out.bind(sink->in);
  }
  void send_all(std::uint64_t bytes_each) {
    for (std::uint32_t i = 0; i < 4; ++i) {
      Operation& op = make_operation("f" + std::to_string(i), bytes(bytes_each), StageMode::Serial,
                                     {sources[i].get(), sw.get(), sink.get()});
      initiator.plan(0, op, 0, i);
    }
  }
};

TEST(DcModels, SwitchCutThroughAndStoreAndForward) {
  // 4096 B at 100 Gbit/s = 327.68 ns; + 300 ns latency; store-and-forward adds one frame.
  for (const char* mode : {"cut_through", "store_and_forward"}) {
    SCOPED_TRACE(mode);
    auto sw = make_element<Switch>(
        std::string("sw_").append(mode).c_str(),
        {{"ports", "2"}, {"port_rate", "100 Gbit/s"}, {"latency", "300 ns"}, {"forwarding", mode}});
    EXPECT_EQ(
        sw->service_ps(Stage{make_operation(mode, bytes(4096), StageMode::Serial, {sw.get()}), 0}),
        std::string(mode) == "cut_through" ? 627'680u : 955'360u);
  }
}

TEST(DcModels, IncastQueuesAtTheOutputPortAndBackPressureHoldsFrames) {
  SwitchFixture f(
      {{"ports", "8"}, {"port_rate", "100 Gbit/s"}, {"buffer", "8 KiB"}, {"frame", "4 KiB"}});
  f.send_all(4096);
  sc_core::sc_start();
  // One output port serves the four 327.68 ns frames back to back, in arrival order.
  for (std::uint64_t i = 0; i < 4; ++i) {
    auto s = stages_of("f" + std::to_string(i));
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[1].lane, 0u);
    EXPECT_EQ(s[1].start_ps, i * 327'680);
    EXPECT_EQ(s[1].end_ps, (i + 1) * 327'680);
    EXPECT_EQ(f.initiator.completed_ps.at("f" + std::to_string(i)), (i + 1) * 327'680);
  }
  // 8 KiB holds two frames: f2 waits upstream until f0 has left (327.68 ns), f3
  // until f1 has (655.36 ns). Delayed, never dropped: all four completed above.
  EXPECT_EQ(f.sw->stats().held_stages, 2u);
  EXPECT_EQ(f.sw->stats().held_ps, 327'680u + 655'360u);
}

TEST(DcModels, BackPressureHoldsAreInfoMessagesNamingTheSwitch) {
  // The incast above with the switch at log level info: its two holds (f2
  // 327.68 ns, f3 655.36 ns, on output port 0) are reported, nothing else is.
  std::ostringstream log;
  test_run().log_stream = &log;
  SwitchFixture f({{"ports", "8"},
                   {"port_rate", "100 Gbit/s"},
                   {"buffer", "8 KiB"},
                   {"frame", "4 KiB"},
                   {"log", "info"}});
  f.send_all(4096);
  sc_core::sc_start();
  test_run().log_stream = &std::cerr;
  EXPECT_EQ(log.str(),
            "cnuas: info: sw (cnuas.switch): 'f2' held 327680 ps upstream until lane 0 admits it "
            "(back-pressure)\n"
            "cnuas: info: sw (cnuas.switch): 'f3' held 655360 ps upstream until lane 0 admits it "
            "(back-pressure)\n");
}

TEST(DcModels, UnlimitedBufferHoldsNothing) {
  SwitchFixture f({{"ports", "8"}, {"port_rate", "100 Gbit/s"}});
  f.send_all(4096);
  sc_core::sc_start();
  EXPECT_EQ(f.sw->stats().held_stages, 0u);
  EXPECT_EQ(f.initiator.completed_ps.at("f3"), 4 * 327'680u);
}

TEST(DcModels, TwoFlowsShareALink) {
  // 1 MB at 100 Gbit/s = 80 us each; one channel: the second flow waits.
  auto link = make_element<Link>("link", {{"lane_rate", "100 Gbit/s"}});
  TestInitiator a("a"), b("b");
  a.out.bind(link->in);
  b.out.bind(link->in);
  Operation& fa = make_operation("fa", bytes(1'000'000), StageMode::Serial, {link.get()}, 0);
  Operation& fb = make_operation("fb", bytes(1'000'000), StageMode::Serial, {link.get()}, 1);
  a.plan(0, fa, 0);
  b.plan(0, fb, 10'000'000);  // ready 10 us later, while fa is on the link
  sc_core::sc_start();
  EXPECT_EQ(a.completed_ps.at("fa"), 80'000'000u);
  EXPECT_EQ(stages_of("fb")[0].start_ps, 80'000'000u);
  EXPECT_EQ(b.completed_ps.at("fb"), 160'000'000u);
}

TEST(DcModels, PcieThenNicSerialVersusOverlap) {
  // PCIe Gen4 x16, 10000 B: 40 TLPs x 24 B -> 10960 B = 87680 bit; 87680 x 130 /
  // 3.2768e13 s = 347.8515625 ns. NIC 400 Gbit/s, 3 packets x 78 B: 204.68 ns + 500 ns.
  // The same pair twice, once per mode, in one simulation.
  std::vector<std::unique_ptr<PcieRoot>> pcie;
  std::vector<std::unique_ptr<Nic>> nic;
  TestInitiator initiator("initiator");
  for (const char* name : {"serial", "overlap"}) {
    pcie.push_back(
        make_element<PcieRoot>((std::string("pcie_") + name).c_str(), {{"generation", "4"}}));
    nic.push_back(make_element<Nic>(
        (std::string("nic_") + name).c_str(),
        {{"line_rate", "400 Gbit/s"}, {"header", "78 B"}, {"per_message", "500 ns"}}));
    initiator.out.bind(pcie.back()->in);
    pcie.back()->out.bind(nic.back()->in);
  }
  Operation& serial =
      make_operation("serial", bytes(10000), StageMode::Serial, {pcie[0].get(), nic[0].get()});
  Operation& overlap =
      make_operation("overlap", bytes(10000), StageMode::Overlap, {pcie[1].get(), nic[1].get()});
  initiator.plan(0, serial, 0, 0);
  initiator.plan(0, overlap, 0, 1);
  sc_core::sc_start();
  const std::uint64_t pcie_ps = 347'852, nic_ps = 704'680;
  EXPECT_EQ(initiator.completed_ps.at("serial"), pcie_ps + nic_ps);
  EXPECT_EQ(initiator.completed_ps.at("overlap"), nic_ps);  // the slower stage decides
  // The NIC streams from the start: its queue starts when the PCIe link does
  // (its start + its latency, 0).
  for (const StageEvent& e : stages_of("overlap")) {
    if (e.stage() == 1) {
      EXPECT_EQ(e.ready_ps, e.part() == StageEvent::kEngine ? 0u : 500'000u);
    }
  }
}

}  // namespace cnuas
