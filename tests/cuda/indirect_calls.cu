// Indirect calls (issue 13): a device table of function pointers indexed per thread, so the
// lanes of one warp call different functions, and objects with virtual methods created in a
// kernel and called through their base class. Results are checked against the host.
#include <cstdio>
#include <vector>

#include "check.h"

typedef int (*BinaryOp)(int, int);

__device__ __noinline__ int add_op(int a, int b) {
  return a + b;
}
__device__ __noinline__ int mul_op(int a, int b) {
  return a * b;
}
__device__ __noinline__ int sub_op(int a, int b) {
  return a - b;
}
__device__ __noinline__ int max_op(int a, int b) {
  return a > b ? a : b;
}

__device__ BinaryOp ops_table[4] = {add_op, mul_op, sub_op, max_op};

__global__ void apply_table(const int* a, const int* b, int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = ops_table[(i * 7 + i / 5) % 4](a[i], b[i]);  // divergent targets per warp
}

struct Shape {
  __device__ virtual ~Shape() {}
  __device__ virtual int area() const = 0;
  __device__ virtual int sides() const { return 0; }
};
struct Rect : Shape {
  int w, h;
  __device__ Rect(int w_, int h_) : w(w_), h(h_) {}
  __device__ int area() const override { return w * h; }
  __device__ int sides() const override { return 4; }
};
struct Tri : Shape {
  int b, h;
  __device__ Tri(int b_, int h_) : b(b_), h(h_) {}
  __device__ int area() const override { return b * h / 2; }
  __device__ int sides() const override { return 3; }
};
struct Dot : Shape {
  __device__ int area() const override { return 0; }
};

__global__ void shapes(const int* a, const int* b, int* area, int* sides, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Rect r(a[i], b[i]);
  Tri t(a[i], b[i]);
  Dot d;
  const int kind = i % 3;
  // volatile keeps nvcc from resolving the call at compile time: it must go through the vtable.
  const Shape* volatile pick = kind == 0   ? static_cast<const Shape*>(&r)
                               : kind == 1 ? static_cast<const Shape*>(&t)
                                           : static_cast<const Shape*>(&d);
  const Shape* s = pick;
  area[i] = s->area();
  sides[i] = s->sides();
}

// The same shapes on the heap, made by new in one kernel and used by a later one.
__global__ void make_shapes(Shape** objects, const int* a, const int* b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (i % 2 == 0)
    objects[i] = new Rect(a[i], b[i]);
  else
    objects[i] = new Tri(a[i], b[i]);
}
__global__ void use_shapes(Shape** objects, int* area, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  area[i] = objects[i]->area() + 1000 * objects[i]->sides();
  delete objects[i];
}

int main() {
  const int n = 200;
  std::vector<int> a(n), b(n);
  for (int i = 0; i < n; ++i) a[i] = (i * 37) % 101 - 50, b[i] = (i * 11) % 23 + 1;
  int *da, *db, *dout, *dsides;
  Shape** dobjects;
  CUDA_OK(cudaMalloc(&da, n * sizeof(int)));
  CUDA_OK(cudaMalloc(&db, n * sizeof(int)));
  CUDA_OK(cudaMalloc(&dout, n * sizeof(int)));
  CUDA_OK(cudaMalloc(&dsides, n * sizeof(int)));
  CUDA_OK(cudaMalloc(&dobjects, n * sizeof(Shape*)));
  CUDA_OK(cudaMemcpy(da, a.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(db, b.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  std::vector<int> out(n), sides(n);

  apply_table<<<(n + 63) / 64, 64>>>(da, db, dout, n);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    const int x = a[i], y = b[i], k = (i * 7 + i / 5) % 4;
    const int want = k == 0 ? x + y : k == 1 ? x * y : k == 2 ? x - y : (x > y ? x : y);
    if (out[i] != want) std::printf("table[%d] at %d: got %d, want %d\n", k, i, out[i], want);
    CHECK(out[i] == want);
  }

  shapes<<<(n + 63) / 64, 64>>>(da, db, dout, dsides, n);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(sides.data(), dsides, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    const int kind = i % 3;
    const int want_area = kind == 0 ? a[i] * b[i] : kind == 1 ? a[i] * b[i] / 2 : 0;
    const int want_sides = kind == 0 ? 4 : kind == 1 ? 3 : 0;
    CHECK(out[i] == want_area);
    CHECK(sides[i] == want_sides);
  }

  make_shapes<<<(n + 63) / 64, 64>>>(dobjects, da, db, n);
  CUDA_OK(cudaGetLastError());
  use_shapes<<<(n + 63) / 64, 64>>>(dobjects, dout, n);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    const int want = i % 2 == 0 ? a[i] * b[i] + 4000 : a[i] * b[i] / 2 + 3000;
    CHECK(out[i] == want);
  }
  std::printf("PASS\n");
  return 0;
}
