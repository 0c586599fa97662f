// Loads the PTX that nvcc produced from tests/ptx/kernels at build time and
// launches kernels with typed arguments laid out as each .entry declares.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "ptx/executor.h"

namespace cnuas::ptx::testing {

inline std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Skips the test (with the reason) when nvcc was not found at configure time.
#define CNUAS_REQUIRE_NVCC()                                        \
  do {                                                              \
    if (!CNUAS_HAVE_NVCC)                                           \
      GTEST_SKIP() << "nvcc not found at configure time: the CUDA " \
                      "kernel tests need it to produce PTX";        \
  } while (0)

class Device {
 public:
  explicit Device(const std::string& kernel_file)
      : module_(
            Module::parse(read_text(std::string(CNUAS_PTX_DIR) + "/" + kernel_file), kernel_file)),
        loaded_(module_, memory_),
        executor_(memory_, printed_) {}
  // A module parsed (or changed) by the test itself.
  explicit Device(std::shared_ptr<const Module> module)
      : module_(std::move(module)), loaded_(module_, memory_), executor_(memory_, printed_) {}

  template <class T>
  std::uint64_t upload(const std::vector<T>& v) {
    const std::uint64_t a = memory_.allocate(std::max<std::size_t>(v.size() * sizeof(T), 1));
    if (!v.empty()) memory_.write(a, v.data(), v.size() * sizeof(T));
    return a;
  }
  template <class T>
  std::uint64_t alloc(std::size_t n) {
    return memory_.allocate(std::max<std::size_t>(n * sizeof(T), 1));
  }
  template <class T>
  std::vector<T> download(std::uint64_t a, std::size_t n) {
    std::vector<T> v(n);
    if (n) memory_.read(a, v.data(), n * sizeof(T));
    return v;
  }

  template <class... Args>
  LaunchStats launch(const std::string& kernel, Dim3 grid, Dim3 block, const Args&... args) {
    return launch_shared(kernel, grid, block, 0, args...);
  }

  template <class... Args>
  LaunchStats launch_shared(const std::string& kernel, Dim3 grid, Dim3 block,
                            std::uint32_t dynamic_shared, const Args&... args) {
    const Function* f = module_->find(kernel);
    if (!f) throw std::invalid_argument("no kernel " + kernel);
    LaunchConfig cfg;
    cfg.grid = grid;
    cfg.block = block;
    cfg.dynamic_shared_bytes = dynamic_shared;
    cfg.textures = textures_;
    cfg.observer = observer_;
    cfg.params.assign(f->param_bytes, 0);
    std::size_t k = 0;
    (place(cfg, *f, k++, args), ...);
    if (k != f->params.size()) throw std::invalid_argument("wrong argument count for " + kernel);
    return executor_.launch(loaded_, kernel, cfg);
  }

  void set_textures(const TextureTable* t) { textures_ = t; }
  // Every launch reports its instructions to `o` (its warps then run one at a time).
  void set_observer(InstructionObserver* o) { observer_ = o; }
  const Module& module() const { return *module_; }
  DeviceMemory& memory() { return memory_; }
  Executor& executor() { return executor_; }
  std::string printed() const { return printed_.str(); }
  const LoadedModule& loaded() const { return loaded_; }

 private:
  template <class T>
  static void place(LaunchConfig& cfg, const Function& f, std::size_t k, const T& v) {
    if (k >= f.params.size()) throw std::invalid_argument("too many arguments");
    if (sizeof(T) != f.params[k].size) throw std::invalid_argument("argument size mismatch");
    std::memcpy(cfg.params.data() + f.params[k].offset, &v, sizeof(T));
  }

  DeviceMemory memory_;
  std::shared_ptr<const Module> module_;
  LoadedModule loaded_;
  std::ostringstream printed_;
  Executor executor_;
  const TextureTable* textures_ = nullptr;
  InstructionObserver* observer_ = nullptr;
};

// The same launches on two devices that must agree (one with an engine
// shortcut, one without): each launch's statistics are compared, and
// expect_same compares an output's bytes.
class DevicePair {
 public:
  DevicePair(std::unique_ptr<Device> a, std::unique_ptr<Device> b)
      : a_(std::move(a)), b_(std::move(b)) {}
  template <class T>
  std::pair<std::uint64_t, std::uint64_t> upload(const std::vector<T>& v) {
    return {a_->upload(v), b_->upload(v)};
  }
  template <class T>
  void expect_same(std::pair<std::uint64_t, std::uint64_t> x, std::size_t n) {
    EXPECT_EQ(a_->download<T>(x.first, n), b_->download<T>(x.second, n));
  }
  // l(device, k) launches on the first device (k = 0) or the second (k = 1).
  template <class Launch>
  void launch(Launch&& l) {
    const LaunchStats a = l(*a_, 0), b = l(*b_, 1);
    EXPECT_EQ(a.warp_instructions, b.warp_instructions);
    EXPECT_EQ(a.thread_instructions, b.thread_instructions);
    EXPECT_EQ(a.global_bytes, b.global_bytes);
    EXPECT_EQ(a.ctas, b.ctas);
    EXPECT_GT(a.warp_instructions, 0u);
  }
  Device& first() { return *a_; }
  Device& second() { return *b_; }

 private:
  std::unique_ptr<Device> a_, b_;
};

}  // namespace cnuas::ptx::testing
