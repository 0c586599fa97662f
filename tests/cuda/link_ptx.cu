// The driver's JIT linker on two relocatable PTX units nvcc compiled from
// link_unit_a.cu (kernel `apply`, which calls scale_by() and b_tag() and
// counts in `counter`) and link_unit_b.cu (their definitions). Checks:
//  - PTX + PTX (cuLinkAddFile, cuLinkAddData), PTX + fat binary, PTX + host
//    object (nvcc -c -rdc=true) and PTX + static library of that object link
//    into an image cuModuleLoadData loads; `apply` gives out[i] = in[i] * 1.5 + 1
//    (B's factor), tags[i] = 1 + 100 (A's static helper reads A's `base` 1,
//    B's reads B's 100: same-named private symbols stay apart), and `counter`
//    (B's, initially 5) ends at 5 + n: one variable for both units;
//  - unit A alone fails with CUDA_ERROR_INVALID_IMAGE and the error log
//    names the undefined function;
//  - unit B twice fails: its functions are defined twice.
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cu_check.h"

static std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Loads the linked image and checks `apply` over n elements against the host.
static int check_linked(void* image, const char* how) {
  CUmodule module;
  CU_OK(cuModuleLoadData(&module, image));
  CUfunction apply;
  CU_OK(cuModuleGetFunction(&apply, module, "apply"));
  const int n = 300;
  std::vector<float> in(n), out(n);
  std::vector<int> tags(n);
  for (int i = 0; i < n; ++i) in[i] = 0.25f * static_cast<float>(i) - 10.0f;
  CUdeviceptr din, dout, dtags;
  CU_OK(cuMemAlloc(&din, n * sizeof(float)));
  CU_OK(cuMemAlloc(&dout, n * sizeof(float)));
  CU_OK(cuMemAlloc(&dtags, n * sizeof(int)));
  CU_OK(cuMemcpyHtoD(din, in.data(), n * sizeof(float)));
  int count = n;
  void* args[] = {&din, &dout, &dtags, &count};
  CU_OK(cuLaunchKernel(apply, (n + 63) / 64, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr));
  CU_OK(cuMemcpyDtoH(out.data(), dout, n * sizeof(float)));
  CU_OK(cuMemcpyDtoH(tags.data(), dtags, n * sizeof(int)));
  for (int i = 0; i < n; ++i) {
    CHECK(out[i] == in[i] * 1.5f + 1.0f);
    CHECK(tags[i] == 101);
  }
  CUdeviceptr counter;
  std::size_t bytes = 0;
  CU_OK(cuModuleGetGlobal(&counter, &bytes, module, "counter"));
  CHECK(bytes == sizeof(int));
  int value = 0;
  CU_OK(cuMemcpyDtoH(&value, counter, sizeof value));
  CHECK(value == 5 + n);
  CU_OK(cuMemFree(din));
  CU_OK(cuMemFree(dout));
  CU_OK(cuMemFree(dtags));
  std::printf("%s: apply matches the host, counter %d\n", how, value);
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: link_ptx unit_a.ptx unit_b.ptx unit_b.fatbin unit_b.o libb.a\n");
    return 2;
  }
  const std::string b_ptx = read_file(argv[2]), b_fatbin = read_file(argv[3]);
  CHECK(!b_ptx.empty() && !b_fatbin.empty());
  CU_OK(cuInit(0));
  CUdevice device;
  CU_OK(cuDeviceGet(&device, 0));
  CUcontext context;
  CU_OK(cuCtxCreate(&context, nullptr, 0, device));

  // PTX file + PTX text.
  CUlinkState link;
  CU_OK(cuLinkCreate(0, nullptr, nullptr, &link));
  CU_OK(cuLinkAddFile(link, CU_JIT_INPUT_PTX, argv[1], 0, nullptr, nullptr));
  CU_OK(cuLinkAddData(link, CU_JIT_INPUT_PTX, const_cast<char*>(b_ptx.c_str()), b_ptx.size() + 1,
                      "unit_b.ptx", 0, nullptr, nullptr));
  void* image = nullptr;
  std::size_t size = 0;
  CU_OK(cuLinkComplete(link, &image, &size));
  CHECK(image && size > 0);
  if (check_linked(image, "PTX + PTX")) return 1;
  CU_OK(cuLinkDestroy(link));

  // PTX + fat binary.
  CU_OK(cuLinkCreate(0, nullptr, nullptr, &link));
  CU_OK(cuLinkAddFile(link, CU_JIT_INPUT_PTX, argv[1], 0, nullptr, nullptr));
  CU_OK(cuLinkAddData(link, CU_JIT_INPUT_FATBINARY, const_cast<char*>(b_fatbin.data()),
                      b_fatbin.size(), "unit_b.fatbin", 0, nullptr, nullptr));
  CU_OK(cuLinkComplete(link, &image, &size));
  if (check_linked(image, "PTX + fatbin")) return 1;
  CU_OK(cuLinkDestroy(link));

  // PTX + host object, PTX + library.
  const CUjitInputType kinds[] = {CU_JIT_INPUT_OBJECT, CU_JIT_INPUT_LIBRARY};
  for (int k = 0; k < 2; ++k) {
    CU_OK(cuLinkCreate(0, nullptr, nullptr, &link));
    CU_OK(cuLinkAddFile(link, CU_JIT_INPUT_PTX, argv[1], 0, nullptr, nullptr));
    CU_OK(cuLinkAddFile(link, kinds[k], argv[4 + k], 0, nullptr, nullptr));
    CU_OK(cuLinkComplete(link, &image, &size));
    if (check_linked(image, k == 0 ? "PTX + object" : "PTX + library")) return 1;
    CU_OK(cuLinkDestroy(link));
  }

  // Unit A alone: scale_by and b_tag are nowhere.
  char log[1024] = "untouched";
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {log, reinterpret_cast<void*>(sizeof log)};
  CU_OK(cuLinkCreate(2, options, values, &link));
  CU_OK(cuLinkAddFile(link, CU_JIT_INPUT_PTX, argv[1], 0, nullptr, nullptr));
  CHECK(cuLinkComplete(link, &image, &size) == CUDA_ERROR_INVALID_IMAGE);
  std::printf("unit A alone: %s", log);
  CHECK(std::string(log).find("undefined reference to function '_Z5b_tagv'") != std::string::npos);
  CHECK(reinterpret_cast<std::size_t>(values[1]) == std::string(log).size() + 1);
  CU_OK(cuLinkDestroy(link));

  // Unit B twice.
  CU_OK(cuLinkCreate(2, options, values, &link));
  CU_OK(cuLinkAddFile(link, CU_JIT_INPUT_PTX, argv[2], 0, nullptr, nullptr));
  CU_OK(cuLinkAddFile(link, CU_JIT_INPUT_PTX, argv[2], 0, nullptr, nullptr));
  CHECK(cuLinkComplete(link, &image, &size) == CUDA_ERROR_INVALID_IMAGE);
  std::printf("unit B twice: %s", log);
  CHECK(std::string(log).find("is defined twice") != std::string::npos);
  CU_OK(cuLinkDestroy(link));
  CHECK(cuLinkDestroy(link) == CUDA_ERROR_INVALID_HANDLE);

  CU_OK(cuCtxDestroy(context));
  std::printf("PASS\n");
  return 0;
}
