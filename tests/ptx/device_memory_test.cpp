// Device memory placed as the CUDA driver places it: rounded allocations in
// 2 MiB pages, accesses past an allocation's end inside a mapped page let
// through and reported once per kernel and PTX line (unless strict).
#include "ptx_harness.h"

namespace cnuas::ptx::testing {
namespace {

TEST(PtxDeviceMemory, SmallAllocationsAreRoundedAndPackedInOnePage) {
  DeviceMemory m;
  const std::uint64_t a = m.allocate(1, 512), b = m.allocate(1, 512), c = m.allocate(513, 512);
  const std::uint64_t d = m.allocate(1, 512);
  EXPECT_EQ(a % kDevicePage, 0u);  // the first page starts on a page boundary
  EXPECT_EQ(b - a, 512u);          // 1 byte rounds to one 512-byte granule
  EXPECT_EQ(c - b, 512u);
  EXPECT_EQ(d - c, 1024u);  // 513 bytes round to two granules
  EXPECT_EQ(m.allocated_bytes(), 516u);
  // Inside the rounding: not the allocation, but mapped.
  EXPECT_EQ(m.find(a + 1, 1), nullptr);
  ASSERT_NE(m.find_mapped(a + 1, 1), nullptr);
  EXPECT_EQ(m.find_mapped(a + 1, 1), m.find(a, 1) + 1);
  // The rest of the page is mapped; the page after it is not.
  EXPECT_NE(m.find_mapped(a + kDevicePage - 4, 4), nullptr);
  EXPECT_EQ(m.find_mapped(a + kDevicePage - 2, 4), nullptr);
  EXPECT_EQ(m.find_mapped(a + kDevicePage, 1), nullptr);
  EXPECT_EQ(m.allocation_below(a + 1), std::make_pair(a, std::uint64_t{1}));
}

TEST(PtxDeviceMemory, LargeAllocationsGetPagesOfTheirOwnAndFreeingUnmaps) {
  DeviceMemory m;
  const std::uint64_t small = m.allocate(64, 512);
  const std::uint64_t big = m.allocate(3 << 20, 512);  // 3 MiB: two pages of its own
  const std::uint64_t next = m.allocate(64, 512);      // back in the first page
  EXPECT_EQ(big % kDevicePage, 0u);
  // After the small page: one unmapped guard page, then the big mapping.
  EXPECT_EQ(big, small + 2 * kDevicePage);
  EXPECT_EQ(next, small + 512);
  EXPECT_NE(m.find_mapped(big + (4 << 20) - 1, 1), nullptr);  // the rounding to 4 MiB
  EXPECT_EQ(m.find_mapped(big + (4 << 20), 1), nullptr);
  m.free(big);
  EXPECT_EQ(m.find_mapped(big, 1), nullptr);
  m.free(small);
  EXPECT_NE(m.find_mapped(small, 1), nullptr);  // `next` still keeps the page mapped
  m.free(next);
  EXPECT_EQ(m.find_mapped(small, 1), nullptr);
  // Addresses are not reused: a stale pointer stays unmapped.
  EXPECT_GT(m.allocate(64, 512), big);
}

const char* kOffByOne =
    ".version 9.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry oob(.param .u64 p)\n{\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<4>;\n"
    "\tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd2, %r1, 4;\n"
    "\tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r1;\n\tret;\n}\n";

std::string run_off_by_one(DeviceMemory& memory, std::uint64_t buf) {
  std::ostringstream out;
  Executor exec(memory, out);
  LoadedModule loaded(Module::parse(kOffByOne, "k.ptx"), memory);
  LaunchConfig cfg;
  cfg.grid = {1, 1, 1};
  cfg.block = {20, 1, 1};  // 16 ints allocated; threads 16-19 write past the end
  cfg.params.resize(8);
  std::memcpy(cfg.params.data(), &buf, 8);
  try {
    exec.launch(loaded, "oob", cfg);
  } catch (const ExecutionError& e) {
    return e.what();
  }
  return "";
}

TEST(PtxDeviceMemory, PastTheEndInsideAMappedPageIsReportedOnceUnlessStrict) {
  DeviceMemory lenient;
  lenient.set_strict(false);
  const std::uint64_t buf = lenient.allocate(16 * 4, 512);
  EXPECT_EQ(run_off_by_one(lenient, buf), "");
  // Four threads wrote past the end at one PTX line (12): one report, the first thread's.
  const std::vector<std::string> reports = lenient.take_reports();
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_NE(reports[0].find("kernel oob, CTA (0,0,0), thread (16,0,0), PTX line 12"),
            std::string::npos)
      << reports[0];
  EXPECT_NE(reports[0].find("0 bytes past the end of the 64-byte allocation"), std::string::npos)
      << reports[0];
  // The values are in the page: thread t wrote t at buf + 4t.
  for (std::uint32_t t = 16; t < 20; ++t) {
    std::uint32_t v = 0;
    std::memcpy(&v, lenient.find_mapped(buf + 4 * t, 4), 4);
    EXPECT_EQ(v, t);
  }
  // A second launch reports nothing new: once per kernel and line.
  EXPECT_EQ(run_off_by_one(lenient, buf), "");
  EXPECT_TRUE(lenient.take_reports().empty());

  DeviceMemory strict;  // the engine's default
  const std::uint64_t sbuf = strict.allocate(16 * 4, 512);
  const std::string e = run_off_by_one(strict, sbuf);
  EXPECT_NE(e.find("thread (16,0,0)"), std::string::npos) << e;
  EXPECT_NE(e.find("outside any allocation"), std::string::npos) << e;
  EXPECT_TRUE(strict.take_reports().empty());
}

// Virtual memory management: a reservation is address space only; the caller
// maps its own bytes there, and an alias reaches the same bytes at a second
// address.
TEST(PtxDeviceMemory, ReservationsAreAddressSpaceUntilMapped) {
  DeviceMemory m;
  const std::uint64_t before = m.allocate(64, 512);
  const std::uint64_t r = m.reserve(4 * kDevicePage, kDevicePage);
  // After the first page and its unmapped guard page.
  EXPECT_EQ(r, before + 2 * kDevicePage);
  EXPECT_EQ(m.find_mapped(r, 1), nullptr);  // nothing mapped yet: a kernel access faults
  // Allocations skip the reservation and its guard page.
  EXPECT_EQ(m.allocate(3 << 20, 512), r + 5 * kDevicePage);

  std::vector<std::uint8_t> bytes(2 * kDevicePage, 0);
  m.map(r + kDevicePage, bytes.data(), bytes.size());
  bytes[10] = 42;
  ASSERT_NE(m.find(r + kDevicePage + 10, 1), nullptr);
  EXPECT_EQ(*m.find(r + kDevicePage + 10, 1), 42);
  EXPECT_EQ(m.find(r, 1), nullptr);  // the first page of the reservation is still unmapped
  EXPECT_THROW(m.map(r + 2 * kDevicePage, bytes.data(), kDevicePage), std::invalid_argument);
  m.free(r + kDevicePage);
  EXPECT_EQ(m.find_mapped(r + kDevicePage + 10, 1), nullptr);

  // A hint is honoured where nothing is: right after the reservation (growing it)...
  EXPECT_EQ(m.reserve(kDevicePage, kDevicePage, r + 4 * kDevicePage), r + 4 * kDevicePage);
  // ...but not over the reservation itself, nor misaligned.
  EXPECT_NE(m.reserve(kDevicePage, kDevicePage, r), r);
  const std::uint64_t odd = m.reserve(kDevicePage, 4 * kDevicePage, r + 64 * kDevicePage + 4096);
  EXPECT_EQ(odd % (4 * kDevicePage), 0u);
  m.unreserve(r);
  EXPECT_EQ(m.reserve(kDevicePage, kDevicePage, r), r);  // free again
}

TEST(PtxDeviceMemory, AnAliasSharesBytesAndOutlivesTheOriginal) {
  DeviceMemory m;
  const std::uint64_t a = m.allocate(1024, 512);
  const std::uint64_t b = m.alias(a + 256, 512);
  EXPECT_NE(b, a + 256);
  EXPECT_EQ(b % kDevicePage, 0u);
  const std::uint32_t v = 0xC0FFEE;
  m.write(b + 4, &v, 4);  // through the alias...
  std::uint32_t read = 0;
  m.read(a + 260, &read, 4);  // ...seen through the original
  EXPECT_EQ(read, v);
  EXPECT_EQ(m.find(b + 512, 1), nullptr);  // the alias ends where it was asked to
  EXPECT_THROW(m.alias(a + 1000, 100), std::invalid_argument);  // leaves the allocation
  m.free(a);
  // The original's pages are gone from its address, but the alias keeps the bytes.
  EXPECT_EQ(m.find_mapped(a, 1), nullptr);
  m.read(b + 4, &read, 4);
  EXPECT_EQ(read, v);
  m.free(b);
  EXPECT_EQ(m.find_mapped(b, 1), nullptr);
}

}  // namespace
}  // namespace cnuas::ptx::testing
