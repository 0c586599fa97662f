// libcnuas_nvrtc.so: `cnuas exec` preloads it into the program. It passes the
// program's NVRTC and nvJitLink calls to the real libraries unchanged and
// remembers, for each cubin they hand out, the PTX the cubin was made from:
// the simulator runs PTX, and a program that loads such a cubin
// (cuModuleLoadData, cuLinkAddData) gets that PTX from the runtime
// (engine/device_images.cpp).
//  - nvrtcGetCUBIN: the PTX of the same compilation (nvrtcGetPTX).
//  - nvrtcGetLTOIR: LTO-IR has no PTX, so the program's source is compiled
//    once more, with the same options but -dlto, for its PTX.
//  - nvJitLink: the PTX of every input (PTX, and LTO-IR or cubins remembered
//    above); a link with another kind of input is not remembered.
#include <dlfcn.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

using Program = void*;  // nvrtcProgram
using Result = int;     // nvrtcResult and nvJitLinkResult: 0 is success
constexpr Result kSuccess = 0, kInternalError = 11;

// An image NVRTC or nvJitLink produced and the PTX units it comes from.
struct Image {
  std::string bytes;
  std::vector<std::string> ptx;
  std::vector<const char*> views;
};

// What an NVRTC program was created and compiled with.
struct Source {
  std::string text, name;
  std::vector<std::string> headers, include_names, options;
};

// What an nvJitLink handle was given.
struct Link {
  std::vector<std::string> ptx;
  bool complete = true;  // every input's PTX is known
};

std::mutex& lock() {
  static std::mutex m;
  return m;
}
// Never shrinks: the runtime keeps pointers into it.
std::deque<Image>& images() {
  static std::deque<Image> i;
  return i;
}
std::map<Program, Source>& sources() {
  static std::map<Program, Source> s;
  return s;
}
std::map<void*, Link>& links() {
  static std::map<void*, Link> l;
  return l;
}

template <class F>
F next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

const Image* find(const void* bytes, std::size_t size) {
  for (const Image& i : images())
    if (i.bytes.size() == size && std::memcmp(i.bytes.data(), bytes, size) == 0) return &i;
  return nullptr;
}

void remember(const void* bytes, std::size_t size, std::vector<std::string> ptx) {
  const bool known = !ptx.empty() && std::none_of(ptx.begin(), ptx.end(),
                                                  [](const std::string& p) { return p.empty(); });
  if (!known || find(bytes, size)) return;
  Image image;
  image.bytes.assign(static_cast<const char*>(bytes), size);
  image.ptx = std::move(ptx);
  images().push_back(std::move(image));
  for (const std::string& p : images().back().ptx) images().back().views.push_back(p.c_str());
}

std::string ptx_of(Program p) {
  static const auto size_of = next<Result (*)(Program, std::size_t*)>("nvrtcGetPTXSize");
  static const auto get = next<Result (*)(Program, char*)>("nvrtcGetPTX");
  std::size_t n = 0;
  if (!size_of || !get || size_of(p, &n) != kSuccess || n <= 1) return {};
  std::string text(n, '\0');
  if (get(p, text.data()) != kSuccess) return {};
  text.resize(std::strlen(text.c_str()));
  return text;
}

// The PTX of `source` compiled without link-time optimization.
std::string ptx_without_lto(const Source& source) {
  static const auto create =
      next<Result (*)(Program*, const char*, const char*, int, const char* const*,
                      const char* const*)>("nvrtcCreateProgram");
  static const auto compile =
      next<Result (*)(Program, int, const char* const*)>("nvrtcCompileProgram");
  static const auto destroy = next<Result (*)(Program*)>("nvrtcDestroyProgram");
  if (!create || !compile || !destroy) return {};
  std::vector<const char*> headers, include_names, options;
  for (const std::string& h : source.headers) headers.push_back(h.c_str());
  for (const std::string& n : source.include_names) include_names.push_back(n.c_str());
  for (const std::string& o : source.options)
    if (o != "-dlto" && o != "--dlink-time-opt" && o != "-dlink-time-opt")
      options.push_back(o.c_str());
  Program twin = nullptr;
  if (create(&twin, source.text.c_str(), source.name.empty() ? nullptr : source.name.c_str(),
             static_cast<int>(headers.size()), headers.data(), include_names.data()) != kSuccess)
    return {};
  std::string ptx;
  if (compile(twin, static_cast<int>(options.size()), options.data()) == kSuccess)
    ptx = ptx_of(twin);
  destroy(&twin);
  return ptx;
}

// nvJitLink input kinds (nvJitLinkInputType).
enum { kLinkCubin = 1, kLinkPtx = 2, kLinkLtoir = 3 };

void add_link_input(void* handle, int type, const void* data, std::size_t size) {
  auto l = links().find(handle);
  if (l == links().end()) return;
  if (type == kLinkPtx) {
    const char* text = static_cast<const char*>(data);
    l->second.ptx.emplace_back(text, strnlen(text, size));
    return;
  }
  const Image* image = type == kLinkCubin || type == kLinkLtoir ? find(data, size) : nullptr;
  if (!image) {
    l->second.complete = false;
    return;
  }
  l->second.ptx.insert(l->second.ptx.end(), image->ptx.begin(), image->ptx.end());
}

}  // namespace

extern "C" {

// ---- NVRTC ----

Result nvrtcCreateProgram(Program* p, const char* text, const char* name, int header_count,
                          const char* const* headers, const char* const* include_names) {
  static const auto real =
      next<Result (*)(Program*, const char*, const char*, int, const char* const*,
                      const char* const*)>("nvrtcCreateProgram");
  if (!real) return kInternalError;
  const Result r = real(p, text, name, header_count, headers, include_names);
  if (r != kSuccess || !p || !text) return r;
  Source s;
  s.text = text;
  s.name = name ? name : "";
  for (int i = 0; i < header_count && headers && include_names; ++i) {
    s.headers.emplace_back(headers[i] ? headers[i] : "");
    s.include_names.emplace_back(include_names[i] ? include_names[i] : "");
  }
  std::lock_guard<std::mutex> guard(lock());
  sources()[*p] = std::move(s);
  return r;
}

Result nvrtcCompileProgram(Program p, int count, const char* const* options) {
  static const auto real =
      next<Result (*)(Program, int, const char* const*)>("nvrtcCompileProgram");
  if (!real) return kInternalError;
  {
    std::lock_guard<std::mutex> guard(lock());
    auto s = sources().find(p);
    if (s != sources().end()) {
      s->second.options.clear();
      for (int i = 0; i < count && options; ++i)
        if (options[i]) s->second.options.emplace_back(options[i]);
    }
  }
  return real(p, count, options);
}

Result nvrtcDestroyProgram(Program* p) {
  static const auto real = next<Result (*)(Program*)>("nvrtcDestroyProgram");
  if (!real) return kInternalError;
  if (p) {
    std::lock_guard<std::mutex> guard(lock());
    sources().erase(*p);
  }
  return real(p);
}

Result nvrtcGetCUBIN(Program p, char* cubin) {
  static const auto real = next<Result (*)(Program, char*)>("nvrtcGetCUBIN");
  static const auto size_of = next<Result (*)(Program, std::size_t*)>("nvrtcGetCUBINSize");
  if (!real || !size_of) return kInternalError;
  const Result r = real(p, cubin);
  std::size_t n = 0;
  if (r != kSuccess || !cubin || size_of(p, &n) != kSuccess || n == 0) return r;
  std::string ptx = ptx_of(p);
  std::lock_guard<std::mutex> guard(lock());
  remember(cubin, n, {std::move(ptx)});
  return r;
}

Result nvrtcGetLTOIR(Program p, char* ltoir) {
  static const auto real = next<Result (*)(Program, char*)>("nvrtcGetLTOIR");
  static const auto size_of = next<Result (*)(Program, std::size_t*)>("nvrtcGetLTOIRSize");
  if (!real || !size_of) return kInternalError;
  const Result r = real(p, ltoir);
  std::size_t n = 0;
  if (r != kSuccess || !ltoir || size_of(p, &n) != kSuccess || n == 0) return r;
  Source source;
  {
    std::lock_guard<std::mutex> guard(lock());
    auto s = sources().find(p);
    if (s == sources().end() || find(ltoir, n)) return r;
    source = s->second;
  }
  std::string ptx = ptx_without_lto(source);
  std::lock_guard<std::mutex> guard(lock());
  remember(ltoir, n, {std::move(ptx)});
  return r;
}

// ---- nvJitLink (CUDA 13.0's symbol names) ----

Result __nvJitLinkCreate_13_0(void** handle, std::uint32_t count, const char** options) {
  static const auto real =
      next<Result (*)(void**, std::uint32_t, const char**)>("__nvJitLinkCreate_13_0");
  if (!real) return kInternalError;
  const Result r = real(handle, count, options);
  if (r == kSuccess && handle) {
    std::lock_guard<std::mutex> guard(lock());
    links()[*handle] = Link{};
  }
  return r;
}

Result __nvJitLinkDestroy_13_0(void** handle) {
  static const auto real = next<Result (*)(void**)>("__nvJitLinkDestroy_13_0");
  if (!real) return kInternalError;
  if (handle) {
    std::lock_guard<std::mutex> guard(lock());
    links().erase(*handle);
  }
  return real(handle);
}

Result __nvJitLinkAddData_13_0(void* handle, int type, const void* data, std::size_t size,
                               const char* name) {
  static const auto real = next<Result (*)(void*, int, const void*, std::size_t, const char*)>(
      "__nvJitLinkAddData_13_0");
  if (!real) return kInternalError;
  const Result r = real(handle, type, data, size, name);
  if (r == kSuccess && data) {
    std::lock_guard<std::mutex> guard(lock());
    add_link_input(handle, type, data, size);
  }
  return r;
}

Result __nvJitLinkAddFile_13_0(void* handle, int type, const char* path) {
  static const auto real = next<Result (*)(void*, int, const char*)>("__nvJitLinkAddFile_13_0");
  if (!real) return kInternalError;
  const Result r = real(handle, type, path);
  if (r != kSuccess || !path) return r;
  std::ifstream in(path, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::lock_guard<std::mutex> guard(lock());
  add_link_input(handle, type, bytes.data(), bytes.size());
  return r;
}

Result __nvJitLinkGetLinkedCubin_13_0(void* handle, void* cubin) {
  static const auto real = next<Result (*)(void*, void*)>("__nvJitLinkGetLinkedCubin_13_0");
  static const auto size_of =
      next<Result (*)(void*, std::size_t*)>("__nvJitLinkGetLinkedCubinSize_13_0");
  if (!real || !size_of) return kInternalError;
  const Result r = real(handle, cubin);
  std::size_t n = 0;
  if (r != kSuccess || !cubin || size_of(handle, &n) != kSuccess || n == 0) return r;
  std::lock_guard<std::mutex> guard(lock());
  auto l = links().find(handle);
  if (l != links().end() && l->second.complete) remember(cubin, n, l->second.ptx);
  return r;
}

// The PTX units the image (a cubin) of `size` bytes was made from, or 0 when
// no NVRTC or nvJitLink call of this process produced it.
std::size_t cnuas_jit_ptx_of_image(const void* image, std::size_t size, const char* const** units) {
  std::lock_guard<std::mutex> guard(lock());
  const Image* i = find(image, size);
  if (!i) return 0;
  *units = i->views.data();
  return i->views.size();
}

}  // extern "C"
