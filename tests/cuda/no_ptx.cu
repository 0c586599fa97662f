// A program built with cubins only: the launch fails with
// cudaErrorNoKernelImageForDevice and the runtime tells the user which
// -gencode to add (ctest checks the message).
#include "check.h"

__global__ void nothing() {}

int main() {
  nothing<<<1, 1>>>();
  CHECK(cudaGetLastError() == cudaErrorNoKernelImageForDevice);
  std::printf("PASS\n");
  return 0;
}
