#include <gtest/gtest.h>

#include "core/inputs/platform.h"
#include "core/inputs/yaml_source.h"
#include "test_files.h"

namespace cnuas {
using namespace testing_support;

static PlatformDesc load(const std::string& text, const std::string& name = "p.yaml") {
  return load_platform(load_yaml_file(write_file(name, text)));
}

static std::string error_of(const std::string& text) {
  return input_error_of([&] { load(text, "bad.yaml"); });
}

TEST(Platform, ReplicationAndWildcardConnections) {
  PlatformDesc p = load(
      "platform: t\n"
      "elements:\n"
      "  - {name: sw, type: cnuas.fixed_delay, set: {delay: 100 ns}}\n"
      "  - {name: gpu, type: cnuas.compute, count: 3, set: {rate: 1 TFLOP/s}}\n"
      "connections:\n"
      "  - gpu[*] <-> sw\n");
  ASSERT_EQ(p.elements.size(), 4u);
  EXPECT_EQ(p.elements[3].name, "gpu[2]");
  ASSERT_EQ(p.connections.size(), 6u);
  EXPECT_EQ(p.connections[0].from, "gpu[0]");
  EXPECT_EQ(p.connections[1].from, "sw");
  EXPECT_EQ(p.connections[1].to, "gpu[0]");
}

TEST(Platform, IncludesAreRefinedByLaterEntries) {
  write_file(
      "common.yaml",
      "elements:\n  - {name: link, type: cnuas.pipe, set: {bandwidth: 10 GB/s, latency: 5 ns}}\n");
  PlatformDesc p = load(
      "platform: t\ninclude: [common.yaml]\n"
      "elements:\n  - {name: link, type: cnuas.pipe, set: {latency: 7 ns}}\n");
  ASSERT_EQ(p.elements.size(), 1u);
  EXPECT_EQ(p.elements[0].values.at("bandwidth").text, "10 GB/s");
  EXPECT_EQ(p.elements[0].values.at("latency").text, "7 ns");
}

TEST(Platform, ProfilesAreReferencedRelativeToThePlatform) {
  write_file("profiles/link.yaml", "type: cnuas.pipe\nbandwidth: 50 GB/s\n");
  PlatformDesc p =
      load("platform: t\nelements:\n  - {name: l, profile: profiles/link.yaml, set: {lanes: 2}}\n");
  EXPECT_EQ(p.elements[0].type, "cnuas.pipe");
  EXPECT_EQ(p.elements[0].values.at("lanes").text, "2");
}

TEST(Platform, ErrorsCarryLocations) {
  std::string e = error_of("platform: t\nelements:\n  - {name: a, type: cnuas.pipe, sett: {}}\n");
  EXPECT_NE(e.find("bad.yaml:3:"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'set'"), std::string::npos) << e;

  e = error_of(
      "platform: t\nelements:\n  - {name: a, type: cnuas.fixed_delay, set: {delay: 1 ns}}\n"
      "connections:\n  - a -> b\n");
  EXPECT_NE(e.find("bad.yaml:5:5"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown element 'b'"), std::string::npos) << e;

  e = error_of(
      "platform: t\nelements:\n  - {name: a, type: cnuas.pipe, set: {bandwith: 1 GB/s}}\n");
  EXPECT_NE(e.find("did you mean 'bandwidth'"), std::string::npos) << e;

  e = error_of("platform: t\nelements: [\n");
  EXPECT_NE(e.find("YAML syntax error"), std::string::npos) << e;
}

TEST(Platform, PlatformsNestWithCountAndOverrides) {
  write_file("node.yaml",
             "platform: node\n"
             "elements:\n"
             "  - {name: gpu, type: cnuas.compute, count: 2, set: {rate: 1 TFLOP/s}}\n"
             "  - {name: nic, type: cnuas.pipe, set: {bandwidth: 50 GB/s}}\n"
             "connections:\n  - gpu[*] -> nic\n");
  PlatformDesc p = load(
      "platform: rack\n"
      "elements:\n"
      "  - {name: server, count: 2, platform: node.yaml, set: {\"gpu[*].lanes\": 4, \"*.rack\": "
      "r7}}\n"
      "  - {name: tor, type: cnuas.fixed_delay, set: {delay: 100 ns}}\n"
      "connections:\n  - server[*].nic -> tor\n");
  ASSERT_EQ(p.elements.size(), 7u);
  EXPECT_EQ(p.elements[0].name, "server[0].gpu[0]");
  EXPECT_EQ(p.elements[5].name, "server[1].nic");
  EXPECT_EQ(p.elements[4].values.at("lanes").text, "4");  // server[1].gpu[1]
  EXPECT_EQ(p.elements[2].values.count("lanes"), 0u);     // the nic is not a gpu
  EXPECT_EQ(p.elements[2].values.at("rack").text, "r7");
  ASSERT_EQ(p.connections.size(), 6u);
  EXPECT_EQ(p.connections[2].from, "server[1].gpu[0]");
  EXPECT_EQ(p.connections[2].to, "server[1].nic");
  EXPECT_EQ(p.connections[5].from, "server[1].nic");
  EXPECT_EQ(p.connections[5].to, "tor");
}

// Platforms that place each other (a -> b -> a) are refused with the chain,
// not followed until the stack overflows (a fuzzing find); so is one that
// places itself.
TEST(Platform, PlatformsPlacingEachOtherAreRefused) {
  write_file("ring_b.yaml", "platform: b\nelements:\n  - {name: inner, platform: ring_a.yaml}\n");
  write_file("ring_a.yaml", "platform: a\nelements:\n  - {name: inner, platform: ring_b.yaml}\n");
  const std::string cycle =
      input_error_of([] { load_platform(load_yaml_file(scratch_dir() + "/ring_a.yaml")); });
  EXPECT_NE(cycle.find("ring_b.yaml:3:5"), std::string::npos) << cycle;
  EXPECT_NE(cycle.find("ring_a.yaml' contains itself through "), std::string::npos) << cycle;
  EXPECT_NE(cycle.find("ring_a.yaml -> "), std::string::npos) << cycle;
  const std::string self = input_error_of(
      [] { load("platform: s\nelements:\n  - {name: me, platform: self.yaml}\n", "self.yaml"); });
  EXPECT_NE(self.find("self.yaml' contains itself"), std::string::npos) << self;
  EXPECT_EQ(self.find("through"), std::string::npos) << self;
}

TEST(Platform, CommandLineOverrides) {
  PlatformDesc p = load(
      "platform: t\nelements:\n  - {name: g, type: cnuas.compute, count: 2, set: {rate: 1 "
      "TFLOP/s}}\n");
  apply_override(p, "g[*].lanes=4");
  apply_override(p, "g[1].rate=2 TFLOP/s");
  EXPECT_EQ(p.elements[0].values.at("lanes").text, "4");
  EXPECT_EQ(p.elements[1].values.at("rate").text, "2 TFLOP/s");
  EXPECT_THROW(apply_override(p, "g[0].lane=4"), InputError);
  EXPECT_THROW(apply_override(p, "h.lanes=4"), InputError);
  EXPECT_THROW(apply_override(p, "nonsense"), InputError);
}

}  // namespace cnuas

namespace cnuas {
using namespace testing_support;

// Every YAML input: a key given twice is an error at the second (yaml-cpp
// silently kept the first), bytes that are not UTF-8 are an error at their
// line and column (names reach the JSON outputs), and a message quoting a
// huge value is cut to a readable size.
TEST(YamlSource, DuplicateKeysInvalidUtf8AndHugeValuesAreRefusedReadably) {
  std::string e = input_error_of([] {
    load_yaml_text("platform: d\nelements:\n  - {name: a, set: {x: 1, y: 2, x: 3}}\n", "dup.yaml");
  });
  EXPECT_NE(e.find("dup.yaml:3:33: key 'x' is given twice (first at line 3)"), std::string::npos)
      << e;
  e = input_error_of([] { load_yaml_text("a: 1\nb: 2\na: 3\n", "top.yaml"); });
  EXPECT_NE(e.find("top.yaml:3:1: key 'a' is given twice (first at line 1)"), std::string::npos)
      << e;
  e = input_error_of([] { load_yaml_text("platform: ok\nname: caf\xC3\xA9-\xFF\n", "u.yaml"); });
  EXPECT_NE(e.find("u.yaml:2:12: byte 0xff is not UTF-8"), std::string::npos) << e;
  e = input_error_of([] { load_yaml_text("a: \xC0\xAF\n", "overlong.yaml"); });  // overlong '/'
  EXPECT_NE(e.find("overlong.yaml:1:4: byte 0xc0"), std::string::npos) << e;
  EXPECT_EQ(input_error_of([] { load_yaml_text("name: caf\xC3\xA9 \xE2\x82\xAC\n", "ok.yaml"); }),
            "(no error)");
  const std::string huge(10 << 20, 'z');
  e = input_error_of([&] {
    throw InputError(SourceLocation{"h.yaml", 1, 1}, "bad '" + huge + "'");
  });
  EXPECT_LT(e.size(), 4200u);
  EXPECT_NE(e.find("more bytes of the message left out"), std::string::npos);
}

}  // namespace cnuas
