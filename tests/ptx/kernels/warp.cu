// Warp-level primitives.
extern "C" __global__ void shuffles(const int* in, int* out) {
  int t = threadIdx.x;
  int v = in[t];
  int* o = out + t * 10;
  o[0] = __shfl_sync(0xffffffff, v, (t * 7) & 31);
  o[1] = __shfl_up_sync(0xffffffff, v, 3);
  o[2] = __shfl_down_sync(0xffffffff, v, 5);
  o[3] = __shfl_xor_sync(0xffffffff, v, 6);
  o[4] = __shfl_sync(0xffffffff, v, t + 1, 8);  // width 8 segments
  o[5] = __shfl_down_sync(0xffffffff, v, 2, 16);
  unsigned b = __ballot_sync(0xffffffff, v & 1);
  o[6] = int(b);
  o[7] = __all_sync(0xffffffff, v > -5) | __any_sync(0xffffffff, v > 60) << 1;
  o[8] = int(__match_any_sync(0xffffffff, v % 4));
  int pred;
  o[9] = int(__match_all_sync(0xffffffff, v / 1000, &pred)) ^ (pred << 5);
}

extern "C" __global__ void reductions(const unsigned* in, unsigned* out) {
  unsigned v = in[threadIdx.x];
  if (threadIdx.x < 24) {  // a partial warp
    unsigned m = __activemask();
    out[threadIdx.x * 5 + 0] = __reduce_add_sync(m, v);
    out[threadIdx.x * 5 + 1] = __reduce_min_sync(m, v);
    out[threadIdx.x * 5 + 2] = __reduce_max_sync(m, int(v));
    out[threadIdx.x * 5 + 3] = __reduce_xor_sync(m, v);
    out[threadIdx.x * 5 + 4] = m;
  }
}
