// mma.sp (2:4 sparse A), the sub-byte (s4/u4) and single-bit (b1) mma forms,
// one kernel per form written as inline PTX. Each lane reads its fragment
// registers from `in` (A, B, C, then the sparse metadata: NA + NB + NC + 1
// words per lane) and writes its D registers to `out` (NC words per lane), so
// the host test (mma_sparse_test.cpp) decides every register bit and checks
// every result bit.

extern "C" __global__ void sp_f16_k16_sel0(const unsigned* in, unsigned* out) {
  const unsigned* r = in + threadIdx.x * 9;
  unsigned d[4];
  asm volatile(
      "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6, %7}, "
      "{%8, %9, %10, %11}, %12, 0;"
      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
      : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]),
        "r"(r[8]));
  for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = d[i];
}

extern "C" __global__ void sp_f16_k16_sel3(const unsigned* in, unsigned* out) {
  const unsigned* r = in + threadIdx.x * 9;
  unsigned d[4];
  asm volatile(
      "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6, %7}, "
      "{%8, %9, %10, %11}, %12, 3;"
      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
      : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]),
        "r"(r[8]));
  for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = d[i];
}

extern "C" __global__ void sp_f16_k32_f16acc_sel1(const unsigned* in, unsigned* out) {
  const unsigned* r = in + threadIdx.x * 11;
  unsigned d[2];
  asm volatile(
      "mma.sp.sync.aligned.m16n8k32.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7, "
      "%8, %9}, {%10, %11}, %12, 1;"
      : "=r"(d[0]), "=r"(d[1])
      : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]),
        "r"(r[8]), "r"(r[9]), "r"(r[10]));
  for (int i = 0; i < 2; ++i) out[threadIdx.x * 2 + i] = d[i];
}

extern "C" __global__ void sp_bf16_k32_ordered_sel0(const unsigned* in, unsigned* out) {
  const unsigned* r = in + threadIdx.x * 13;
  unsigned d[4];
  asm volatile(
      "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
      "{%4, %5, %6, %7}, {%8, %9, %10, %11}, {%12, %13, %14, %15}, %16, 0;"
      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
      : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]),
        "r"(r[8]), "r"(r[9]), "r"(r[10]), "r"(r[11]), "r"(r[12]));
  for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = d[i];
}

extern "C" __global__ void sp_bf16_k16_sel1(const unsigned* in, unsigned* out) {
  const unsigned* r = in + threadIdx.x * 9;
  unsigned d[4];
  asm volatile(
      "mma.sp.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6, "
      "%7}, {%8, %9, %10, %11}, %12, 1;"
      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
      : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]),
        "r"(r[8]));
  for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = d[i];
}

extern "C" __global__ void sp_tf32_k8_sel2(const unsigned* in, unsigned* out) {
  const unsigned* r = in + threadIdx.x * 9;
  unsigned d[4];
  asm volatile(
      "mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5}, {%6, %7}, "
      "{%8, %9, %10, %11}, %12, 2;"
      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
      : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]),
        "r"(r[8]));
  for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = d[i];
}

extern "C" __global__ void sp_tf32_k16_sel1(const unsigned* in, unsigned* out) {
  const unsigned* r = in + threadIdx.x * 13;
  unsigned d[4];
  asm volatile(
      "mma.sp.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9, %10, %11}, {%12, %13, %14, %15}, %16, 1;"
      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
      : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]),
        "r"(r[8]), "r"(r[9]), "r"(r[10]), "r"(r[11]), "r"(r[12]));
  for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = d[i];
}

extern "C" __global__ void sp_s8u8_k32_sel1(const unsigned* in, unsigned* out) {
  const unsigned* r = in + threadIdx.x * 9;
  unsigned d[4];
  asm volatile(
      "mma.sp.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 {%0, %1, %2, %3}, {%4, %5}, {%6, %7}, "
      "{%8, %9, %10, %11}, %12, 1;"
      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
      : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]),
        "r"(r[8]));
  for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = d[i];
}

extern "C" __global__ void sp_u8s8_k64_sat_sel0(const unsigned* in, unsigned* out) {
  const unsigned* r = in + threadIdx.x * 13;
  unsigned d[4];
  asm volatile(
      "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.satfinite.s32.u8.s8.s32 {%0, %1, %2, "
      "%3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, {%12, %13, %14, %15}, %16, 0;"
      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
      : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]),
        "r"(r[8]), "r"(r[9]), "r"(r[10]), "r"(r[11]), "r"(r[12]));
  for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = d[i];
}

extern "C" __global__ void sp_s4_k64_sel1(const unsigned* in, unsigned* out) {
  const unsigned* r = in + threadIdx.x * 9;
  unsigned d[4];
  asm volatile(
      "mma.sp.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 {%0, %1, %2, %3}, {%4, %5}, {%6, %7}, "
      "{%8, %9, %10, %11}, %12, 1;"
      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
      : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]),
        "r"(r[8]));
  for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = d[i];
}

extern "C" __global__ void sp_u4s4_k128_sel0(const unsigned* in, unsigned* out) {
  const unsigned* r = in + threadIdx.x * 13;
  unsigned d[4];
  asm volatile(
      "mma.sp.sync.aligned.m16n8k128.row.col.satfinite.s32.u4.s4.s32 {%0, %1, %2, %3}, {%4, %5, "
      "%6, %7}, {%8, %9, %10, %11}, {%12, %13, %14, %15}, %16, 0;"
      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
      : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]),
        "r"(r[8]), "r"(r[9]), "r"(r[10]), "r"(r[11]), "r"(r[12]));
  for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = d[i];
}

extern "C" __global__ void sp_e4m3e5m2_k64_sel0(const unsigned* in, unsigned* out) {
  const unsigned* r = in + threadIdx.x * 13;
  unsigned d[4];
  asm volatile(
      "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e5m2.f32 {%0, %1, %2, %3}, "
      "{%4, %5, %6, %7}, {%8, %9, %10, %11}, {%12, %13, %14, %15}, %16, 0;"
      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
      : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]),
        "r"(r[8]), "r"(r[9]), "r"(r[10]), "r"(r[11]), "r"(r[12]));
  for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = d[i];
}

extern "C" __global__ void s4u4_m8n8k32(const unsigned* in, unsigned* out) {
  const unsigned* r = in + threadIdx.x * 5;
  unsigned d[2];
  asm volatile("mma.sync.aligned.m8n8k32.row.col.s32.s4.u4.s32 {%0, %1}, {%2}, {%3}, {%4, %5};"
               : "=r"(d[0]), "=r"(d[1])
               : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]));
  for (int i = 0; i < 2; ++i) out[threadIdx.x * 2 + i] = d[i];
}

extern "C" __global__ void s8_m8n8k16(const unsigned* in, unsigned* out) {
  const unsigned* r = in + threadIdx.x * 5;
  unsigned d[2];
  asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%0, %1}, {%2}, {%3}, {%4, %5};"
               : "=r"(d[0]), "=r"(d[1])
               : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]));
  for (int i = 0; i < 2; ++i) out[threadIdx.x * 2 + i] = d[i];
}

extern "C" __global__ void s4_m16n8k32_sat(const unsigned* in, unsigned* out) {
  const unsigned* r = in + threadIdx.x * 8;
  unsigned d[4];
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s4.s4.s32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
      "{%7, %8, %9, %10};"
      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
      : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]));
  for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = d[i];
}

extern "C" __global__ void u4_m16n8k64(const unsigned* in, unsigned* out) {
  const unsigned* r = in + threadIdx.x * 11;
  unsigned d[4];
  asm volatile(
      "mma.sync.aligned.m16n8k64.row.col.s32.u4.u4.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, "
      "%9}, {%10, %11, %12, %13};"
      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
      : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]),
        "r"(r[8]), "r"(r[9]));
  for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = d[i];
}

extern "C" __global__ void b1_xor_m8n8k128(const unsigned* in, unsigned* out) {
  const unsigned* r = in + threadIdx.x * 5;
  unsigned d[2];
  asm volatile(
      "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc {%0, %1}, {%2}, {%3}, {%4, %5};"
      : "=r"(d[0]), "=r"(d[1])
      : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]));
  for (int i = 0; i < 2; ++i) out[threadIdx.x * 2 + i] = d[i];
}

extern "C" __global__ void b1_and_m16n8k128(const unsigned* in, unsigned* out) {
  const unsigned* r = in + threadIdx.x * 8;
  unsigned d[4];
  asm volatile(
      "mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.and.popc {%0, %1, %2, %3}, {%4, %5}, {%6}, "
      "{%7, %8, %9, %10};"
      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
      : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]));
  for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = d[i];
}

extern "C" __global__ void b1_xor_m16n8k256(const unsigned* in, unsigned* out) {
  const unsigned* r = in + threadIdx.x * 11;
  unsigned d[4];
  asm volatile(
      "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc {%0, %1, %2, %3}, {%4, %5, %6, "
      "%7}, {%8, %9}, {%10, %11, %12, %13};"
      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
      : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]),
        "r"(r[8]), "r"(r[9]));
  for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = d[i];
}
