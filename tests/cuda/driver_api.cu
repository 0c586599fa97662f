// The driver API: initialization, contexts, modules loaded from PTX text and
// from a fat binary, cuLaunchKernel with parameter arrays and a packed buffer,
// streams and events. Usage: driver_api KERNELS.ptx KERNELS.fatbin
#include <cuda.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cu_check.h"

static std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

int main(int argc, char** argv) {
  CHECK(argc == 3);
  int count = 0;
  CHECK(cuDeviceGetCount(&count) == CUDA_ERROR_NOT_INITIALIZED);
  CU_OK(cuInit(0));
  CU_OK(cuDeviceGetCount(&count));
  CHECK(count == 1);
  CUdevice dev;
  CU_OK(cuDeviceGet(&dev, 0));
  char name[128];
  CU_OK(cuDeviceGetName(name, sizeof name, dev));
  int major = 0, minor = 0;
  CU_OK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
  CU_OK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
  std::printf("%s, compute capability %d.%d\n", name, major, minor);
  CHECK(major == 9 && minor == 0);
  CUcontext ctx;
  CU_OK(cuCtxCreate(&ctx, nullptr, 0, dev));

  CUmodule from_ptx, from_fatbin;
  CU_OK(cuModuleLoad(&from_ptx, argv[1]));
  const std::string fatbin = read_file(argv[2]);
  CU_OK(cuModuleLoadData(&from_fatbin, fatbin.data()));
  CUfunction saxpy, count_fn, missing;
  CU_OK(cuModuleGetFunction(&saxpy, from_ptx, "saxpy"));
  CU_OK(cuModuleGetFunction(&count_fn, from_fatbin, "count"));
  CHECK(cuModuleGetFunction(&missing, from_ptx, "no_such_kernel") == CUDA_ERROR_NOT_FOUND);

  const int n = 5000;
  std::vector<float> x(n), y(n), out(n);
  for (int i = 0; i < n; ++i) x[i] = 0.25f * i, y[i] = 1.0f - i;
  CUdeviceptr dx, dy;
  CU_OK(cuMemAlloc(&dx, n * sizeof(float)));
  CU_OK(cuMemAlloc(&dy, n * sizeof(float)));
  CU_OK(cuMemcpyHtoD(dx, x.data(), n * sizeof(float)));
  CU_OK(cuMemcpyHtoD(dy, y.data(), n * sizeof(float)));
  CUstream stream;
  CU_OK(cuStreamCreate(&stream, 0));
  CUevent t0, t1;
  CU_OK(cuEventCreate(&t0, 0));
  CU_OK(cuEventCreate(&t1, 0));
  float a = 3.0f;
  void* params[] = {&a, &dx, &dy, const_cast<int*>(&n)};
  CU_OK(cuEventRecord(t0, stream));
  CU_OK(cuLaunchKernel(saxpy, (n + 127) / 128, 1, 1, 128, 1, 1, 0, stream, params, nullptr));
  // The same launch through a packed parameter buffer, laid out as the PTX declares it.
  struct {
    float a;
    int pad;
    CUdeviceptr x, y;
    int n;
  } packed = {2.0f, 0, dx, dy, n};
  size_t size = sizeof packed;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                   CU_LAUNCH_PARAM_END};
  CU_OK(cuLaunchKernel(saxpy, (n + 127) / 128, 1, 1, 128, 1, 1, 0, stream, nullptr, extra));
  for (int i = 0; i < 5; ++i)
    CU_OK(cuLaunchKernel(count_fn, 4, 1, 1, 32, 1, 1, 0, stream, nullptr, nullptr));
  CU_OK(cuEventRecord(t1, stream));
  CU_OK(cuStreamSynchronize(stream));
  CU_OK(cuMemcpyDtoH(out.data(), dy, n * sizeof(float)));
  for (int i = 0; i < n; ++i) CHECK(out[i] == 2.0f * x[i] + (3.0f * x[i] + y[i]));
  CUdeviceptr launches;
  size_t bytes = 0;
  CU_OK(cuModuleGetGlobal(&launches, &bytes, from_fatbin, "launches"));
  int counted = 0;
  CU_OK(cuMemcpyDtoH(&counted, launches, sizeof counted));
  CHECK(bytes == sizeof(int) && counted == 5 * 4);
  float ms = 0;
  CU_OK(cuEventElapsedTime(&ms, t0, t1));
  std::printf("7 launches: %.4f ms simulated\n", ms);
  CHECK(ms >= 7 * 0.004f);  // each at least the platform's 4 us launch overhead
  CU_OK(cuCtxSynchronize());
  CU_OK(cuMemFree(dx));
  CU_OK(cuMemFree(dy));
  CU_OK(cuCtxDestroy(ctx));
  std::printf("PASS\n");
  return 0;
}
