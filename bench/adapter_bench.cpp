// Stage throughput of the shared lane adapter against raw SystemC.
//
// Phase 1 (baseline): one SC_METHOD re-notifies its own event 1 ps ahead, N
// times: the cost of one raw timed event notification.
// Phase 2 (Cnuas): S streams of operations cross a chain of K elements through
// TLM sockets; every stage is booked by the shared scheduler and kept in the
// in-memory trace. Both phases run in the same process and simulation.
//
//   adapter_bench [stages=4000000] [streams=64] [elements=4] [lanes=2]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include <systemc>

#include "basic/pipe.h"
#include "core/inputs/profile.h"
#include "core/kernel/run_context.h"
#include "core/kernel/stage_protocol.h"

using Clock = std::chrono::steady_clock;
using namespace cnuas;

struct Baseline : sc_core::sc_module {
  SC_HAS_PROCESS(Baseline);
  Baseline(sc_core::sc_module_name n, std::uint64_t count) : sc_module(n), remaining(count) {
    SC_METHOD(tick);
    sensitive << self;
  }
  void tick() {
    if (remaining == count_at_start()) began = Clock::now();
    if (remaining-- == 0) {
      ended = Clock::now();
      done.notify(sc_core::SC_ZERO_TIME);
      return;
    }
    self.notify(sc_core::sc_time::from_value(1));
  }
  std::uint64_t count_at_start() const { return initial; }
  sc_core::sc_event self, done;
  std::uint64_t remaining, initial = remaining;
  Clock::time_point began, ended;
};

struct Injector : sc_core::sc_module {
  StageInitiatorSocket<Injector> out;
  SC_HAS_PROCESS(Injector);
  Injector(sc_core::sc_module_name n, sc_core::sc_event& go) : sc_module(n), out("out") {
    out.register_nb_transport_bw(this, &Injector::nb_transport_bw);
    SC_METHOD(start);
    sensitive << go;
    dont_initialize();
  }
  void start() {
    getrusage(RUSAGE_SELF, &usage_began);
    began = Clock::now();
    for (auto& stream : streams) send(*stream.front(), 0);
  }
  void send(Operation& op, std::uint64_t delay_ps) {
    op.ready_ps = op.end_ps = sc_core::sc_time_stamp().value() + delay_ps;
    tlm::tlm_generic_payload& payload = RunContext::current().payloads().acquire(op);
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_core::sc_time delay = sc_core::sc_time::from_value(delay_ps);
    out[0]->nb_transport_fw(payload, phase, delay);
  }
  tlm::tlm_sync_enum nb_transport_bw(int, tlm::tlm_generic_payload& t, tlm::tlm_phase&,
                                     sc_core::sc_time& d) {
    Operation& op = *t.get_extension<OperationExtension>()->operation;
    RunContext::current().payloads().release(op);
    auto& [stream, position] = where[op.index];
    if (position + 1 < streams[stream].size()) send(*streams[stream][position + 1], d.value());
    ended = Clock::now();
    return tlm::TLM_COMPLETED;
  }
  std::vector<std::vector<Operation*>> streams;
  std::vector<std::pair<std::size_t, std::size_t>> where;
  Clock::time_point began, ended;
  rusage usage_began{};
};

int sc_main(int argc, char* argv[]) {
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  const std::uint64_t stages = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 4'000'000;
  const std::size_t streams = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 64;
  const std::size_t elements = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 4;
  const std::string lanes = argc > 4 ? argv[4] : "2";
  const bool keep_trace = !(argc > 5 && std::string(argv[5]) == "no-trace");
  const std::size_t ops_per_stream = stages / elements / streams;
  const std::uint64_t total_stages = ops_per_stream * streams * elements;

  // The benchmark's run; declared before the elements, so destroyed after them.
  RunContext context;
  context.scheduler();
  context.trace_enabled = keep_trace;
  Baseline baseline("baseline", total_stages);
  Injector injector("injector", baseline.done);
  std::vector<std::unique_ptr<Pipe>> chain;
  for (std::size_t i = 0; i < elements; ++i) {
    RawValues v{
        {"bandwidth", {"100 Gbit/s", {}}}, {"latency", {"10 ns", {}}}, {"lanes", {lanes, {}}}};
    std::string name = "pipe" + std::to_string(i);
    chain.push_back(
        std::make_unique<Pipe>(name.c_str(), resolve_params(Pipe::schema(), v, name, {})));
    if (i == 0)
      injector.out.bind(chain[0]->in);
    else
      chain[i - 1]->out.bind(chain[i]->in);
  }
  Route route;
  for (auto& p : chain) route.path.push_back(p.get());
  route.out_port.assign(route.path.size(), 0);
  const Route& shared = context.add_route(route);
  for (std::size_t s = 0; s < streams; ++s) {
    WorkDims dims;
    dims.set(WorkDim::Bytes, 1500 + 64 * s);
    const OperationSpec& spec =
        context.add_spec({"stream" + std::to_string(s), dims, true, false, "", ""});
    injector.streams.emplace_back();
    for (std::size_t k = 0; k < ops_per_stream; ++k) {
      Operation op;
      op.spec = &spec;
      op.dims = &spec.dims;
      op.repetition = static_cast<std::uint32_t>(k);
      op.route = &shared;
      Operation& added = context.add_operation(std::move(op));
      injector.where.emplace_back(s, k);
      injector.streams.back().push_back(&added);
    }
  }
  sc_core::sc_start();
  rusage usage_ended{};
  getrusage(RUSAGE_SELF, &usage_ended);

  const double base_s = std::chrono::duration<double>(baseline.ended - baseline.began).count();
  const double cnuas_s = std::chrono::duration<double>(injector.ended - injector.began).count();
  const double ns_per_event = base_s * 1e9 / static_cast<double>(total_stages);
  std::uint64_t booked = 0;
  for (const auto& p : chain) booked += p->stats().stages;
  const double ns_per_stage = cnuas_s * 1e9 / static_cast<double>(booked);
  std::printf("stages booked        %llu (trace kept in memory: %zu events)\n",
              static_cast<unsigned long long>(booked), context.trace().size());
  std::printf("scheduler wake-ups   %llu\n",
              static_cast<unsigned long long>(context.scheduler().wakeups()));
  std::printf("raw SystemC          %.1f ns per timed event notification (%.2f M/s)\n",
              ns_per_event, 1e3 / ns_per_event);
  std::printf("cnuas adapter        %.1f ns per stage (%.2f M stages/s)\n", ns_per_stage,
              1e3 / ns_per_stage);
  std::printf("page faults          %ld during the Cnuas phase\n",
              usage_ended.ru_minflt - injector.usage_began.ru_minflt);
  std::printf("ratio                %.2f x one raw notification\n", ns_per_stage / ns_per_event);
  return 0;
}
