// Video instructions written as inline PTX, one form per slot: each thread computes every
// form for its (a, b, c) and the test compares with a host reference of the PTX ISA.
// Generated list: keep in step with kVideoForms in tests/ptx/video_test.cpp.
#define FORM(k, text) \
  { unsigned d; asm(text : "=r"(d) : "r"(x), "r"(y), "r"(z)); o[k] = d; }

extern "C" __global__ void video_forms(const unsigned* a, const unsigned* b, const unsigned* c,
                                        unsigned* out, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const unsigned x = a[t], y = b[t], z = c[t];
  unsigned* o = out + t * 41;
  FORM(0, "vadd4.u32.u32.u32 %0, %1, %2, %3;")
  FORM(1, "vadd4.s32.s32.s32.sat %0, %1, %2, %3;")
  FORM(2, "vsub4.u32.u32.u32.sat %0, %1, %2, %3;")
  FORM(3, "vsub4.s32.s32.s32 %0.b20, %1, %2, %3;")
  FORM(4, "vavrg4.u32.u32.u32 %0, %1, %2, %3;")
  FORM(5, "vavrg4.s32.s32.s32 %0, %1, %2, %3;")
  FORM(6, "vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;")
  FORM(7, "vabsdiff4.s32.s32.s32.sat %0, %1, %2, %3;")
  FORM(8, "vmin4.s32.s32.s32 %0, %1.b0123, %2.b4567, %3;")
  FORM(9, "vmax4.u32.s32.u32.sat %0.b31, %1.b7250, %2, %3;")
  FORM(10, "vset4.u32.u32.lt %0, %1, %2, %3;")
  FORM(11, "vset4.s32.s32.ge.add %0, %1, %2, %3;")
  FORM(12, "vmax4.s32.s32.s32.add %0.b21, %1, %2, %3;")
  FORM(13, "vadd2.u32.u32.u32.sat %0, %1, %2, %3;")
  FORM(14, "vsub2.s32.s32.s32.sat %0, %1, %2, %3;")
  FORM(15, "vavrg2.s32.s32.s32 %0.h1, %1, %2, %3;")
  FORM(16, "vabsdiff2.u32.u32.u32.add %0, %1, %2, %3;")
  FORM(17, "vmin2.u32.u32.u32 %0, %1.h31, %2.h02, %3;")
  FORM(18, "vmax2.s32.s32.s32 %0, %1, %2, %3;")
  FORM(19, "vset2.s32.u32.ne %0.h0, %1, %2, %3;")
  FORM(20, "vset2.u32.u32.gt.add %0, %1, %2, %3;")
  FORM(21, "vadd.u32.u32.u32 %0, %1, %2;")
  FORM(22, "vadd.s32.s32.s32.sat %0, %1, %2;")
  FORM(23, "vsub.s32.u32.s32.sat %0, %1.b2, %2.h1;")
  FORM(24, "vabsdiff.u32.u32.u32.add %0, %1.b0, %2.b3, %3;")
  FORM(25, "vmin.s32.s32.s32.max %0, %1.h0, %2.h1, %3;")
  FORM(26, "vmax.u32.u32.u32.min %0, %1, %2.b1, %3;")
  FORM(27, "vadd.s32.s32.s32.sat %0.b2, %1.b0, %2.b1, %3;")
  FORM(28, "vsub.u32.u32.u32.sat %0.h1, %1.h0, %2.h1, %3;")
  FORM(29, "vshl.u32.u32.u32.clamp %0, %1, %2.b0;")
  FORM(30, "vshr.s32.s32.u32.wrap %0, %1, %2.b0;")
  FORM(31, "vshl.s32.s32.u32.sat.clamp %0, %1.h0, %2.b0;")
  FORM(32, "vset.s32.u32.lt %0, %1, %2;")
  FORM(33, "vset.u32.s32.ge.add %0, %1.b1, %2.b2, %3;")
  FORM(34, "vset.s32.s32.eq %0.b1, %1.b3, %2.b3, %3;")
  FORM(35, "vmad.s32.s32.s32 %0, %1.h0, %2.h1, %3;")
  FORM(36, "vmad.u32.u32.u32.sat %0, %1, %2, %3;")
  FORM(37, "vmad.s32.s32.s32.shr15.sat %0, %1.h0, %2.h0, %3;")
  FORM(38, "vmad.s32.s32.s32 %0, -%1.b0, %2.b1, %3;")
  FORM(39, "vmad.u32.u32.u32.po %0, %1.b0, %2.b1, %3;")
  FORM(40, "vmad.s32.u32.u32.shr7 %0, %1, %2, -%3;")
}

// CUDA's SIMD intrinsics, some of which nvcc lowers to vabsdiff4/vabsdiff2 (with .add).
extern "C" __global__ void video_intrinsics(const unsigned* a, const unsigned* b, unsigned* out,
                                            int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const unsigned x = a[t], y = b[t];
  unsigned* o = out + t * 6;
  o[0] = __vabsdiffu4(x, y);
  o[1] = __vsadu4(x, y);
  o[2] = __vsadu2(x, y);
  o[3] = __vabsdiffs4(x, y);
  o[4] = __vmaxs4(x, y);
  o[5] = __vcmpgeu4(x, y);
}
