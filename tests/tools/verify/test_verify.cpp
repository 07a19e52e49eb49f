// Tests of dsv4check verify's logic (tools/dsv4check/fixture_verify): exit codes 0/1/2, localisation of a
// planted wrong element, goldens, policy overrides. Uses the test-only op of tests/reference/io/io_test_op.hpp,
// whose expected outputs here are derived by hand: y = alpha*x + idx, q codes = idx & 0x3F.
#include <gtest/gtest.h>

#include <sstream>

#include <unistd.h>

#include "reference/io/fixture.hpp"
#include "tests/reference/io/io_test_op.hpp"
#include "tests/support/seed.hpp"
#include "tools/dsv4check/fixture_verify.hpp"

namespace dsv4::cli {
namespace {

std::filesystem::path temp_file(const std::string& stem) {
  auto dir = std::filesystem::temp_directory_path() / ("dsv4_verify_" + std::to_string(test::base_seed()) + "_" +
                                                       std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir / (stem + ".safetensors");
}

// x = [[1,-2,3],[0.5,0.25,-8]], idx = [7,9], alpha = 2  =>  y = [[9,3,13],[10,9.5,-7]], q = [7,9].
io::Fixture good_fixture() {
  test::register_io_test_op();
  io::Fixture f;
  f.op = "io_test_op";
  f.attrs = {{"alpha", 2.0}};
  f.inputs = {{"x", Tensor::from_f64(DType::F32, {2, 3}, {1, -2, 3, 0.5, 0.25, -8})},
              {"idx", Tensor::from_f64(DType::I32, {2}, {7, 9})}};
  f.outputs = {{"y", Tensor::from_f64(DType::F32, {2, 3}, {9, 3, 13, 10, 9.5, -7})},
               {"q", Tensor::from_codes(DType::F8_E4M3FN, {2}, {7, 9})}};
  return f;
}

int verify(const io::Fixture& f, const std::string& stem, std::string* text = nullptr, const VerifyOptions& o = {}) {
  auto p = temp_file(stem);
  io::write_fixture(p, f);
  std::ostringstream out;
  int rc = verify_file(p, o, out);
  if (text) *text = out.str();
  return rc;
}

TEST(Verify, CorrectOutputsPass) {
  std::string text;
  EXPECT_EQ(verify(good_fixture(), "good", &text), 0) << text;
  EXPECT_EQ(text.rfind("PASS ", 0), 0u) << text;
  FixtureVerdict v = judge_fixture(good_fixture());
  EXPECT_TRUE(v.pass());
  ASSERT_EQ(v.outputs.outputs.size(), 2u);
  EXPECT_EQ(v.outputs.outputs[0].checked, 6);
}

TEST(Verify, PlantedWrongElementFailsWithItsLocation) {
  io::Fixture f = good_fixture();
  f.outputs["y"].set({1, 2}, -7.5);
  std::string text;
  EXPECT_EQ(verify(f, "planted", &text), 1) << text;
  EXPECT_EQ(text.rfind("FAIL ", 0), 0u) << text;
  FixtureVerdict v = judge_fixture(f);
  EXPECT_FALSE(v.pass());
  const oracle::Verdict& y = v.outputs.outputs.at(0);
  EXPECT_EQ(y.output, "y");
  EXPECT_FALSE(y.pass);
  EXPECT_EQ(y.failed, 1);
  ASSERT_FALSE(y.worst.empty());
  EXPECT_EQ(y.worst[0].index, (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(y.worst[0].actual, -7.5);
  EXPECT_EQ(y.worst[0].expected, -7.0);
  EXPECT_EQ(y.where.rows, (std::vector<std::int64_t>{1}));
  EXPECT_TRUE(v.outputs.outputs.at(1).pass) << "q was not touched";
}

TEST(Verify, PlantedNanAndWrongCodeFail) {
  io::Fixture f = good_fixture();
  f.outputs["y"].set({0, 0}, std::nan(""));
  EXPECT_EQ(verify(f, "nan"), 1);
  io::Fixture g = good_fixture();
  g.outputs["q"].set_code({1}, 10);
  EXPECT_EQ(verify(g, "code"), 1);
}

TEST(Verify, GoldensAreCheckedAgainstTheReference) {
  io::Fixture f = good_fixture();
  f.expected = {{"y", Tensor::from_f64(DType::F32, {2, 3}, {9, 3, 13, 10, 9.5, -7})}};
  EXPECT_EQ(verify(f, "golden_ok"), 0);
  f.expected["y"].set({0, 1}, 4);
  std::string text;
  EXPECT_EQ(verify(f, "golden_bad", &text), 1) << text;
  EXPECT_NE(text.find("goldens"), std::string::npos) << text;
}

TEST(Verify, PolicyOverrideApplies) {
  io::Fixture f = good_fixture();
  f.outputs["y"].set({1, 2}, -7.5);
  VerifyOptions loose;
  loose.overrides["*"] = OracleSpec{"allclose", {{"atol", 1.0}, {"rtol", 0.0}}, "test"};
  EXPECT_EQ(verify(f, "override", nullptr, loose), 0);
}

TEST(Verify, UnjudgeableFixturesAreInvalid) {
  io::Fixture none = good_fixture();
  none.outputs.clear();
  std::string text;
  EXPECT_EQ(verify(none, "no_outputs", &text), 2);
  EXPECT_NE(text.find("INVALID"), std::string::npos);
  EXPECT_NE(text.find("out.y"), std::string::npos) << text;

  io::Fixture shape = good_fixture();
  shape.outputs["y"] = Tensor::from_f64(DType::F32, {3, 2}, {9, 3, 13, 10, 9.5, -7});
  EXPECT_EQ(verify(shape, "bad_shape", &text), 2);
  EXPECT_NE(text.find("out.y"), std::string::npos) << text;

  io::Fixture rejected = good_fixture();
  rejected.inputs["idx"] = Tensor::from_f64(DType::I32, {3}, {1, 2, 3});
  EXPECT_EQ(verify(rejected, "rejected", &text), 2);
  EXPECT_NE(text.find("reference rejects"), std::string::npos) << text;
}

TEST(Verify, BadFilesAreInvalidNotCrashes) {
  std::ostringstream out;
  EXPECT_EQ(verify_file(temp_file("does_not_exist"), {}, out), 2);
  auto p = temp_file("truncated");
  io::write_file_bytes(p, std::vector<std::byte>(5, std::byte{0x20}));
  EXPECT_EQ(verify_file(p, {}, out), 2);
  EXPECT_NE(out.str().find("truncated"), std::string::npos) << out.str();
}

TEST(Verify, SeveralFilesGiveTheWorstCode) {
  auto good = temp_file("multi_good"), bad = temp_file("multi_bad"), broken = temp_file("multi_broken");
  io::write_fixture(good, good_fixture());
  io::Fixture f = good_fixture();
  f.outputs["y"].set({0, 1}, 100);
  io::write_fixture(bad, f);
  io::write_file_bytes(broken, std::vector<std::byte>(3));
  std::ostringstream out;
  EXPECT_EQ(verify_files({good.string()}, {}, out), 0);
  EXPECT_EQ(verify_files({good.string(), bad.string()}, {}, out), 1);
  EXPECT_EQ(verify_files({broken.string(), good.string(), bad.string()}, {}, out), 2);
  EXPECT_NE(out.str().find("3 files: 1 pass, 1 fail, 1 invalid"), std::string::npos) << out.str();
}

TEST(Verify, JsonOutputIsOneObjectPerFile) {
  auto p = temp_file("json");
  io::write_fixture(p, good_fixture());
  VerifyOptions o;
  o.json = true;
  std::ostringstream out;
  EXPECT_EQ(verify_file(p, o, out), 0);
  Json j = Json::parse(out.str());
  EXPECT_EQ(j["verdict"], "PASS");
  EXPECT_EQ(j["op"], "io_test_op");
}

}  // namespace
}  // namespace dsv4::cli
