// Tests of dsv4check repro's logic (tools/dsv4check/repro_run, kernel_runner, shape_arg) with the test-only
// op of tests/reference/io/io_test_op.hpp: the reference backend passes, a saved fixture verifies, a missing
// kernel is a clear usage error, and --shape values parse to the right JSON types.
#include <gtest/gtest.h>

#include <sstream>

#include <unistd.h>

#include "kernels/kernel_registry.hpp"
#include "reference/io/fixture.hpp"
#include "tests/reference/io/io_test_op.hpp"
#include "tools/dsv4check/usage_error.hpp"
#include "tools/dsv4check/fixture_verify.hpp"
#include "tools/dsv4check/kernel_runner.hpp"
#include "tools/dsv4check/repro_run.hpp"
#include "tools/dsv4check/shape_arg.hpp"

namespace dsv4::cli {
namespace {

ReproOptions options() {
  test::register_io_test_op();
  ReproOptions o;
  o.op = "io_test_op";
  o.shape = {{"R", 3}, {"C", 5}};
  o.seed = 7;
  return o;
}

std::filesystem::path temp_path(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("dsv4_repro_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir / name;
}

TEST(Repro, ReferenceBackendPassesAndPrintsTheCase) {
  std::ostringstream out;
  EXPECT_EQ(run_repro(options(), out), 0) << out.str();
  const std::string s = out.str();
  EXPECT_NE(s.find("repro: dsv4check repro --op io_test_op --shape C=5,R=3 --backend reference --seed 7"), std::string::npos) << s;
  EXPECT_NE(s.find("x=F32[3, 5]"), std::string::npos) << s;
  EXPECT_NE(s.find("plan: (none"), std::string::npos) << s;
  EXPECT_NE(s.find("PASS io_test_op"), std::string::npos) << s;
}

TEST(Repro, SavedFixtureHoldsTheCaseAndVerifies) {
  ReproOptions o = options();
  o.save = temp_path("saved.safetensors").string();
  o.note = "regression";
  std::ostringstream out;
  ASSERT_EQ(run_repro(o, out), 0) << out.str();
  io::Fixture f = io::read_fixture(o.save);
  EXPECT_EQ(f.op, "io_test_op");
  EXPECT_EQ(f.seed, std::optional<std::uint64_t>(7));
  EXPECT_EQ(f.note, "regression");
  EXPECT_EQ(f.source, repro_command(o));
  EXPECT_EQ(f.attrs["alpha"], 1.5) << "the generator's attribute is saved";
  ASSERT_EQ(f.inputs.at("x").shape(), (Shape{3, 5}));
  // The same seed regenerates the same inputs.
  std::mt19937_64 rng(7);
  OpCase again = Registry::instance().get("io_test_op").generate(rng, o.shape);
  EXPECT_EQ(f.inputs.at("x").to_codes(), again.inputs.at("x").to_codes());
  // The outputs under test are y = 1.5*x + idx (checked by hand formula, not by the op's reference).
  const Tensor& x = f.inputs.at("x");
  const Tensor& idx = f.inputs.at("idx");
  for (std::int64_t r = 0; r < 3; ++r)
    for (std::int64_t c = 0; c < 5; ++c)
      EXPECT_NEAR(f.outputs.at("y").get({r, c}), 1.5 * x.get({r, c}) + idx.get({r}), 1e-5);
  std::ostringstream vout;
  EXPECT_EQ(verify_file(o.save, {}, vout), 0) << vout.str();
}

TEST(Repro, AttrOverridesAndDtypeReachTheCase) {
  ReproOptions o = options();
  o.attrs = {{"mode", "minus"}};
  o.save = temp_path("minus.safetensors").string();
  std::ostringstream out;
  ASSERT_EQ(run_repro(o, out), 0) << out.str();
  EXPECT_EQ(io::read_fixture(o.save).attrs["mode"], "minus");
  o.attrs = {{"mode", "sideways"}};
  EXPECT_THROW(run_repro(o, out), InputError);
}

TEST(Repro, MissingKernelAndBadOptionsAreUsageErrors) {
  ReproOptions o = options();
  o.backend = "sim";
  try {
    std::ostringstream out;
    run_repro(o, out);
    FAIL() << "no kernel should exist";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("no kernel for op 'io_test_op' on backend 'sim'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("reference"), std::string::npos) << e.what();
  }
  o = options();
  o.arch = "gfx1100";
  std::ostringstream out;
  EXPECT_THROW(run_repro(o, out), UsageError);
  o = options();
  o.op = "not_an_op";
  EXPECT_THROW(run_repro(o, out), InputError);
}

TEST(Repro, SetCodeForcesRawCodesIntoInputs) {
  ReproOptions o = options();
  o.set_codes = {"idx:1=0x2A", "idx:2=7"};
  o.save = temp_path("setcode.safetensors").string();
  std::ostringstream out;
  ASSERT_EQ(run_repro(o, out), 0) << out.str();
  io::Fixture f = io::read_fixture(o.save);
  EXPECT_EQ(f.inputs.at("idx").get({1}), 42);
  EXPECT_EQ(f.inputs.at("idx").get({2}), 7);
  EXPECT_NE(f.source.find("--set-code idx:1=0x2A"), std::string::npos) << f.source;
  OpCase c;
  c.inputs["u"] = Tensor::from_codes(DType::U8, {2}, {1, 2});
  EXPECT_THROW(apply_set_code(c, "u:2=1"), UsageError);      // index out of range
  EXPECT_THROW(apply_set_code(c, "u:0=0x100"), UsageError);  // does not fit a byte
  EXPECT_THROW(apply_set_code(c, "v:0=1"), UsageError);      // no such input
  EXPECT_THROW(apply_set_code(c, "u0=1"), UsageError);       // malformed
  EXPECT_THROW(apply_set_code(c, "u:x=1"), UsageError);
  apply_set_code(c, "u:1=0xFF");
  EXPECT_EQ(c.inputs["u"].code({1}), 0xFFu);
}

TEST(Repro, HeatmapIsWritten) {
  ReproOptions o = options();
  o.heatmap = temp_path("map.png").string();
  std::filesystem::remove(o.heatmap);
  std::ostringstream out;
  ASSERT_EQ(run_repro(o, out), 0) << out.str();
  if (out.str().find("has no error map") == std::string::npos) {
    ASSERT_TRUE(std::filesystem::exists(o.heatmap)) << out.str();
    EXPECT_GT(std::filesystem::file_size(o.heatmap), 8u);
  }
}

TEST(Repro, SimFindingsOfTheZoosBug1ArePrintedBesideTheVerdictAndSaved) {
  if (std::string(kernels::backend_name()) != "sim") GTEST_SKIP() << "needs the sim backend";
  ReproOptions o;
  o.op = "skinny_gemm";
  o.shape = {{"N", 65}, {"K", 5248}, {"M", 16}, {"dtype", "bf16"}, {"bias", "none"}};
  o.backend = "sim";
  o.variant = "readback_one_pass";
  o.seed = 6248;
  o.save = temp_path("bug1.safetensors").string();
  std::ostringstream out;
  EXPECT_EQ(run_repro(o, out), 1) << out.str();
  const std::string s = out.str();
  const std::size_t verdict = s.find("FAIL skinny_gemm"), findings = s.find("sim findings: ");
  ASSERT_NE(verdict, std::string::npos) << s;
  ASSERT_NE(findings, std::string::npos) << s;
  EXPECT_NE(s.find("lds_out_of_range in kernel", findings), std::string::npos) << s;
  EXPECT_NE(s.find("(array ", findings), std::string::npos) << s;  // the array, offset and size of the access
  const io::Fixture f = io::read_fixture(o.save);
  ASSERT_TRUE(f.sim_findings.is_object());
  EXPECT_GT(f.sim_findings.at("total").get<std::size_t>(), 0u);
  EXPECT_EQ(f.sim_findings.at("items").at(0).at("kind"), "lds_out_of_range");
  VerifyOptions vo;
  vo.json = true;
  std::ostringstream vout;
  EXPECT_EQ(verify_file(o.save, vo, vout), 1) << vout.str();
  const Json j = Json::parse(vout.str());
  EXPECT_EQ(j.at("sim_findings"), f.sim_findings);
  std::ostringstream tout;
  verify_file(o.save, {}, tout);
  EXPECT_NE(tout.str().find("recorded when the outputs were made: sim findings: "), std::string::npos) << tout.str();
  // The default kernel on the same case: no findings, and the line says so.
  o.variant = "default";
  o.save.clear();
  std::ostringstream clean;
  EXPECT_EQ(run_repro(o, clean), 0) << clean.str();
  EXPECT_NE(clean.str().find("sim findings: none"), std::string::npos) << clean.str();
}

TEST(Repro, TooLargeShapeAndUnknownFieldAreClearErrorsBeforeAllocating) {
  ReproOptions o;
  o.op = "skinny_gemm";
  o.shape = {{"N", 128}, {"K", 100000000}, {"M", 100000}};
  std::ostringstream out;
  try {
    run_repro(o, out);
    ADD_FAILURE() << "no error for a 20 TB shape";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("input 'b' [M, K] = [100000, 100000000] needs 18.2 TiB"), std::string::npos) << m;
    EXPECT_NE(m.find("of memory available"), std::string::npos) << m;
  }
  o.shape = {{"N", 1}, {"K", 64}, {"M", 16}, {"Q", 3}};
  try {
    run_repro(o, out);
    ADD_FAILURE() << "unknown field Q was ignored";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown shape field 'Q'; the op's shape fields are N, K, M, Kap, dtype, bias"),
              std::string::npos)
        << e.what();
  }
}

TEST(KernelRunner, RegisteredRunnerIsFoundAndItsPlanPrinted) {
  test::register_io_test_op();
  const OpDescriptor& d = Registry::instance().get("io_test_op");
  static bool added = false;
  if (!added) {
    add_kernel_runner("io_test_op", "fake", [](const OpDescriptor& op, const OpCase& c, const KernelRunOptions&) {
      KernelRun r;
      r.outputs = op.reference(c);
      r.outputs["y"].set({0, 0}, r.outputs["y"].get({0, 0}) + 1);  // a wrong kernel
      r.plan = {{"grid", "(2,1,1)"}, {"lds_bytes", 200000}, {"lds_capacity", 163840}, {"workspace_bytes", 64}};
      return r;
    });
    added = true;
  }
  EXPECT_EQ(kernel_backends(d), (std::vector<std::string>{"reference", "fake"}));
  ReproOptions o = options();
  o.backend = "fake";
  std::ostringstream out;
  EXPECT_EQ(run_repro(o, out), 1) << out.str();
  EXPECT_NE(out.str().find("LDS: 200000 of 163840 bytes"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("EXCEEDS CAPACITY"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("workspace_bytes: 64"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("FAIL io_test_op"), std::string::npos) << out.str();
}

TEST(ShapeArg, ValuesGetTheirJsonTypes) {
  Json j = parse_key_values("N=65,K=5248,scale=0.5,neg=-3,flag=true,layout=V32_FP8Sparse,big=1e-3");
  EXPECT_TRUE(j["N"].is_number_integer());
  EXPECT_EQ(j["N"], 65);
  EXPECT_EQ(j["K"], 5248);
  EXPECT_TRUE(j["scale"].is_number_float());
  EXPECT_EQ(j["scale"], 0.5);
  EXPECT_EQ(j["neg"], -3);
  EXPECT_EQ(j["flag"], true);
  EXPECT_EQ(j["layout"], "V32_FP8Sparse");
  EXPECT_EQ(j["big"], 1e-3);
  EXPECT_TRUE(parse_key_values("").empty());
  EXPECT_THROW(parse_key_values("N"), UsageError);
  EXPECT_THROW(parse_key_values("=3"), UsageError);
  EXPECT_THROW(parse_key_values("N=1,N=2"), UsageError);
  EXPECT_THROW(parse_key_values("N=1,"), UsageError);
}

}  // namespace
}  // namespace dsv4::cli
