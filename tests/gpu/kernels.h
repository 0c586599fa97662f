// Hand-written PTX kernels for the GPU model tests and the latency benchmark
// (no nvcc needed).
#pragma once

#include <string>

namespace cnuas::gpu::testing {

// PTX module text with the usual header.
inline std::string ptx_module(const std::string& body) {
  return ".version 8.0\n.target sm_90\n.address_size 64\n" + body;
}

// K dependent 8-byte loads: each address is the value the previous load returned.
inline std::string chase_kernel(int k) {
  std::string s =
      ".visible .entry chase(.param .u64 start, .param .u64 out)\n{\n"
      "  .reg .u64 %rd<4>;\n"
      "  ld.param.u64 %rd1, [start];\n  ld.param.u64 %rd2, [out];\n";
  for (int i = 0; i < k; ++i) s += "  ld.global.u64 %rd1, [%rd1];\n";
  s += "  st.global.u64 [%rd2], %rd1;\n  ret;\n}\n";
  return ptx_module(s);
}

// K arithmetic instructions per thread (`op` "fma" or "add", `type` "f32", "f64" or "u32"):
// dependent (each reads the previous result) or independent (all read the same inputs and
// write registers of their own); the first result is stored at out.
inline std::string alu_kernel(int k, const std::string& op, const std::string& type,
                              bool dependent) {
  const std::string reg = type == "f32" ? "%f" : type == "f64" ? "%fd" : "%r";
  const std::string one = type == "f32" ? "0f3F800000" : type == "f64" ? "0d3FF0000000000000" : "1";
  const std::string suffix = op == "fma" ? "fma.rn." + type : "add." + type;
  std::string s = ".visible .entry alu(.param .u64 out)\n{\n  .reg .u64 %rd<2>;\n  .reg ." + type +
                  " " + reg + "<" + std::to_string(k + 4) + ">;\n" +
                  "  ld.param.u64 %rd1, [out];\n  mov." + type + " " + reg + "1, " + one + ";\n";
  for (int i = 0; i < k; ++i) {
    const std::string dst = reg + std::to_string(dependent ? 1 : i + 3);
    const std::string src = reg + "1";
    s += "  " + suffix + " " + dst + ", " + src + ", " + src + (op == "fma" ? ", " + src : "") +
         ";\n";
  }
  s += "  st.global." + type + " [%rd1], " + reg + "1;\n  ret;\n}\n";
  return ptx_module(s);
}

// Each thread reads the float4 a[i] (a warp reads four 128-byte lines with
// one instruction); it writes only a negative value (none in the tests), so
// the traffic is reads alone.
inline std::string stream_kernel() {
  return ptx_module(R"(
.visible .entry stream(.param .u64 a, .param .u64 out, .param .u64 n)
{
  .reg .u32 %r<6>;
  .reg .u64 %rd<8>;
  .reg .f32 %f<6>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [out];
  ld.param.u64 %rd3, [n];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r1, %r2, %r3;
  cvt.u64.u32 %rd4, %r4;
  setp.ge.u64 %p1, %rd4, %rd3;
  @%p1 bra DONE;
  shl.b64 %rd5, %rd4, 4;
  add.u64 %rd6, %rd1, %rd5;
  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd6];
  setp.lt.f32 %p2, %f1, 0f00000000;
  @%p2 st.global.f32 [%rd2], %f1;
DONE:
  ret;
}
)");
}

// STREAM copy (c[i] = a[i]) and triad (a[i] = b[i] + q * c[i]), one float4
// per thread: 32 bytes (copy) or 48 bytes (triad) of traffic per thread.
inline std::string stream_copy_kernel() {
  return ptx_module(R"(
.visible .entry copy(.param .u64 a, .param .u64 c, .param .u64 n)
{
  .reg .u32 %r<6>;
  .reg .u64 %rd<10>;
  .reg .f32 %f<6>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [c];
  ld.param.u64 %rd3, [n];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r1, %r2, %r3;
  cvt.u64.u32 %rd4, %r4;
  setp.ge.u64 %p1, %rd4, %rd3;
  @%p1 bra DONE;
  shl.b64 %rd5, %rd4, 4;
  add.u64 %rd6, %rd1, %rd5;
  add.u64 %rd7, %rd2, %rd5;
  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd6];
  st.global.v4.f32 [%rd7], {%f1, %f2, %f3, %f4};
DONE:
  ret;
}
)");
}

inline std::string stream_triad_kernel() {
  return ptx_module(R"(
.visible .entry triad(.param .u64 a, .param .u64 b, .param .u64 c, .param .f32 q, .param .u64 n)
{
  .reg .u32 %r<6>;
  .reg .u64 %rd<12>;
  .reg .f32 %f<14>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd8, [c];
  ld.param.f32 %f13, [q];
  ld.param.u64 %rd3, [n];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r1, %r2, %r3;
  cvt.u64.u32 %rd4, %r4;
  setp.ge.u64 %p1, %rd4, %rd3;
  @%p1 bra DONE;
  shl.b64 %rd5, %rd4, 4;
  add.u64 %rd6, %rd2, %rd5;
  add.u64 %rd7, %rd8, %rd5;
  add.u64 %rd9, %rd1, %rd5;
  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd6];
  ld.global.v4.f32 {%f5, %f6, %f7, %f8}, [%rd7];
  fma.rn.f32 %f9, %f13, %f5, %f1;
  fma.rn.f32 %f10, %f13, %f6, %f2;
  fma.rn.f32 %f11, %f13, %f7, %f3;
  fma.rn.f32 %f12, %f13, %f8, %f4;
  st.global.v4.f32 [%rd9], {%f9, %f10, %f11, %f12};
DONE:
  ret;
}
)");
}

// out[i] = 2 * in[blockDim - 1 - i within the CTA], through shared memory and a
// barrier; every thread also adds 1 to *counter. 256 threads per CTA.
inline std::string reverse_kernel() {
  return ptx_module(R"(
.visible .entry reverse(.param .u64 in, .param .u64 out, .param .u64 counter)
{
  .shared .align 4 .b8 tile[1024];
  .reg .u32 %r<12>;
  .reg .u64 %rd<8>;
  .reg .f32 %f<4>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u64 %rd3, [counter];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  mul.wide.u32 %rd4, %r4, 4;
  add.u64 %rd5, %rd1, %rd4;
  ld.global.f32 %f1, [%rd5];
  mul.f32 %f2, %f1, 0f40000000;
  shl.b32 %r5, %r1, 2;
  mov.u32 %r6, tile;
  add.u32 %r7, %r6, %r5;
  st.shared.f32 [%r7], %f2;
  bar.sync 0;
  mov.u32 %r10, 255;
  sub.u32 %r8, %r10, %r1;
  shl.b32 %r8, %r8, 2;
  add.u32 %r8, %r6, %r8;
  ld.shared.f32 %f3, [%r8];
  add.u64 %rd6, %rd2, %rd4;
  st.global.f32 [%rd6], %f3;
  atom.global.add.u32 %r9, [%rd3], 1;
  ret;
}
)");
}

}  // namespace cnuas::gpu::testing
