// Control flow: divergence and reconvergence, loops with break and continue,
// early exit, switches, calls, recursion, local memory, printf.
#include <cstdio>

// Each lane takes its own path through nested branches and loops; the result
// also checks the warp reconverged (every lane adds after the loop).
extern "C" __global__ void diverge(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i], acc = 0;
  for (int k = 0; k < 64; ++k) {
    if (k > (v & 31)) break;
    if ((k + v) % 3 == 0) continue;
    if (k & 1) {
      acc += k * 2;
      if (acc > 500) break;
    } else {
      acc -= k;
    }
  }
  if (v < 0) {
    out[i] = -acc;
    return;  // early exit on some lanes
  }
  __syncwarp();
  out[i] = acc + __popc(__activemask());
}

__device__ __noinline__ int fib(int n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__device__ __noinline__ float weigh(const float* v, int n, float scale) {
  float local[16];  // local memory, indexed dynamically
  for (int k = 0; k < 16; ++k) local[k] = v[k % n] * scale + k;
  float s = 0;
  for (int k = 15; k >= 0; k -= 3) s += local[(k * 7) & 15];
  return s;
}

extern "C" __global__ void calls(const float* v, int* fibs, float* weights) {
  int i = threadIdx.x;
  fibs[i] = fib(i % 16);
  weights[i] = weigh(v, 1 + i % 5, 0.5f * i);
}

extern "C" __global__ void dispatch(const int* in, int* out) {
  int i = threadIdx.x;
  int r;
  switch (in[i] & 15) {
    case 0:
      r = 11;
      break;
    case 1:
      r = 7 * i;
      break;
    case 2:
      r = i ^ 5;
      break;
    case 3:
      r = -i;
      break;
    case 4:
      r = 100;
      break;
    case 5:
      r = i * i;
      break;
    case 6:
      r = 3;
      break;
    case 7:
      r = i + 17;
      break;
    case 8:
      r = 1234;
      break;
    case 9:
      r = i >> 1;
      break;
    default:
      r = -1;
  }
  out[i] = r;
}

extern "C" __global__ void say(int base) {
  if (threadIdx.x % 16 == 0)
    printf("thread %d of %d: %d %.3f %s %lld|%5d|%-4x|\n", threadIdx.x, blockDim.x,
           base + threadIdx.x, 1.5 * threadIdx.x, "ok", -1234567890123ll, 42, 255);
}

// Grid-stride loop across CTAs with 2D and 3D indices.
extern "C" __global__ void grid3d(int* out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < nx && y < ny && z < nz) out[(z * ny + y) * nx + x] = x + 100 * y + 10000 * z;
}
