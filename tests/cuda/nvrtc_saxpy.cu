// A program that compiles its kernel at run time with NVRTC for sm_90 and
// loads NVRTC's cubin (issue 13): the simulator runs the PTX of the same
// compilation, which the NVRTC hook `cnuas exec` preloads kept. Checks:
//  - saxpy through cuModuleLoadData and cuModuleLoadDataEx matches the host
//    (y = a*x + y, each element computed on the host in float);
//  - the cubin in a cuLink (CU_JIT_INPUT_CUBIN) links and runs the same kernel;
//  - a cubin NVRTC did not produce (one byte changed) is refused with
//    CUDA_ERROR_NO_BINARY_FOR_GPU, the driver's error for an image without
//    code this GPU runs.
// With the argument `without-hook` (run without `cnuas exec`, so nothing kept
// NVRTC's PTX) loading NVRTC's cubin itself fails with that error.
#include <nvrtc.h>

#include <cstring>
#include <vector>

#include "cu_check.h"

#define NVRTC_OK(call)                                                     \
  do {                                                                     \
    const nvrtcResult r_ = (call);                                         \
    if (r_ != NVRTC_SUCCESS) {                                             \
      std::fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #call, \
                   nvrtcGetErrorString(r_));                               \
      return 1;                                                            \
    }                                                                      \
  } while (0)

static const char* kSource = R"(
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
)";

// Runs saxpy from `module` over n elements and compares with the host.
static int run_saxpy(CUmodule module, const char* how) {
  const int n = 1000;
  const float a = 2.5f;
  std::vector<float> x(n), y(n), expect(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.5f * static_cast<float>(i);
    y[i] = 3.0f - static_cast<float>(i % 7);
    expect[i] = a * x[i] + y[i];
  }
  CUfunction f;
  CU_OK(cuModuleGetFunction(&f, module, "saxpy"));
  CUdeviceptr dx, dy;
  CU_OK(cuMemAlloc(&dx, n * sizeof(float)));
  CU_OK(cuMemAlloc(&dy, n * sizeof(float)));
  CU_OK(cuMemcpyHtoD(dx, x.data(), n * sizeof(float)));
  CU_OK(cuMemcpyHtoD(dy, y.data(), n * sizeof(float)));
  float alpha = a;
  int count = n;
  void* args[] = {&alpha, &dx, &dy, &count};
  CU_OK(cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
  CU_OK(cuMemcpyDtoH(y.data(), dy, n * sizeof(float)));
  for (int i = 0; i < n; ++i) CHECK(y[i] == expect[i]);
  CU_OK(cuMemFree(dx));
  CU_OK(cuMemFree(dy));
  std::printf("%s: saxpy of %d elements matches the host\n", how, n);
  return 0;
}

int main(int argc, char** argv) {
  const bool without_hook = argc > 1 && std::strcmp(argv[1], "without-hook") == 0;
  nvrtcProgram program;
  NVRTC_OK(nvrtcCreateProgram(&program, kSource, "saxpy.cu", 0, nullptr, nullptr));
  const char* options[] = {"-arch=sm_90"};
  NVRTC_OK(nvrtcCompileProgram(program, 1, options));
  std::size_t size = 0;
  NVRTC_OK(nvrtcGetCUBINSize(program, &size));
  std::vector<char> cubin(size);
  NVRTC_OK(nvrtcGetCUBIN(program, cubin.data()));
  NVRTC_OK(nvrtcDestroyProgram(&program));
  CHECK(size > 4 && std::memcmp(cubin.data(),
                                "\x7f"
                                "ELF",
                                4) == 0);  // SASS, not PTX

  CU_OK(cuInit(0));
  CUdevice device;
  CU_OK(cuDeviceGet(&device, 0));
  CUcontext context;
  CU_OK(cuCtxCreate(&context, nullptr, 0, device));

  CUmodule module;
  if (without_hook) {
    CHECK(cuModuleLoadData(&module, cubin.data()) == CUDA_ERROR_NO_BINARY_FOR_GPU);
    std::printf("without the hook: CUDA_ERROR_NO_BINARY_FOR_GPU\nPASS\n");
    return 0;
  }
  CU_OK(cuModuleLoadData(&module, cubin.data()));
  if (run_saxpy(module, "cuModuleLoadData")) return 1;
  CUmodule module_ex;
  CU_OK(cuModuleLoadDataEx(&module_ex, cubin.data(), 0, nullptr, nullptr));
  if (run_saxpy(module_ex, "cuModuleLoadDataEx")) return 1;

  CUlinkState link;
  CU_OK(cuLinkCreate(0, nullptr, nullptr, &link));
  CU_OK(cuLinkAddData(link, CU_JIT_INPUT_CUBIN, cubin.data(), cubin.size(), "saxpy.cubin", 0,
                      nullptr, nullptr));
  void* image = nullptr;
  std::size_t image_size = 0;
  CU_OK(cuLinkComplete(link, &image, &image_size));
  CUmodule linked;
  CU_OK(cuModuleLoadData(&linked, image));
  CU_OK(cuLinkDestroy(link));
  if (run_saxpy(linked, "cuLink of the cubin")) return 1;

  std::vector<char> foreign = cubin;
  foreign[foreign.size() / 2] ^= 0x5a;
  CUmodule refused;
  CHECK(cuModuleLoadData(&refused, foreign.data()) == CUDA_ERROR_NO_BINARY_FOR_GPU);

  CU_OK(cuCtxDestroy(context));
  std::printf("PASS\n");
  return 0;
}
