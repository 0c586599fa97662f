// The kernel debugger's pieces (docs/kernel-debugger.md) without a CUDA
// program: the capture file round trip and its refusals, thread ranges, the
// register-write trace of a small kernel against a hand computation, and the
// instrumented PTX run on the engine logging exactly what the trace logs.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/kernel/errors.h"
#include "debugger/capture.h"
#include "debugger/instrument.h"
#include "debugger/register_log.h"
#include "ptx/executor.h"

namespace cnuas {
namespace {

using debugger::Capture;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("cnuas_debugger_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

Capture sample_capture() {
  Capture c;
  c.kernel = "k";
  c.occurrence = 3;
  c.ptx_origin = "origin";
  c.ptx = ".version 8.0\n";
  c.grid[0] = 5;
  c.block[1] = 7;
  c.cluster[2] = 2;
  c.dynamic_shared_bytes = 96;
  c.stack_bytes = 2048;
  c.sm_count = 66;
  c.params = {1, 2, 3, 4, 5, 6, 7, 8};
  c.buffers.push_back({0x700000000000ull, {9, 8, 7}, {6, 5, 4}});
  c.variables.push_back({"v", {1}, {2}});
  c.has_outputs = true;
  return c;
}

TEST(Debugger, CaptureFileRoundTrips) {
  const std::string path = temp_path("round.cap");
  const Capture c = sample_capture();
  debugger::write_capture(c, path);
  const Capture r = debugger::read_capture(path);
  EXPECT_EQ(r.kernel, "k");
  EXPECT_EQ(r.occurrence, 3u);
  EXPECT_EQ(r.ptx_origin, "origin");
  EXPECT_EQ(r.ptx, c.ptx);
  EXPECT_EQ(r.grid[0], 5u);
  EXPECT_EQ(r.block[1], 7u);
  EXPECT_EQ(r.cluster[2], 2u);
  EXPECT_EQ(r.dynamic_shared_bytes, 96u);
  EXPECT_EQ(r.stack_bytes, 2048u);
  EXPECT_EQ(r.sm_count, 66u);
  EXPECT_EQ(r.params, c.params);
  ASSERT_EQ(r.buffers.size(), 1u);
  EXPECT_EQ(r.buffers[0].base, 0x700000000000ull);
  EXPECT_EQ(r.buffers[0].before, c.buffers[0].before);
  EXPECT_EQ(r.buffers[0].after, c.buffers[0].after);
  ASSERT_EQ(r.variables.size(), 1u);
  EXPECT_EQ(r.variables[0].name, "v");
  EXPECT_TRUE(r.has_outputs);
  std::filesystem::remove(path);
}

// The message of the InputError `read` throws, or "" when it throws none.
template <class F>
std::string input_error(F read) {
  try {
    read();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Debugger, CorruptCapturesAreRefusedNamingTheFile) {
  const std::string good = temp_path("good.cap"), bad = temp_path("bad.cap");
  debugger::write_capture(sample_capture(), good);
  std::ifstream in(good, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto write_bad = [&](const std::string& text) {
    std::ofstream(bad, std::ios::binary) << text;
    return input_error([&] { debugger::read_capture(bad); });
  };
  EXPECT_NE(write_bad(bytes.substr(0, bytes.size() - 3)).find(bad + ": corrupt capture"),
            std::string::npos);
  EXPECT_NE(write_bad("hello, world, this is no capture").find("not a kernel capture"),
            std::string::npos);
  std::string other_version = bytes;
  other_version[8] = 9;
  EXPECT_NE(write_bad(other_version).find("capture format version 9"), std::string::npos);
  EXPECT_NE(input_error([&] {
              debugger::read_capture(temp_path("missing.cap"));
            }).find("cannot open the capture"),
            std::string::npos);
  std::filesystem::remove(good);
  std::filesystem::remove(bad);
}

TEST(Debugger, ThreadRanges) {
  const debugger::ThreadFilter f("0-31,64");
  EXPECT_TRUE(f.contains(0));
  EXPECT_TRUE(f.contains(31));
  EXPECT_FALSE(f.contains(32));
  EXPECT_TRUE(f.contains(64));
  EXPECT_FALSE(f.contains(65));
  EXPECT_TRUE(debugger::ThreadFilter("").contains(12345));
  for (const char* bad : {"5-2", "a", "1,,2", "3-", "-3", "1x"})
    EXPECT_NE(input_error([&] { debugger::ThreadFilter{bad}; }).find("is no thread range"),
              std::string::npos)
        << bad;
}

// Line numbers are part of the expectations below: keep the text as it is.
const char* const kKernel =
    ".version 8.0\n"                        // 1
    ".target sm_90\n"                       // 2
    ".address_size 64\n"                    // 3
    ".visible .entry k(.param .u64 out)\n"  // 4
    "{\n"                                   // 5
    ".reg .pred %p<3>;\n"                   // 6
    ".reg .b32 %r<6>;\n"                    // 7
    ".reg .b64 %rd<3>;\n"                   // 8
    ".reg .b16 %h<2>;\n"                    // 9
    "ld.param.u64 %rd1, [out];\n"           // 10
    "mov.u32 %r1, %tid.x;\n"                // 11
    "setp.lt.u32 %p1|%p2, %r1, 2;\n"        // 12
    "@%p1 add.u32 %r2, %r1, 10;\n"          // 13
    "@!%p1 mov.u32 %r2, 7;\n"               // 14
    "mul.wide.u32 %rd2, %r1, 4;\n"          // 15
    "add.u64 %rd2, %rd1, %rd2;\n"           // 16
    "st.global.u32 [%rd2], %r2;\n"          // 17
    "cvt.u16.u32 %h1, %r2;\n"               // 18
    "ret;\n"                                // 19
    "}\n";

TEST(Debugger, TraceLogsEachThreadsRegisterWritesInOrder) {
  ptx::DeviceMemory memory;
  const auto module = ptx::Module::parse(kKernel, "k.ptx");
  ptx::LoadedModule loaded(module, memory);
  const std::uint64_t out = memory.allocate(16);
  ptx::LaunchConfig config;
  config.block = {4, 1, 1};
  config.params.resize(8);
  std::memcpy(config.params.data(), &out, 8);
  const std::uint32_t grid[3] = {1, 1, 1}, block[3] = {4, 1, 1};
  debugger::RegisterTracer tracer(grid, block, debugger::ThreadFilter("1,3"));
  config.observer = &tracer;
  std::ostringstream printed;
  ptx::Executor(memory, printed).launch(loaded, "k", config);
  std::ostringstream log;
  tracer.write(log, "k");
  // By hand: thread t loads out, reads t, sets p1 = t < 2 and p2 = !p1, writes
  // r2 = t + 10 (t < 2) or 7, rd2 = 4t then out + 4t, and h1 = r2's low half.
  const std::string o = fmt::format("{:x}", out);
  const std::string expected =
      "# cnuas register-write log 1: kernel k grid (1,1,1) block (4,1,1)\n"
      "1 cta=(0,0,0) tid=(1,0,0) line=10 %rd1=0x" +
      o +
      " | ld.param.u64 %rd1, [out]\n"
      "1 cta=(0,0,0) tid=(1,0,0) line=11 %r1=0x1 | mov.u32 %r1, %tid.x\n"
      "1 cta=(0,0,0) tid=(1,0,0) line=12 %p1=0x1 | setp.lt.u32 %p1|%p2, %r1, 2\n"
      "1 cta=(0,0,0) tid=(1,0,0) line=12 %p2=0x0 | setp.lt.u32 %p1|%p2, %r1, 2\n"
      "1 cta=(0,0,0) tid=(1,0,0) line=13 %r2=0xb | @%p1 add.u32 %r2, %r1, 10\n"
      "1 cta=(0,0,0) tid=(1,0,0) line=15 %rd2=0x4 | mul.wide.u32 %rd2, %r1, 4\n"
      "1 cta=(0,0,0) tid=(1,0,0) line=16 %rd2=0x" +
      fmt::format("{:x}", out + 4) +
      " | add.u64 %rd2, %rd1, %rd2\n"
      "1 cta=(0,0,0) tid=(1,0,0) line=18 %h1=0xb | cvt.u16.u32 %h1, %r2\n"
      "3 cta=(0,0,0) tid=(3,0,0) line=10 %rd1=0x" +
      o +
      " | ld.param.u64 %rd1, [out]\n"
      "3 cta=(0,0,0) tid=(3,0,0) line=11 %r1=0x3 | mov.u32 %r1, %tid.x\n"
      "3 cta=(0,0,0) tid=(3,0,0) line=12 %p1=0x0 | setp.lt.u32 %p1|%p2, %r1, 2\n"
      "3 cta=(0,0,0) tid=(3,0,0) line=12 %p2=0x1 | setp.lt.u32 %p1|%p2, %r1, 2\n"
      "3 cta=(0,0,0) tid=(3,0,0) line=14 %r2=0x7 | @!%p1 mov.u32 %r2, 7\n"
      "3 cta=(0,0,0) tid=(3,0,0) line=15 %rd2=0xc | mul.wide.u32 %rd2, %r1, 4\n"
      "3 cta=(0,0,0) tid=(3,0,0) line=16 %rd2=0x" +
      fmt::format("{:x}", out + 12) +
      " | add.u64 %rd2, %rd1, %rd2\n"
      "3 cta=(0,0,0) tid=(3,0,0) line=18 %h1=0x7 | cvt.u16.u32 %h1, %r2\n";
  EXPECT_EQ(log.str(), expected);
}

TEST(Debugger, InstrumentedPtxLogsWhatTheTraceLogs) {
  const auto module = ptx::Module::parse(kKernel, "k.ptx");
  const debugger::InstrumentedModule inst = debugger::instrument_ptx(kKernel, *module);
  // Sites: lines 10, 11, 12 (twice), 13, 14, 15, 16, 18; none for st and ret.
  ASSERT_EQ(inst.sites.size(), 9u);
  const std::uint32_t lines[] = {10, 11, 12, 12, 13, 14, 15, 16, 18};
  for (std::size_t s = 0; s < 9; ++s) EXPECT_EQ(inst.sites[s].line, lines[s]);
  EXPECT_EQ(inst.sites[3].reg, "%p2");
  EXPECT_EQ(inst.sites[8].mask, 0xffffu);

  // Run the instrumented module with a log buffer, and the original with the tracer.
  // `out` is each memory's first allocation, so address values agree.
  ptx::DeviceMemory memory;
  const std::uint64_t out = memory.allocate(16), log = memory.allocate(100 * 24);
  const auto instrumented = ptx::Module::parse(inst.ptx, "instrumented.ptx");
  ptx::LoadedModule loaded(instrumented, memory);
  const std::uint64_t capacity = 100;
  memory.write(loaded.symbol_address("cnuas_dbg_log"), &log, 8);
  memory.write(loaded.symbol_address("cnuas_dbg_capacity"), &capacity, 8);
  ptx::LaunchConfig config;
  config.block = {4, 1, 1};
  config.params.resize(8);
  std::memcpy(config.params.data(), &out, 8);
  std::ostringstream printed;
  ptx::Executor executor(memory, printed);
  executor.launch(loaded, "k", config);
  std::uint64_t count = 0;
  memory.read(loaded.symbol_address("cnuas_dbg_count"), &count, 8);
  ASSERT_EQ(count, 4u * 8u);  // 8 writes per thread (one of lines 13 and 14)
  std::vector<std::uint64_t> records(count * 3);
  memory.read(log, records.data(), count * 24);
  std::stable_sort(reinterpret_cast<std::array<std::uint64_t, 3>*>(records.data()),
                   reinterpret_cast<std::array<std::uint64_t, 3>*>(records.data()) + count,
                   [](const auto& a, const auto& b) { return a[0] < b[0]; });
  const std::uint32_t grid[3] = {1, 1, 1}, block[3] = {4, 1, 1};
  std::string from_log = debugger::log_header("k", grid, block);
  for (std::uint64_t k = 0; k < count; ++k) {
    const debugger::LogSite& s = inst.sites.at(records[3 * k + 1]);
    from_log += debugger::log_line(records[3 * k], grid, block, s.line, s.reg,
                                   records[3 * k + 2] & s.mask, s.text);
  }

  ptx::DeviceMemory plain_memory;
  ASSERT_EQ(plain_memory.allocate(16), out);
  ptx::LoadedModule plain(module, plain_memory);
  debugger::RegisterTracer tracer(grid, block, {});
  config.observer = &tracer;
  ptx::Executor(plain_memory, printed).launch(plain, "k", config);
  std::ostringstream traced;
  tracer.write(traced, "k");
  EXPECT_EQ(from_log, traced.str());
}

}  // namespace
}  // namespace cnuas
