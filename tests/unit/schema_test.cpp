#include <gtest/gtest.h>

#include "basic/pipe.h"
#include "core/inputs/profile.h"
#include "test_files.h"

namespace cnuas {
using namespace testing_support;

static std::string error_of(const std::function<void()>& f) {
  return input_error_of(f);
}

TEST(Profile, LoadsFieldsAndBaseInheritance) {
  write_file("base.yaml", "type: cnuas.pipe\nbandwidth: 25 GB/s\nlatency: 100 ns\n");
  std::string child =
      write_file("child.yaml", "type: cnuas.pipe\nbase: base.yaml\nlatency: 250 ns\n");
  ProfileDoc doc = load_profile(child);
  ParamSet p = resolve_params(Pipe::schema(), doc.values, "t", {});
  EXPECT_EQ(p.quantity("bandwidth"), Rational(200'000'000'000ULL));  // from base
  EXPECT_EQ(p.time_ps("latency"), 250'000u);                         // child wins
  EXPECT_EQ(p.integer("lanes"), 1u);                                 // schema default
  EXPECT_EQ(p.get("lanes").where.file, "default");
}

TEST(Profile, UnknownKeyNamesFileLineColumnAndNearest) {
  std::string f = write_file("typo.yaml", "type: cnuas.pipe\nbandwidth: 25 GB/s\nlatncy: 3 ns\n");
  std::string e = error_of([&] { load_profile(f); });
  EXPECT_NE(e.find(f + ":3:1"), std::string::npos) << e;
  EXPECT_NE(e.find("'latncy'"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'latency'"), std::string::npos) << e;
  EXPECT_NE(e.find("bandwidth"), std::string::npos) << e;  // lists accepted keys
}

TEST(Profile, WrongUnitAndMissingRequiredAreErrors) {
  std::string f = write_file("unit.yaml", "type: cnuas.pipe\nbandwidth: 25 ns\n");
  std::string e = error_of([&] { load_profile(f); });
  EXPECT_NE(e.find(f + ":2:12"), std::string::npos) << e;
  EXPECT_NE(e.find("data rate"), std::string::npos) << e;

  std::string g = write_file("missing.yaml", "type: cnuas.pipe\nlatency: 5 ns\n");
  ProfileDoc doc = load_profile(g);
  e = error_of([&] {
    resolve_params(Pipe::schema(), doc.values, "pipe0", SourceLocation{g, 1, 1});
  });
  EXPECT_NE(e.find("required field 'bandwidth'"), std::string::npos) << e;
}

TEST(Profile, BaseCyclesAndTypeMismatchesAreRefused) {
  write_file("a.yaml", "type: cnuas.pipe\nbase: b.yaml\n");
  std::string b = write_file("b.yaml", "type: cnuas.pipe\nbase: a.yaml\n");
  EXPECT_NE(error_of([&] { load_profile(b); }).find("loops"), std::string::npos);
  write_file("c.yaml", "type: cnuas.compute\nrate: 1 TFLOP/s\n");
  std::string d = write_file("d.yaml", "type: cnuas.pipe\nbase: c.yaml\n");
  EXPECT_NE(error_of([&] { load_profile(d); }).find("is of type 'cnuas.compute'"),
            std::string::npos);
}

TEST(Profile, UnknownTypeSuggestsNearest) {
  std::string f = write_file("t.yaml", "type: cnuas.pipes\n");
  std::string e = error_of([&] { load_profile(f); });
  EXPECT_NE(e.find(f + ":1:7"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'cnuas.pipe'"), std::string::npos) << e;
}

TEST(Schema, RangesAndPositivity) {
  RawValues v{{"bandwidth", {"0 GB/s", {"x.yaml", 2, 3}}}};
  EXPECT_NE(error_of([&] { resolve_params(Pipe::schema(), v, "p", {}); }).find("greater than zero"),
            std::string::npos);
  RawValues w{{"bandwidth", {"1 GB/s", {}}}, {"lanes", {"0", {"x.yaml", 4, 8}}}};
  std::string e = error_of([&] { resolve_params(Pipe::schema(), w, "p", {}); });
  EXPECT_NE(e.find("x.yaml:4:8"), std::string::npos) << e;
  EXPECT_NE(e.find("out of range"), std::string::npos) << e;
}

// Power, time and energy fields have ceilings far above any real part, below
// what a run's integer microwatts and picoseconds can sum over a platform
// (1e13 W overflowed into garbage power series; 2^64 ns passed validate).
TEST(Schema, PowerTimeAndEnergyHaveCeilings) {
  auto error_with = [](const std::string& field, const std::string& value) {
    RawValues v{{"bandwidth", {"1 GB/s", {}}}, {field, {value, {"x.yaml", 5, 9}}}};
    return error_of([&] { resolve_params(Pipe::schema(), v, "p", {}); });
  };
  std::string e = error_with("active_power", "1e13 W");
  EXPECT_NE(e.find("x.yaml:5:9"), std::string::npos) << e;
  EXPECT_NE(e.find("at most 10 MW"), std::string::npos) << e;
  EXPECT_NE(error_with("idle_power", "10000001 W").find("at most 10 MW"), std::string::npos);
  EXPECT_EQ(error_with("idle_power", "10 MW"), "(no error)");
  e = error_with("latency", "18446744073709551616 ns");
  EXPECT_NE(e.find("at most 1 day (86400 s)"), std::string::npos) << e;
  EXPECT_EQ(error_with("latency", "86400 s"), "(no error)");
}

TEST(Schema, DescriptionListsEveryField) {
  std::string text = Pipe::schema().describe_text();
  for (const auto& f : Pipe::schema().fields()) EXPECT_NE(text.find(f.name), std::string::npos);
  EXPECT_NE(text.find("bytes"), std::string::npos);  // the needed work dimension
}

// A profile kind with sections: dotted field names read from nested maps.
static const Schema& nested_schema() {
  static const Schema s =
      Schema("test.nested", "nested profile", ProfileKind{})
          .integer("top", std::nullopt, "a top-level field", 1, 10)
          .quantity("sec.delay", Dimension::Time, std::nullopt, "a field in a section")
          .integer("sec.inner.count", 4, "two levels down", 0, 8)
          .boolean("sec.inner.on", false, "another field two levels down");
  return s;
}

static RawValues read_nested(const std::string& text) {
  YamlSource src = load_yaml_text(text, "n.yaml");
  RawValues raw;
  read_field_values(src.root, src.file, nested_schema(), {"description"}, "test profile", raw);
  return raw;
}

TEST(Schema, AProfileKindHasOnlyItsOwnFields) {
  EXPECT_EQ(nested_schema().field_names(),
            (std::vector<std::string>{"top", "sec.delay", "sec.inner.count", "sec.inner.on"}));
  EXPECT_EQ(nested_schema().find("idle_power"), nullptr);
  EXPECT_NE(Pipe::schema().find("idle_power"), nullptr);  // elements keep the shared fields
  EXPECT_EQ(nested_schema().keys_under(""), (std::vector<std::string>{"top", "sec"}));
  EXPECT_EQ(nested_schema().keys_under("sec."), (std::vector<std::string>{"delay", "inner"}));
  EXPECT_TRUE(nested_schema().has_section("sec.inner."));
  EXPECT_FALSE(nested_schema().has_section("top."));
}

TEST(Profile, NestedMapsBecomeDottedFieldsWithTheirLocations) {
  // Line 4 `  delay: 5 ns` puts the value at column 10; line 5's flow map puts
  // `2` at column 18.
  RawValues raw = read_nested("description: x\ntop: 3\nsec:\n  delay: 5 ns\n  inner: {count: 2}\n");
  ASSERT_EQ(raw.size(), 3u);  // description is reserved, not a field
  EXPECT_EQ(raw.at("sec.delay").text, "5 ns");
  EXPECT_EQ(raw.at("sec.delay").where.str(), "n.yaml:4:10");
  EXPECT_EQ(raw.at("sec.inner.count").text, "2");
  EXPECT_EQ(raw.at("sec.inner.count").where.str(), "n.yaml:5:18");
  ParamSet p = resolve_params(nested_schema(), raw, "t", {});
  EXPECT_EQ(p.integer("top"), 3u);
  EXPECT_EQ(p.time_ps("sec.delay"), 5000u);
  EXPECT_EQ(p.integer("sec.inner.count"), 2u);
  EXPECT_FALSE(p.boolean("sec.inner.on"));  // default
}

TEST(Profile, UnknownNestedKeysNameTheirSectionAndItsKeys) {
  EXPECT_EQ(error_of([] { read_nested("top: 1\nsec:\n  inner:\n    cuont: 2\n"); }),
            "n.yaml:4:5: unknown key 'cuont' in section 'sec.inner' of test profile (type "
            "test.nested) (did you mean 'count'?); accepted keys: count, on");
  EXPECT_EQ(error_of([] { read_nested("top: 1\nsce: {delay: 1 ns}\n"); }),
            "n.yaml:2:1: unknown key 'sce' in test profile (type test.nested) (did you mean "
            "'sec'?); accepted keys: description, top, sec");
  // A dotted name is not a key: sections are written as maps.
  EXPECT_EQ(error_of([] {
              read_nested("sec.delay: 1 ns\n");
            }).rfind("n.yaml:1:1: unknown key 'sec.delay'", 0),
            0u);
  EXPECT_EQ(
      error_of([] { read_nested("sec: 5\n"); }),
      "n.yaml:1:6: section 'sec' of test profile (type test.nested) must be a mapping of keys "
      "to values");
  EXPECT_EQ(error_of([] { read_nested("top: {a: 1}\n"); }),
            "n.yaml:1:6: field 'top' must be a single value (a scalar)");
  // Values are checked by the schema, at the value's location.
  RawValues raw = read_nested("top: 1\nsec:\n  delay: 5\n");
  EXPECT_EQ(error_of([&] { resolve_params(nested_schema(), raw, "t", {}); }),
            "n.yaml:3:10: t: field 'sec.delay': '5' has no unit; a time needs one of: ps, ns, us, "
            "ms, s");
}

TEST(Schema, IntegerErrorsNameTheRange) {
  RawValues v{{"top", {"-1", {"x.yaml", 1, 6}}}, {"sec.delay", {"1 ns", {}}}};
  EXPECT_EQ(error_of([&] { resolve_params(nested_schema(), v, "t", {}); }),
            "x.yaml:1:6: t: field 'top': negative value '-1' is not allowed; expected integer "
            "1..10");
}

TEST(Schema, DescriptionAlignsLongDottedNames) {
  // The longest name, sec.inner.count (15) is under the usual 18 columns;
  // a 20-character name widens the column for every field.
  Schema s("test.wide", "w", ProfileKind{});
  s.integer("a", 1, "short").integer("section.sub.field_20", 2, "long");
  const std::string text = s.describe_text();
  EXPECT_NE(text.find("    a                    integer >= 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    section.sub.field_20 integer >= 0\n"), std::string::npos) << text;
}

}  // namespace cnuas
