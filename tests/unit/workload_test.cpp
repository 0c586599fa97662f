#include <gtest/gtest.h>

#include "core/inputs/workload.h"
#include "test_files.h"

namespace cnuas {
using namespace testing_support;

static const char* kPlatform =
    "platform: t\n"
    "elements:\n"
    "  - {name: a, type: cnuas.pipe, set: {bandwidth: 1 GB/s}}\n"
    "  - {name: b, type: cnuas.pipe, set: {bandwidth: 1 GB/s}}\n"
    "  - {name: c, type: cnuas.compute, set: {rate: 1 TFLOP/s}}\n"
    "  - {name: d, type: cnuas.pipe, set: {bandwidth: 1 GB/s}}\n"
    "connections:\n  - a -> b\n  - b -> c\n  - a -> d\n  - d -> c\n";

static WorkloadDesc load_workload_text(const std::string& workload) {
  static PlatformDesc platform = load_platform(load_yaml_file(write_file("wp.yaml", kPlatform)));
  static Topology topology(platform);
  YamlSource w = load_yaml_file(write_file("w.yaml", workload));
  return load_workload(w.root, w.file, platform, topology);
}

static std::string workload_error_of(const std::string& workload) {
  return input_error_of([&] { load_workload_text(workload); });
}

TEST(Workload, ReadsOperations) {
  WorkloadDesc w = load_workload_text(
      "workload: x\noperations:\n"
      "  - {name: one, path: [a, b], dims: {bytes: 4 KiB}, repeat: 3, interval: 1 us, start: 5 "
      "ns}\n"
      "  - {name: two, path: [a, b, c], dims: {bytes: 1, flops: 10}, after: [one], mode: "
      "overlap}\n");
  ASSERT_EQ(w.operations.size(), 2u);
  EXPECT_EQ(w.operations[0].dims.get(WorkDim::Bytes), 4096u);
  EXPECT_EQ(w.operations[0].repeat, 3u);
  EXPECT_EQ(w.operations[0].interval_ps, 1'000'000u);
  EXPECT_EQ(w.operations[0].start_ps, 5'000u);
  EXPECT_EQ(w.operations[1].mode, StageMode::Overlap);
}

TEST(Workload, EndpointsTakeTheShortestPathWithStableTieBreak) {
  WorkloadDesc w = load_workload_text(
      "operations:\n  - {name: r, from: a, to: c, dims: {bytes: 1, flops: 1}}\n");
  // a->b->c and a->d->c are equally short; b was connected first.
  EXPECT_EQ(w.operations[0].path, (std::vector<std::string>{"a", "b", "c"}));
}

TEST(Workload, MissingDimensionIsAnErrorNotZeroCost) {
  std::string e =
      workload_error_of("operations:\n  - {name: r, path: [a, b, c], dims: {bytes: 10}}\n");
  EXPECT_NE(e.find("w.yaml:2:5"), std::string::npos) << e;
  EXPECT_NE(e.find("needs work dimension 'flops'"), std::string::npos) << e;
}

TEST(Workload, PathsMustFollowConnections) {
  std::string e =
      workload_error_of("operations:\n  - {name: r, path: [b, a], dims: {bytes: 10}}\n");
  EXPECT_NE(e.find("no connection b -> a"), std::string::npos) << e;
  e = workload_error_of("operations:\n  - {name: r, path: [a, x], dims: {bytes: 10}}\n");
  EXPECT_NE(e.find("unknown element 'x'"), std::string::npos) << e;
}

TEST(Workload, DependencyProblemsAreReported) {
  std::string e = workload_error_of(
      "operations:\n  - {name: p, path: [a], dims: {bytes: 1}, after: [q]}\n"
      "  - {name: q, path: [a], dims: {bytes: 1}, after: [p]}\n");
  EXPECT_NE(e.find("cycle"), std::string::npos) << e;
  e = workload_error_of("operations:\n  - {name: p, path: [a], dims: {bytes: 1}, after: [qq]}\n");
  EXPECT_NE(e.find("unknown operation 'qq'"), std::string::npos) << e;
  e = workload_error_of(
      "operations:\n  - {name: p, path: [a], dims: {bytes: 1}}\n  - {name: p, path: [a], dims: "
      "{bytes: 1}}\n");
  EXPECT_NE(e.find("declared twice"), std::string::npos) << e;
  e = workload_error_of("operations:\n  - {name: p, path: [a], dims: {byte: 1}}\n");
  EXPECT_NE(e.find("did you mean 'bytes'"), std::string::npos) << e;
}

}  // namespace cnuas
