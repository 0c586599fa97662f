// L2 bandwidth on the detailed GPU model: every SM full of warps reading an L2-resident buffer
// with ld.global.cg (past L1, as L2 microbenchmarks compile their loads), a float4 per thread
// per load, two loads in flight per warp. The buffer holds `per_thread` float4s of every
// thread; a kernel reads it `passes` times. The bandwidth is the slope between two kernels of
// different pass counts over the same buffer, after a first kernel brought it into the L2:
// the launch and the drain cancel. Shared by gpu_l2_bench and tests/gpu/l2_partition_test.cpp.
#pragma once

#include <cstring>
#include <sstream>
#include <string>

#include "gpu/gpu_model.h"
#include "kernels.h"
#include "ptx/executor.h"
#include "stream_run.h"

namespace cnuas::gpu::testing {

// Each thread reads a[tid + k * threads] for k < per_thread (two at a time), `passes` times.
inline std::string l2_read_kernel() {
  return ptx_module(R"(
.visible .entry l2read(.param .u64 a, .param .u64 out, .param .u32 per_thread, .param .u32 passes)
{
  .reg .u32 %r<12>;
  .reg .u64 %rd<12>;
  .reg .f32 %f<12>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [per_thread];
  ld.param.u32 %r2, [passes];
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %tid.x;
  mad.lo.u32 %r6, %r3, %r4, %r5;
  mov.u32 %r7, %nctaid.x;
  mul.lo.u32 %r8, %r7, %r4;
  mul.wide.u32 %rd3, %r6, 16;
  add.u64 %rd3, %rd1, %rd3;
  mul.wide.u32 %rd4, %r8, 16;
  shl.b64 %rd5, %rd4, 1;
  mov.f32 %f9, 0f00000000;
  mov.u32 %r9, 0;
PASS:
  mov.u64 %rd6, %rd3;
  mov.u32 %r10, 0;
LOAD:
  add.u64 %rd7, %rd6, %rd4;
  ld.global.cg.v4.f32 {%f1, %f2, %f3, %f4}, [%rd6];
  ld.global.cg.v4.f32 {%f5, %f6, %f7, %f8}, [%rd7];
  add.f32 %f9, %f9, %f1;
  add.f32 %f9, %f9, %f5;
  add.u64 %rd6, %rd6, %rd5;
  add.u32 %r10, %r10, 2;
  setp.lt.u32 %p1, %r10, %r1;
  @%p1 bra LOAD;
  add.u32 %r9, %r9, 1;
  setp.lt.u32 %p2, %r9, %r2;
  @%p2 bra PASS;
  setp.lt.f32 %p3, %f9, 0f00000000;
  @%p3 st.global.f32 [%rd2], %f9;
  ret;
}
)");
}

struct L2ReadResult {
  double bytes_per_s = 0;
  std::uint64_t buffer_bytes = 0;
  KernelRun longer;  // the run with more passes
};

// `per_thread` even; the grid fills every SM with 256-thread CTAs.
inline L2ReadResult run_l2_read(const ArchConfig& arch, std::uint32_t per_thread,
                                std::uint32_t passes_short = 2, std::uint32_t passes_long = 6) {
  ptx::DeviceMemory memory;
  std::ostringstream printed;
  ptx::Executor executor(memory, printed);
  auto module = ptx::Module::parse(l2_read_kernel(), "l2read.ptx");
  ptx::LoadedModule loaded(module, memory);
  static int models = 0;
  PerformanceGpu gpu("l2read" + std::to_string(models++), arch);
  const std::uint32_t ctas = arch.sm.count * (arch.sm.max_warps / 8);
  const std::uint64_t threads = std::uint64_t{ctas} * 256;
  L2ReadResult out;
  out.buffer_bytes = threads * per_thread * 16;
  const std::uint64_t a = memory.allocate(out.buffer_bytes, 4096);
  // A first kernel brings the buffer into the L2; the two measured ones find it there.
  std::uint64_t ps[3] = {};
  for (int k = 0; k < 3; ++k) {
    const std::uint32_t passes = k == 0 ? 1 : k == 1 ? passes_short : passes_long;
    ptx::LaunchConfig c;
    c.grid = {ctas, 1, 1};
    c.block = {256, 1, 1};
    put_param(c.params, &a, 8);
    put_param(c.params, &a, 8);  // out: never written (the buffer holds no negatives)
    put_param(c.params, &per_thread, 4);
    put_param(c.params, &passes, 4);
    out.longer = gpu.run(executor, loaded, "l2read", c);
    ps[k] = out.longer.time_ps;
  }
  out.bytes_per_s = static_cast<double>(out.buffer_bytes * (passes_long - passes_short)) /
                    (static_cast<double>(ps[2] - ps[1]) * 1e-12);
  return out;
}

}  // namespace cnuas::gpu::testing
