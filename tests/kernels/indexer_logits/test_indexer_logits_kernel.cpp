// Kernel tests of indexer_logits (ops.md §4.1, issue 7) on this build's backend (sim in CI, the device on a GPU
// build): the registry runner under the op's default oracle policy (poisoned outputs, written-check, −inf mask
// exact when clean_logits) AND an element-wise check of every position against a float64 recomputation within the
// error-model bound (indexer_test_util.hpp), wave 64 and 32 on sim, both fp8 flavours; ragged / empty ranges and
// ranges crossing tile edges, clean_logits=false (unwritten outside), compressed rows, every fp8 code decoded
// exactly, bitwise-equal reruns, bad inputs, refusals, and the ke_off_by_one variant caught. Plus plan tests.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "kernels/indexer_logits/indexer_logits.hpp"
#include "tests/kernels/indexer_logits/indexer_test_util.hpp"
#include "tests/kernels/kernel_case.hpp"
#include "tests/support/seed.hpp"

using namespace dsv4;
using namespace dsv4::test::kern;
using namespace dsv4::test::idx;
namespace ix = dsv4::kernels::indexer;

namespace {

constexpr const char* kOp = "indexer_logits";

class IndexerKernel : public KernelTest {};

std::int64_t width_of(const OpCase& c) {
  const std::int64_t m = c.attrs.at("max_seqlen_k").get<std::int64_t>();
  return m > 0 ? m : c.in("kv").size(0);
}

}  // namespace

TEST_F(IndexerKernel, GeneratedShapesUnderOracleAndErrorModelBothWavesBothFlavours) {
  auto rng = dsv4::test::rng_for_current_test();
  const Json shapes[] = {Json{{"S", 5}, {"S_kv", 37}, {"H", 8}, {"D", 32}},
                         Json{{"S", 4}, {"S_kv", 150}, {"H", 16}, {"D", 128}},
                         Json{{"S", 3}, {"S_kv", 20}, {"H", 4}, {"D", 64}, {"dtype", "e4m3fnuz"}},
                         Json{{"S", 3}, {"S_kv", 130}, {"H", 16}, {"D", 64}, {"dtype", "e4m3fnuz"}}};
  const auto t0 = std::chrono::steady_clock::now();
  int cases = 0;
  for (int w : waves()) {
    use_wave(w);
    for (const Json& s : shapes) {
      OpCase c = generate(kOp, s, rng);
      c.attrs = {{"clean_logits", true}, {"max_seqlen_k", 0}, {"dot", "fp32"}};
      const Checked r = run_and_judge(kOp, c);
      const std::string what = "wave " + std::to_string(w) + " " + s.dump();
      expect_runner_pass(r, what);
      ASSERT_EQ(r.verdict.outputs.size(), 1u) << what;
      EXPECT_EQ(r.verdict.outputs[0].policy, "error-bound") << what << ": the op registers its error model";
      EXPECT_EQ(r.run.plan.value("wave_size", 0), w) << what;
      EXPECT_EQ(check_nonpaged(r.c, r.run.outputs.at("logits"), what, true, false), 0);
      ++cases;
    }
  }
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[ indexer ] %d cases in %.3f s (reference + kernel + oracle)\n", cases, sec);
}

TEST_F(IndexerKernel, RaggedAndEmptyRangesAcrossTileEdgesCleanAndUnclean) {
  auto rng = dsv4::test::rng_for_current_test();
  // S_kv = 260: tiles of 128, 128 and 4 keys (not a multiple of the tile). Empty ranges at 0, inside, at the end.
  const std::vector<std::pair<int, int>> ranges = {{0, 0},   {0, 1},     {259, 260}, {127, 129}, {0, 260},
                                                   {5, 5},   {260, 260}, {100, 228}, {128, 256}, {3, 131}};
  const OpCase base = nonpaged_case(rng, static_cast<std::int64_t>(ranges.size()), 260, 8, 64, ranges);
  for (int w : waves()) {
    use_wave(w);
    for (bool clean : {true, false}) {
      OpCase c = base;
      c.attrs["clean_logits"] = clean;
      const std::string what = "wave " + std::to_string(w) + " clean " + std::to_string(clean);
      EXPECT_EQ(check_nonpaged(c, run_kernel(kOp, c, c.in("q").size(0), width_of(c)), what), 0) << what;
      expect_runner_pass(run_and_judge(kOp, c), what + " (oracle)");
    }
  }
}

TEST_F(IndexerKernel, CompressedRowsLeaveColumnsPastTheRangeUnwritten) {
  auto rng = dsv4::test::rng_for_current_test();
  const std::vector<std::pair<int, int>> ranges = {{0, 0}, {7, 140}, {100, 101}, {60, 200}, {199, 200}};
  OpCase c = nonpaged_case(rng, 5, 200, 4, 32, ranges, DType::F8_E4M3FNUZ);
  c.attrs["clean_logits"] = false;
  c.attrs["max_seqlen_k"] = 140;
  EXPECT_EQ(check_nonpaged(c, run_kernel(kOp, c, 5, 140), "compressed"), 0);
  expect_runner_pass(run_and_judge(kOp, c), "compressed (oracle)");
}

TEST_F(IndexerKernel, EveryFp8CodeDecodesExactlyBothFlavours) {
  // q head 0 = +1 at d = 0, head 1 = −1 at d = 0; kv[j, 0] = code j, the rest 0; sf = 1; w = {1, 2}:
  //   logit_j = relu(v) + 2·relu(−v), v = decode(j) (NaN codes: 0, as relu(NaN) = 0 in the reference).
  // Exact in fp32, compared bit for bit with the formats library's decode (an independent implementation).
  for (DType dt : {DType::F8_E4M3FN, DType::F8_E4M3FNUZ}) {
    const formats::Format f = *format_of(dt);
    OpCase c;
    Tensor q = Tensor::empty(dt, {1, 2, 32}), kv = Tensor::empty(dt, {256, 32});
    for (std::int64_t i = 0; i < q.numel(); ++i) q.set_code_linear(i, 0);
    for (std::int64_t i = 0; i < kv.numel(); ++i) kv.set_code_linear(i, 0);
    q.set_code({0, 0, 0}, quant::encode_fp8_satfinite(f, 1.0));
    q.set_code({0, 1, 0}, quant::encode_fp8_satfinite(f, -1.0));
    for (int j = 0; j < 256; ++j) kv.set_code({j, 0}, static_cast<std::uint64_t>(j));
    c.inputs["q"] = q;
    c.inputs["kv"] = kv;
    c.inputs["kv_sf"] = Tensor::from_f64(DType::F32, {256}, std::vector<double>(256, 1.0));
    c.inputs["weights"] = Tensor::from_f64(DType::F32, {1, 2}, {1.0, 2.0});
    c.inputs["cu_seq_len_k_start"] = Tensor::from_f64(DType::I32, {1}, {0});
    c.inputs["cu_seq_len_k_end"] = Tensor::from_f64(DType::I32, {1}, {256});
    c.attrs = {{"clean_logits", true}, {"max_seqlen_k", 0}, {"dot", "fp32"}};
    const Tensor out = run_kernel(kOp, c, 1, 256);
    int bad = 0;
    for (int j = 0; j < 256; ++j) {
      const double v = formats::decode(f, static_cast<std::uint32_t>(j));
      const double want = v > 0 ? v : (v < 0 ? -2.0 * v : 0.0);  // NaN and ±0: +0
      if (bits(static_cast<float>(out.get({0, j}))) != bits(static_cast<float>(want)) && ++bad <= 5)
        ADD_FAILURE() << formats::name(f) << " code 0x" << std::hex << j << std::dec << ": got " << out.get({0, j})
                      << ", want " << want;
    }
    EXPECT_EQ(bad, 0) << formats::name(f);
  }
}

TEST_F(IndexerKernel, RerunsAreBitwiseEqual) {
  auto rng = dsv4::test::rng_for_current_test();
  OpCase c = generate(kOp, Json{{"S", 4}, {"S_kv", 140}, {"H", 8}, {"D", 64}}, rng);
  c.attrs = {{"clean_logits", true}, {"max_seqlen_k", 0}, {"dot", "fp32"}};
  const Tensor a = run_kernel(kOp, c, 4, 140);
  const Tensor b = run_kernel(kOp, c, 4, 140, "default", nullptr, 3);
  EXPECT_EQ(a.to_codes(), b.to_codes());
  EXPECT_EQ(check_nonpaged(c, a, "rerun"), 0);
}

TEST_F(IndexerKernel, KeOffByOneVariantIsCaught) {
  auto rng = dsv4::test::rng_for_current_test();
  OpCase c = generate(kOp, Json{{"S", 4}, {"S_kv", 60}, {"H", 4}, {"D", 32}}, rng);
  c.attrs = {{"clean_logits", true}, {"max_seqlen_k", 0}, {"dot", "fp32"}};
  expect_runner_pass(run_and_judge(kOp, c), "default");
  const Checked bad = run_and_judge(kOp, c, "ke_off_by_one");
  EXPECT_FALSE(bad.verdict.pass) << "the oracle must catch a dropped last key: " << bad.summary();
  EXPECT_GT(check_nonpaged(c, run_kernel(kOp, c, 4, 60, "ke_off_by_one"), "off by one", false), 0);
}

TEST_F(IndexerKernel, BadInputsNameTheArgument) {
  auto rng = dsv4::test::rng_for_current_test();
  OpCase c = nonpaged_case(rng, 2, 10, 4, 32, {{0, 4}, {6, 5}});
  try {
    (void)run_kernel(kOp, c, 2, 10);
    FAIL() << "ks > ke must be refused";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cu_seq_len_k_start"), std::string::npos) << e.what();
  }
  c = nonpaged_case(rng, 2, 10, 4, 32, {{0, 4}, {5, 10}});
  c.inputs["kv_sf"].set({3}, -1.0);
  try {
    (void)run_kernel(kOp, c, 2, 10);
    FAIL() << "negative kv_sf must be refused";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("kv_sf"), std::string::npos) << e.what();
  }
}

TEST_F(IndexerKernel, RunnerRefusesUnsupportedHeadDimAndBf16Dot) {
  auto rng = dsv4::test::rng_for_current_test();
  OpCase c = nonpaged_case(rng, 2, 10, 4, 48, {{0, 4}, {5, 10}});
  EXPECT_THROW((void)run_kernel(kOp, c, 2, 10), kernels::CannotImplement);
  c = nonpaged_case(rng, 2, 10, 4, 32, {{0, 4}, {5, 10}});
  c.attrs["dot"] = "bf16";
  try {
    (void)run_kernel(kOp, c, 2, 10);
    FAIL() << "dot:bf16 must be refused";
  } catch (const kernels::CannotImplement& e) {
    EXPECT_NE(std::string(e.what()).find("bf16"), std::string::npos) << e.what();
  }
}

TEST(IndexerPlan, GridLdsStrideAndWorkspaceAsData) {
  ix::IndexerShape s;
  s.s = 3;
  s.s_kv = 300;
  s.h = 64;
  s.d = 128;
  const ix::IndexerPlan p = ix::make_indexer_plan(s, port::kGfx942);
  ASSERT_TRUE(p.ok) << p.reason;
  EXPECT_EQ(p.grid[0], 3u);
  EXPECT_EQ(p.grid[1], 3u);  // ceil(300 / 128)
  EXPECT_EQ(p.row_stride, 512);  // 1024-byte multiple
  EXPECT_EQ(p.lds_bytes, 64u * 128 * 4 + 64 * 4);
  EXPECT_EQ(p.workspace_bytes, 0u);
  EXPECT_EQ(p.out_bytes, 3u * 512 * 4);
  ASSERT_EQ(p.lds_phases().size(), 2u);
  EXPECT_EQ(p.lds_phases()[0].bytes + p.lds_phases()[1].bytes, p.lds_bytes);
  s.max_seqlen_k = 100;
  s.clean_logits = false;
  const ix::IndexerPlan pc = ix::make_indexer_plan(s, port::kGfx950);
  ASSERT_TRUE(pc.ok) << pc.reason;
  EXPECT_EQ(pc.width, 100);
  EXPECT_EQ(pc.grid[1], 1u);
}

TEST(IndexerPlan, RefusalsNameTheLimitPerArch) {
  ix::IndexerShape s;
  s.s = 2;
  s.s_kv = 10;
  s.h = 128;
  s.d = 128;  // q as fp32: 64 KiB + 512 B of weights
  auto p = ix::make_indexer_plan(s, port::kGfx942);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("65536"), std::string::npos) << p.reason;
  EXPECT_NE(p.reason.find("gfx942"), std::string::npos) << p.reason;
  EXPECT_TRUE(ix::make_indexer_plan(s, port::kGfx950).ok);      // 160 KiB
  EXPECT_FALSE(ix::make_indexer_plan(s, port::kSm90).ok);       // 48 KiB without the opt-in
  s.h = 64;
  EXPECT_TRUE(ix::make_indexer_plan(s, port::kSm90).ok);
  s.d = 48;
  p = ix::make_indexer_plan(s, port::kGfx950);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("D = 48"), std::string::npos) << p.reason;
  s.d = 128;
  s.max_seqlen_k = 8;  // with clean_logits = true
  EXPECT_FALSE(ix::can_implement(s, port::kGfx950));
  s.clean_logits = false;
  EXPECT_TRUE(ix::can_implement(s, port::kGfx950));
  s.out_row_stride = 4;  // < width 8
  EXPECT_FALSE(ix::can_implement(s, port::kGfx950));
  s.out_row_stride = 0;
  s.dot_bf16 = true;
  EXPECT_FALSE(ix::can_implement(s, port::kGfx950));
  s.dot_bf16 = false;
  EXPECT_FALSE(ix::make_indexer_plan(s, port::kGfx950, ix::IndexerVariant::mask_broadcast_heads).ok);
}

TEST_F(IndexerKernel, LauncherRefusesARefusedPlanBeforeLaunch) {
  ix::IndexerShape s;
  s.s = 1;
  s.s_kv = 4;
  s.d = 40;
  const ix::IndexerPlan p = ix::make_indexer_plan(s, port::kGfx950);
  ASSERT_FALSE(p.ok);
  port::Stream st;
  try {
    ix::launch_indexer_logits(p, ix::IndexerBuffers{}, st);
    FAIL() << "a refused plan must not launch";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("refused before launch"), std::string::npos) << e.what();
  }
}
