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

TEST(Schema, DescriptionListsEveryField) {
  std::string text = Pipe::schema().describe_text();
  for (const auto& f : Pipe::schema().fields()) EXPECT_NE(text.find(f.name), std::string::npos);
  EXPECT_NE(text.find("bytes"), std::string::npos);  // the needed work dimension
}

}  // namespace cnuas
