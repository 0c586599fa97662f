// A misaligned 4- or 8-byte global access faults as on the hardware
// (cudaErrorMisalignedAddress, sticky: every later call returns it), and
// cudaDeviceReset clears it: old pointers are gone, new work runs.
#include "check.h"

__global__ void store_int(char* p, int offset) {
  *reinterpret_cast<int*>(p + offset) = 5;
}

__global__ void load_double(const char* p, int offset, double* out) {
  *out = *reinterpret_cast<const double*>(p + offset);
}

int main() {
  char* p = nullptr;
  double* out = nullptr;
  CUDA_OK(cudaMalloc(&p, 64));
  CUDA_OK(cudaMalloc(&out, sizeof(double)));
  // Aligned: fine.
  store_int<<<1, 1>>>(p, 8);
  load_double<<<1, 1>>>(p, 8, out);
  CUDA_OK(cudaDeviceSynchronize());
  // An 8-byte load at offset 4 (4-byte aligned only) faults.
  load_double<<<1, 1>>>(p, 4, out);
  CHECK(cudaDeviceSynchronize() == cudaErrorMisalignedAddress);
  CHECK(cudaGetLastError() == cudaErrorMisalignedAddress);
  CHECK(cudaMemset(p, 0, 64) == cudaErrorMisalignedAddress);  // sticky
  // The reset clears the error and the device's allocations.
  CUDA_OK(cudaDeviceReset());
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(cudaMemset(p, 0, 64) == cudaErrorInvalidValue);  // the old pointer is gone
  cudaGetLastError();
  CUDA_OK(cudaMalloc(&p, 64));
  store_int<<<1, 1>>>(p, 1);  // a 4-byte store at offset 1
  CHECK(cudaDeviceSynchronize() == cudaErrorMisalignedAddress);
  std::printf("PASS\n");
  return 0;
}
