// Two NVRTC programs linked with nvJitLink into one cubin that the program
// loads (issue 13): unit A's kernel calls offset_by() and reads `bias`, which
// unit B defines. Through link-time optimization (-dlto: LTO-IR inputs) and
// through relocatable PTX inputs; the simulator loads the linked cubin as the
// PTX of both units, which the NVRTC hook `cnuas exec` preloads kept.
// Checks: out[i] = offset_by(in[i]) = 3 * in[i] + bias with bias = 11 as
// unit B initializes it, for both links.
#include <nvJitLink.h>
#include <nvrtc.h>

#include <string>
#include <vector>

#include "cu_check.h"

#define NVRTC_OK(call)                                                                           \
  do {                                                                                           \
    const nvrtcResult r_ = (call);                                                               \
    if (r_ != NVRTC_SUCCESS) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #call,                       \
                   nvrtcGetErrorString(r_));                                                     \
      return 1;                                                                                  \
    }                                                                                            \
  } while (0)
#define LINK_OK(call)                                                                          \
  do {                                                                                         \
    const nvJitLinkResult r_ = (call);                                                         \
    if (r_ != NVJITLINK_SUCCESS) {                                                             \
      std::fprintf(stderr, "%s:%d: %s -> nvJitLink error %d\n", __FILE__, __LINE__, #call,     \
                   static_cast<int>(r_));                                                      \
      return 1;                                                                                \
    }                                                                                          \
  } while (0)

static const char* kUnitA = R"(
extern __device__ int bias;
extern __device__ int offset_by(int x);
extern "C" __global__ void apply(const int* in, int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = offset_by(in[i]);
}
)";
static const char* kUnitB = R"(
__device__ int bias = 11;
__device__ int offset_by(int x) { return 3 * x + bias; }
)";

// Compiles `source`; `lto` selects LTO-IR, else relocatable PTX for compute_90.
static int compile(const char* source, const char* name, bool lto, std::vector<char>* out) {
  nvrtcProgram p;
  NVRTC_OK(nvrtcCreateProgram(&p, source, name, 0, nullptr, nullptr));
  std::vector<const char*> options = {"-rdc=true"};
  options.push_back(lto ? "-arch=sm_90" : "-arch=compute_90");
  if (lto) options.push_back("-dlto");
  NVRTC_OK(nvrtcCompileProgram(p, static_cast<int>(options.size()), options.data()));
  std::size_t size = 0;
  if (lto) {
    NVRTC_OK(nvrtcGetLTOIRSize(p, &size));
    out->resize(size);
    NVRTC_OK(nvrtcGetLTOIR(p, out->data()));
  } else {
    NVRTC_OK(nvrtcGetPTXSize(p, &size));
    out->resize(size);
    NVRTC_OK(nvrtcGetPTX(p, out->data()));
  }
  NVRTC_OK(nvrtcDestroyProgram(&p));
  return 0;
}

static int link_and_run(bool lto) {
  std::vector<char> a, b;
  if (compile(kUnitA, "a.cu", lto, &a) || compile(kUnitB, "b.cu", lto, &b)) return 1;
  nvJitLinkHandle link;
  std::vector<const char*> options = {"-arch=sm_90"};
  if (lto) options.push_back("-lto");
  LINK_OK(nvJitLinkCreate(&link, static_cast<std::uint32_t>(options.size()), options.data()));
  const nvJitLinkInputType type = lto ? NVJITLINK_INPUT_LTOIR : NVJITLINK_INPUT_PTX;
  LINK_OK(nvJitLinkAddData(link, type, a.data(), a.size(), "a"));
  LINK_OK(nvJitLinkAddData(link, type, b.data(), b.size(), "b"));
  LINK_OK(nvJitLinkComplete(link));
  std::size_t size = 0;
  LINK_OK(nvJitLinkGetLinkedCubinSize(link, &size));
  std::vector<char> cubin(size);
  LINK_OK(nvJitLinkGetLinkedCubin(link, cubin.data()));
  LINK_OK(nvJitLinkDestroy(&link));

  CUmodule module;
  CU_OK(cuModuleLoadData(&module, cubin.data()));
  CUfunction apply;
  CU_OK(cuModuleGetFunction(&apply, module, "apply"));
  const int n = 256;
  std::vector<int> in(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = i - 100;
  CUdeviceptr din, dout;
  CU_OK(cuMemAlloc(&din, n * sizeof(int)));
  CU_OK(cuMemAlloc(&dout, n * sizeof(int)));
  CU_OK(cuMemcpyHtoD(din, in.data(), n * sizeof(int)));
  int count = n;
  void* args[] = {&din, &dout, &count};
  CU_OK(cuLaunchKernel(apply, n / 64, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr));
  CU_OK(cuMemcpyDtoH(out.data(), dout, n * sizeof(int)));
  for (int i = 0; i < n; ++i) CHECK(out[i] == 3 * in[i] + 11);
  CU_OK(cuMemFree(din));
  CU_OK(cuMemFree(dout));
  std::printf("%s: apply matches the host\n", lto ? "LTO-IR units" : "PTX units");
  return 0;
}

int main() {
  CU_OK(cuInit(0));
  CUdevice device;
  CU_OK(cuDeviceGet(&device, 0));
  CUcontext context;
  CU_OK(cuCtxCreate(&context, nullptr, 0, device));
  if (link_and_run(true) || link_and_run(false)) return 1;
  CU_OK(cuCtxDestroy(context));
  std::printf("PASS\n");
  return 0;
}
