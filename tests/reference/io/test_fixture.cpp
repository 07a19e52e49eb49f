// Tests of reference/io/fixture: the fixture schema on top of safetensors (metadata, tensor naming, U8
// re-typing of FNUZ/E8M0 tensors, attribute validation), using the test-only op of io_test_op.hpp.
#include <gtest/gtest.h>

#include <cmath>

#include "reference/io/fixture.hpp"
#include "tests/reference/io/io_test_op.hpp"
#include "tests/support/seed.hpp"

namespace dsv4::io {
namespace {

class FixtureTest : public ::testing::Test {
 protected:
  void SetUp() override { test::register_io_test_op(); }

  // A valid raw file: metadata and tensors as a PyTorch user would write them.
  static std::map<std::string, std::string> metadata(const std::string& attrs = R"({"alpha": 2.0})") {
    return {{"schema", kFixtureSchema}, {"op", "io_test_op"}, {"attrs", attrs}, {"seed", "42"}, {"source", "unit test"}};
  }
  static std::vector<std::pair<std::string, Tensor>> tensors() {
    return {{"x", Tensor::from_f64(DType::F32, {2, 3}, {1, -2, 3, 0.5, 0.25, -8})},
            {"idx", Tensor::from_f64(DType::I32, {2}, {7, 9})},
            {"out.y", Tensor::from_f64(DType::F32, {2, 3}, {9, 3, 13, 10, 9.5, -7})}};
  }
  static Fixture parse(const std::map<std::string, std::string>& md, const std::vector<std::pair<std::string, Tensor>>& t) {
    return parse_fixture(parse_safetensors(serialize_safetensors(md, t), "f.safetensors"));
  }
  static void expect_invalid(const std::map<std::string, std::string>& md,
                             const std::vector<std::pair<std::string, Tensor>>& t,
                             std::initializer_list<std::string> fragments) {
    try {
      parse(md, t);
      FAIL() << "accepted an invalid fixture; expected '" << *fragments.begin() << "'";
    } catch (const FixtureError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("f.safetensors"), std::string::npos) << msg;
      for (auto& f : fragments) EXPECT_NE(msg.find(f), std::string::npos) << "missing '" << f << "' in: " << msg;
    }
  }
};

TEST_F(FixtureTest, ReadsMetadataInputsAndOutputs) {
  Fixture f = parse(metadata(), tensors());
  EXPECT_EQ(f.op, "io_test_op");
  EXPECT_EQ(f.attrs, (Json{{"alpha", 2.0}}));
  ASSERT_TRUE(f.seed.has_value());
  EXPECT_EQ(*f.seed, 42u);
  EXPECT_EQ(f.source, "unit test");
  EXPECT_EQ(f.inputs.size(), 2u);
  EXPECT_EQ(f.inputs.at("idx").get({1}), 9);
  ASSERT_EQ(f.outputs.count("y"), 1u);
  EXPECT_EQ(f.outputs.at("y").get({1, 2}), -7);
  EXPECT_TRUE(f.expected.empty());
}

TEST_F(FixtureTest, AttrsMayBeLeftOut) {
  auto md = metadata();
  md.erase("attrs");
  Fixture f = parse(md, tensors());
  EXPECT_TRUE(f.attrs.empty());
}

TEST_F(FixtureTest, RoundTripWithFnuzAndE8m0StoredAsU8) {
  auto rng = test::rng_for_current_test();
  Fixture f;
  f.op = "io_test_op";
  f.attrs = {{"alpha", 0.5}, {"mode", "minus"}, {"fp8_dtype", "e4m3fnuz"}};
  f.seed = 123;
  f.source = "round trip";
  f.note = "n";
  Tensor x = Tensor::empty(DType::F8_E4M3FNUZ, {2, 4});
  for (std::int64_t i = 0; i < x.numel(); ++i) x.set_code_linear(i, rng() & 0x7F);  // no 0x80 (NaN)
  Tensor s = Tensor::from_codes(DType::F8_E8M0, {2}, {0x00, 0xFF});
  Tensor z = Tensor::from_codes(DType::F8_E5M2FNUZ, {2}, {0x11, 0x22});
  f.inputs = {{"x", x}, {"idx", Tensor::from_f64(DType::I32, {2}, {3, 4})}, {"s", s}, {"z", z}};
  f.outputs = {{"q", Tensor::from_codes(DType::F8_E4M3FNUZ, {2}, {3, 4})}};
  f.expected = {{"q", Tensor::from_codes(DType::F8_E4M3FNUZ, {2}, {3, 4})}};
  auto bytes = serialize_fixture(f);
  SafetensorsFile raw = parse_safetensors(bytes, "rt");
  EXPECT_EQ(raw.find("x")->dtype_name, "U8");
  EXPECT_EQ(raw.find("s")->dtype_name, "U8");
  Json attrs = Json::parse(raw.metadata.at("attrs"));
  EXPECT_EQ(attrs["dtypes"]["x"], "F8_E4M3FNUZ");
  EXPECT_EQ(attrs["dtypes"]["z"], "F8_E5M2FNUZ");
  EXPECT_EQ(attrs["dtypes"]["out.q"], "F8_E4M3FNUZ");
  Fixture g = parse_fixture(raw);
  EXPECT_EQ(g.attrs, f.attrs) << "the fixture-level 'dtypes' key is not an op attribute";
  EXPECT_EQ(g.seed, f.seed);
  EXPECT_EQ(g.note, "n");
  for (auto& [n, t] : f.inputs) {
    EXPECT_EQ(g.inputs.at(n).dtype(), t.dtype()) << n;
    EXPECT_EQ(g.inputs.at(n).to_codes(), t.to_codes()) << n;
  }
  EXPECT_EQ(g.inputs.at("s").get({0}), std::ldexp(1.0, -127)) << "E8M0 byte 0x00 decodes to 2^-127";
  EXPECT_TRUE(std::isnan(g.inputs.at("s").get({1}))) << "E8M0 byte 0xFF decodes to NaN";
  EXPECT_EQ(g.outputs.at("q").dtype(), DType::F8_E4M3FNUZ);
  EXPECT_EQ(g.expected.at("q").to_codes(), (std::vector<std::uint64_t>{3, 4}));
}

TEST_F(FixtureTest, U8RetypingRules) {
  // Rule 2: 's' admits only F8_E8M0. Rule 3: 'x' and 'out.q' follow fp8_dtype.
  auto t = tensors();
  t.emplace_back("s", Tensor::from_f64(DType::U8, {2}, {127, 128}));
  t[0] = {"x", Tensor::from_f64(DType::U8, {2, 3}, {0x38, 0, 0, 0, 0, 0})};
  t.emplace_back("out.q", Tensor::from_f64(DType::U8, {2}, {7, 9}));
  Fixture fn = parse(metadata(R"({"fp8_dtype": "e4m3fn"})"), t);
  EXPECT_EQ(fn.inputs.at("s").dtype(), DType::F8_E8M0);
  EXPECT_EQ(fn.inputs.at("s").get({1}), 2.0);
  EXPECT_EQ(fn.inputs.at("x").dtype(), DType::F8_E4M3FN);
  EXPECT_EQ(fn.inputs.at("x").get({0, 0}), 1.0);  // 0x38 in e4m3fn
  EXPECT_EQ(fn.outputs.at("q").dtype(), DType::F8_E4M3FN);
  Fixture fz = parse(metadata(R"({"fp8_dtype": "e4m3fnuz"})"), t);
  EXPECT_EQ(fz.inputs.at("x").dtype(), DType::F8_E4M3FNUZ);
  EXPECT_EQ(fz.inputs.at("x").get({0, 0}), 0.5);  // the same byte is worth half in e4m3fnuz
  // Rule 1 overrides rule 3.
  Fixture fd = parse(metadata(R"({"fp8_dtype": "e4m3fn", "dtypes": {"x": "F8_E4M3FNUZ"}})"), t);
  EXPECT_EQ(fd.inputs.at("x").dtype(), DType::F8_E4M3FNUZ);
  EXPECT_EQ(fd.inputs.at("s").dtype(), DType::F8_E8M0);
}

TEST_F(FixtureTest, AmbiguousU8TensorIsAnErrorNamingIt) {
  auto t = tensors();
  t.emplace_back("z", Tensor::from_f64(DType::U8, {2}, {1, 2}));
  expect_invalid(metadata(), t, {"tensor 'z'", "U8", "dtypes"});
  expect_invalid(metadata(R"({"dtypes": {"x": "F8_E4M3FNUZ"}})"), tensors(), {"tensor 'x'", "stored as F32"});
  expect_invalid(metadata(R"({"dtypes": {"nope": "F8_E4M3FNUZ"}})"), tensors(), {"'nope'", "not in the file"});
  expect_invalid(metadata(R"({"dtypes": {"x": "F32"}})"), tensors(), {"'x'", "one-byte"});
}

TEST_F(FixtureTest, SchemaAndOpErrors) {
  auto md = metadata();
  md.erase("schema");
  expect_invalid(md, tensors(), {"'schema'", "missing"});
  md = metadata();
  md["schema"] = "dsv4check-fixture/2";
  expect_invalid(md, tensors(), {"'schema'", "dsv4check-fixture/2"});
  md = metadata();
  md.erase("op");
  expect_invalid(md, tensors(), {"'op'", "missing"});
  md = metadata();
  md["op"] = "no_such_op";
  expect_invalid(md, tensors(), {"unknown op 'no_such_op'", "io_test_op"});
  md = metadata();
  md["atrs"] = "{}";
  expect_invalid(md, tensors(), {"unknown metadata key 'atrs'"});
  md = metadata();
  md["seed"] = "12x";
  expect_invalid(md, tensors(), {"'seed'", "12x"});
}

TEST_F(FixtureTest, AttrsErrorsNameTheKey) {
  expect_invalid(metadata("{alpha: 2}"), tensors(), {"'attrs'", "not valid JSON"});
  expect_invalid(metadata("[1]"), tensors(), {"'attrs'", "JSON object"});
  expect_invalid(metadata(R"({"alpha": "big"})"), tensors(), {"'alpha'", "number"});
  expect_invalid(metadata(R"({"count": 2.5})"), tensors(), {"'count'", "integer"});
  expect_invalid(metadata(R"({"mode": "times"})"), tensors(), {"'mode'", "plus, minus"});
  expect_invalid(metadata(R"({"beta": 1})"), tensors(), {"unknown attribute 'beta'"});
}

TEST_F(FixtureTest, TensorErrorsNameTheTensor) {
  auto t = tensors();
  t.erase(t.begin() + 1);  // idx
  expect_invalid(metadata(), t, {"required input tensor 'idx'", "missing"});
  t = tensors();
  t.emplace_back("w", Tensor::from_f64(DType::F32, {1}, {1}));
  expect_invalid(metadata(), t, {"tensor 'w'", "x, idx, s, z"});
  t = tensors();
  t.emplace_back("out.lse", Tensor::from_f64(DType::F32, {1}, {1}));
  expect_invalid(metadata(), t, {"tensor 'out.lse'", "no output 'lse'", "y, q"});
  t = tensors();
  t[1] = {"idx", Tensor::from_f64(DType::I64, {2}, {7, 9})};
  expect_invalid(metadata(), t, {"'idx'", "I64", "I32"});
  t = tensors();
  t[2] = {"out.y", Tensor::from_f64(DType::F64, {2, 3}, {1, 2, 3, 4, 5, 6})};
  expect_invalid(metadata(), t, {"tensor 'out.y'", "F64"});
}

}  // namespace
}  // namespace dsv4::io
