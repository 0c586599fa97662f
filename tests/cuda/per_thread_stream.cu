// The per-thread default stream, built with `nvcc --default-stream per-thread`
// (which defines CUDA_API_PER_THREAD_DEFAULT_STREAM): stream 0 in runtime calls
// and NULL in the driver's _ptsz/_ptds entry points (called directly, as cuda.h
// maps them, and found with cuGetProcAddress's per-thread flag) are the
// per-thread default stream. What CUDA documents and this program checks:
//  - the per-thread default stream does not wait for other blocking streams,
//  - the legacy default stream does, and
//  - the per-thread default stream waits for the legacy one (it is not non-blocking),
//  - each host thread has its own, which does not wait for another thread's.
// Order is read from simulated event times: a 16 MiB pinned copy on a blocking
// stream s1 takes ~0.6 ms on PCIe Gen4 x16, a memset or a small kernel a few us.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <thread>
#include <vector>

#include "cu_check.h"

__global__ void fill(int* out, int n, int value) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = value + i;
}

static void* driver_symbol(const char* name) {
  static void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  return driver ? dlsym(driver, name) : nullptr;
}

// Milliseconds from `from` to `to` (both already complete).
static float ms_between(cudaEvent_t from, cudaEvent_t to) {
  float ms = -1;
  if (cudaEventElapsedTime(&ms, from, to) != cudaSuccess) return -1e9f;
  return ms;
}

int main() {
  const std::size_t big = 16u << 20;
  const int n = 4096;
  char* pinned = nullptr;
  CUDA_OK(cudaMallocHost(&pinned, big));
  char* big_dev = nullptr;
  int* small = nullptr;
  CUDA_OK(cudaMalloc(&big_dev, big));
  CUDA_OK(cudaMalloc(&small, n * sizeof(int)));
  cudaStream_t s1;
  CUDA_OK(cudaStreamCreate(&s1));  // blocking
  cudaEvent_t t0, s1_done, probe;
  for (cudaEvent_t* e : {&t0, &s1_done, &probe}) CUDA_OK(cudaEventCreate(e));

  // 1. Runtime: stream 0 is the per-thread stream; it does not wait for s1.
  CUDA_OK(cudaEventRecord(t0, s1));
  CUDA_OK(cudaMemcpyAsync(big_dev, pinned, big, cudaMemcpyHostToDevice, s1));
  CUDA_OK(cudaEventRecord(s1_done, s1));
  fill<<<16, 256>>>(small, n, 3);
  CUDA_OK(cudaEventRecord(probe, 0));
  CUDA_OK(cudaDeviceSynchronize());
  const float copy_ms = ms_between(t0, s1_done), runtime_pt_ms = ms_between(t0, probe);
  std::printf("copy on s1 %.4f ms; kernel on stream 0 done at %.4f ms\n", copy_ms, runtime_pt_ms);
  CHECK(copy_ms > 0.3f);
  CHECK(runtime_pt_ms >= 0 && runtime_pt_ms < copy_ms / 4);
  std::vector<int> host(n);
  CUDA_OK(cudaMemcpy(host.data(), small, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(host[i] == 3 + i);
  // cudaStreamLegacy does wait for s1.
  CUDA_OK(cudaEventRecord(t0, s1));
  CUDA_OK(cudaMemcpyAsync(big_dev, pinned, big, cudaMemcpyHostToDevice, s1));
  CUDA_OK(cudaEventRecord(s1_done, s1));
  fill<<<16, 256, 0, cudaStreamLegacy>>>(small, n, 4);
  CUDA_OK(cudaEventRecord(probe, cudaStreamLegacy));
  CUDA_OK(cudaDeviceSynchronize());
  std::printf("kernel on the legacy stream done at %.4f ms\n", ms_between(t0, probe));
  CHECK(ms_between(t0, probe) > ms_between(t0, s1_done));

  // 2. Driver: the _ptsz/_ptds entry points. cuda.h maps the names in this
  // build (cuMemsetD8Async -> cuMemsetD8Async_ptsz ...), and cuGetProcAddress
  // (cuda.h adds the per-thread flag in this build) returns the same symbols.
  void* fn = nullptr;
  CU_OK(cuGetProcAddress("cuMemsetD8Async", &fn, 13000, 0, nullptr));
  CHECK(fn != nullptr && fn == driver_symbol("cuMemsetD8Async_ptsz"));
  const char* per_thread_symbols[][2] = {
      {"cuMemcpyAsync", "cuMemcpyAsync_ptsz"},
      {"cuMemcpyHtoD", "cuMemcpyHtoD_v2_ptds"},
      {"cuMemcpyDtoH", "cuMemcpyDtoH_v2_ptds"},
      {"cuLaunchKernel", "cuLaunchKernel_ptsz"},
      {"cuLaunchKernelEx", "cuLaunchKernelEx_ptsz"},
      {"cuStreamSynchronize", "cuStreamSynchronize_ptsz"},
      {"cuStreamQuery", "cuStreamQuery_ptsz"},
      {"cuStreamWaitEvent", "cuStreamWaitEvent_ptsz"},
      {"cuEventRecord", "cuEventRecord_ptsz"},
      {"cuEventRecordWithFlags", "cuEventRecordWithFlags_ptsz"},
      {"cuGraphLaunch", "cuGraphLaunch_ptsz"},
      {"cuGraphUpload", "cuGraphUpload_ptsz"},
      {"cuGraphInstantiateWithParams", "cuGraphInstantiateWithParams_ptsz"},
      {"cuStreamGetId", "cuStreamGetId_ptsz"},
  };
  for (const auto& s : per_thread_symbols) {
    CU_OK(cuGetProcAddress(s[0], &fn, 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
                           nullptr));
    if (fn == nullptr || fn != driver_symbol(s[1])) {
      std::fprintf(stderr, "%s: not %s\n", s[0], s[1]);
      return 1;
    }
  }

  // NULL in a _ptsz call is the per-thread stream, NULL in the legacy form the legacy stream.
  unsigned long long per_thread_id = 0, legacy_id = 0, null_pt_id = 0, null_legacy_id = 0;
  CU_OK(cuStreamGetId(CU_STREAM_PER_THREAD, &per_thread_id));  // cuStreamGetId_ptsz here
  CU_OK(cuStreamGetId(CU_STREAM_LEGACY, &legacy_id));
  CU_OK(cuStreamGetId(nullptr, &null_pt_id));
  CU_OK(cuGetProcAddress("cuStreamGetId", &fn, 13000, CU_GET_PROC_ADDRESS_LEGACY_STREAM, nullptr));
  CHECK(fn == driver_symbol("cuStreamGetId"));
  CU_OK(reinterpret_cast<PFN_cuStreamGetId_v12000>(fn)(nullptr, &null_legacy_id));
  CHECK(per_thread_id != legacy_id);
  CHECK(null_pt_id == per_thread_id);
  CHECK(null_legacy_id == legacy_id);

  // A memset and an event on NULL through the _ptsz forms do not wait for s1; the
  // same event recorded through the legacy cuEventRecord does.
  const CUdeviceptr dsmall = reinterpret_cast<CUdeviceptr>(small);
  CUDA_OK(cudaEventRecord(t0, s1));
  CUDA_OK(cudaMemcpyAsync(big_dev, pinned, big, cudaMemcpyHostToDevice, s1));
  CUDA_OK(cudaEventRecord(s1_done, s1));
  CU_OK(cuMemsetD8Async(dsmall, 0x5a, n * sizeof(int), nullptr));  // _ptsz
  CU_OK(cuEventRecord(reinterpret_cast<CUevent>(probe), nullptr));  // _ptsz
  CU_OK(cuStreamSynchronize(reinterpret_cast<CUstream>(s1)));
  CU_OK(cuStreamSynchronize(nullptr));  // _ptsz
  const float driver_pt_ms = ms_between(t0, probe);
  std::printf("driver: memset on NULL (_ptsz) done at %.4f ms of %.4f\n", driver_pt_ms,
              ms_between(t0, s1_done));
  CHECK(driver_pt_ms >= 0 && driver_pt_ms < ms_between(t0, s1_done) / 4);
  std::vector<unsigned char> bytes(n * sizeof(int));
  CU_OK(cuMemcpyDtoH(bytes.data(), dsmall, bytes.size()));  // _ptds
  for (unsigned char b : bytes) CHECK(b == 0x5a);

  CUDA_OK(cudaEventRecord(t0, s1));
  CUDA_OK(cudaMemcpyAsync(big_dev, pinned, big, cudaMemcpyHostToDevice, s1));
  CUDA_OK(cudaEventRecord(s1_done, s1));
  CU_OK(cuGetProcAddress("cuEventRecord", &fn, 13000, CU_GET_PROC_ADDRESS_LEGACY_STREAM, nullptr));
  CU_OK(reinterpret_cast<PFN_cuEventRecord_v2000>(fn)(reinterpret_cast<CUevent>(probe), nullptr));
  CU_OK(cuCtxSynchronize());
  std::printf("driver: event on NULL (legacy form) at %.4f ms\n", ms_between(t0, probe));
  CHECK(ms_between(t0, probe) >= ms_between(t0, s1_done));

  // The per-thread stream waits for the legacy one: a copy on the legacy stream,
  // then an event on NULL through _ptsz.
  CUDA_OK(cudaEventRecord(t0, cudaStreamLegacy));
  CUDA_OK(cudaMemcpyAsync(big_dev, pinned, big, cudaMemcpyHostToDevice, cudaStreamLegacy));
  CUDA_OK(cudaEventRecord(s1_done, cudaStreamLegacy));
  CU_OK(cuEventRecord(reinterpret_cast<CUevent>(probe), nullptr));  // _ptsz
  CU_OK(cuCtxSynchronize());
  std::printf("driver: event on NULL (_ptsz) after a legacy copy at %.4f ms\n",
              ms_between(t0, probe));
  CHECK(ms_between(t0, probe) >= ms_between(t0, s1_done));

  // A kernel through cuLaunchKernel_ptsz and a copy through cuMemcpyHtoD_v2_ptds.
  CUfunction f = nullptr;
  CUDA_OK(cudaGetFuncBySymbol(reinterpret_cast<cudaFunction_t*>(&f), reinterpret_cast<const void*>(fill)));
  int value = 11, count = n;
  void* args[] = {&small, &count, &value};
  CU_OK(cuLaunchKernel(f, 16, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
  CU_OK(cuStreamSynchronize(nullptr));
  CU_OK(cuMemcpyDtoH(host.data(), dsmall, n * sizeof(int)));
  for (int i = 0; i < n; ++i) CHECK(host[i] == 11 + i);
  for (int i = 0; i < n; ++i) host[i] = 2 * i;
  CU_OK(cuMemcpyHtoD(dsmall, host.data(), n * sizeof(int)));  // _ptds
  std::vector<int> back(n);
  CU_OK(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(back.data()), dsmall, n * sizeof(int),
                      nullptr));  // _ptsz, unified addressing
  CU_OK(cuStreamSynchronize(nullptr));
  for (int i = 0; i < n; ++i) CHECK(back[i] == 2 * i);

  // A graph captured on s1, instantiated with an upload on NULL, uploaded and launched on NULL.
  CUDA_OK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  fill<<<16, 256, 0, s1>>>(small, n, 21);
  cudaGraph_t graph;
  CUDA_OK(cudaStreamEndCapture(s1, &graph));
  CUDA_GRAPH_INSTANTIATE_PARAMS params = {};
  params.flags = CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD;
  params.hUploadStream = nullptr;
  CUgraphExec exec = nullptr;
  CU_OK(cuGraphInstantiateWithParams(&exec, reinterpret_cast<CUgraph>(graph), &params));  // _ptsz
  CHECK(params.result_out == CUDA_GRAPH_INSTANTIATE_SUCCESS);
  CU_OK(cuGraphUpload(exec, nullptr));  // _ptsz
  CU_OK(cuGraphLaunch(exec, nullptr));  // _ptsz
  CU_OK(cuStreamSynchronize(nullptr));
  CU_OK(cuMemcpyDtoH(host.data(), dsmall, n * sizeof(int)));
  for (int i = 0; i < n; ++i) CHECK(host[i] == 21 + i);
  CU_OK(cuGraphExecDestroy(exec));
  CUDA_OK(cudaGraphDestroy(graph));

  // 3. Another host thread's per-thread default stream is its own: another
  // stream, and its work does not wait for a copy on this thread's.
  unsigned long long other_id = 0;
  int other_failed = 0;
  CUDA_OK(cudaEventRecord(t0, 0));
  CUDA_OK(cudaMemcpyAsync(big_dev, pinned, big, cudaMemcpyHostToDevice, 0));
  CUDA_OK(cudaEventRecord(s1_done, 0));
  std::thread other([&] {
    if (cudaSetDevice(0) != cudaSuccess ||
        cuStreamGetId(CU_STREAM_PER_THREAD, &other_id) != CUDA_SUCCESS) {
      other_failed = 1;
      return;
    }
    fill<<<16, 256>>>(small, n, 31);  // on this thread's stream 0
    if (cudaEventRecord(probe, 0) != cudaSuccess || cudaStreamSynchronize(0) != cudaSuccess)
      other_failed = 2;
  });
  other.join();
  CUDA_OK(cudaDeviceSynchronize());
  CHECK(other_failed == 0);
  CHECK(other_id != per_thread_id && other_id != legacy_id);
  std::printf("other thread: kernel on its stream 0 done at %.4f ms of %.4f\n",
              ms_between(t0, probe), ms_between(t0, s1_done));
  CHECK(ms_between(t0, probe) < ms_between(t0, s1_done) / 4);
  CUDA_OK(cudaMemcpy(host.data(), small, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(host[i] == 31 + i);

  // An entry point whose base the simulator lacks still names itself and fails cleanly.
  CU_OK(cuGetProcAddress("cuStreamAttachMemAsync", &fn, 13000,
                         CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, nullptr));
  CHECK(fn == driver_symbol("cuStreamAttachMemAsync_ptsz"));
  CHECK(reinterpret_cast<PFN_cuStreamAttachMemAsync_v7000_ptsz>(fn)(nullptr, dsmall, 0, 0) ==
        CUDA_ERROR_NOT_SUPPORTED);

  for (cudaEvent_t e : {t0, s1_done, probe}) CUDA_OK(cudaEventDestroy(e));
  CUDA_OK(cudaStreamDestroy(s1));
  CUDA_OK(cudaFree(big_dev));
  CUDA_OK(cudaFree(small));
  CUDA_OK(cudaFreeHost(pinned));
  std::printf("PASS\n");
  return 0;
}
