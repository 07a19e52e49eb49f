// Kernel tests of fp8_gemm_blockscaled (issue 7) through the tools' runner path (outputs poisoned, written-check,
// default oracle policy = the error_model.md bound vs the float64 reference, tile map): the op's default shapes and
// every scale form on both arch flavours (gfx950 e4m3fn, gfx942 e4m3fnuz) and both wave sizes, edge tiles (M, N, K
// not multiples of the tiles or of 128), a hand-derived case, UE8M0 extremes (0x00, 0x01, 0xFD, 0xFE, 0xFF) typed and
// packed, NaN codes in x / w and NaN fp32 scales, arch-flavour refusals, and the planted variants (scale_per_tile,
// e8m0_shift23) that the same checks must catch. Labels gpu+sim: on a GPU build the tests run on the device.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "kernels/fp8_gemm_blockscaled/bs_gemm_plan.hpp"
#include "tests/kernels/fp8_gemm_blockscaled/bs_case.hpp"
#include "tests/support/seed.hpp"

using namespace dsv4;
using namespace dsv4::test::bs;
namespace kern = dsv4::test::kern;

namespace {

constexpr const char* kOp = "fp8_gemm_blockscaled";

class BsGemmKernel : public BsKernelTest {};

Json shape(std::int64_t M, std::int64_t N, std::int64_t K, const std::string& scale, const std::string& arch) {
  return Json{{"M", M}, {"N", N}, {"K", K}, {"scale", scale}, {"dtype", fp8_name_for(arch)}};
}

void expect_pass(const Checked& r, const std::string& what) { EXPECT_TRUE(r.verdict.pass) << what << ": " << r.summary(); }

}  // namespace

TEST_F(BsGemmKernel, DefaultShapesEveryScaleFormBothArchsBothWaves) {
  auto rng = dsv4::test::rng_for_current_test();
  int cases = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (const std::string& arch : archs())
    for (int w : waves()) {
      if (!use_arch(arch, w)) continue;
      for (Json s : kern::descriptor(kOp).default_shapes) {
        s["dtype"] = fp8_name_for(arch);
        const Checked r = run_on(kOp, kern::generate(kOp, s, rng), arch);
        expect_pass(r, arch + " wave " + std::to_string(w) + " " + s.dump());
        EXPECT_EQ(r.run.plan.value("fp8", std::string()), fp8_name_for(arch));
        EXPECT_EQ(r.run.plan.value("wave_size", 0), w);
        ++cases;
      }
    }
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[ bs_gemm ] %d cases in %.3f s\n", cases, sec);
}

TEST_F(BsGemmKernel, EdgeTilesAndPartialKBlocks) {
  auto rng = dsv4::test::rng_for_current_test();
  struct E { std::int64_t m, n, k; const char* scale; };
  // M-tile 16/32/64 (N-tile 256/128/64): every dimension one past or short of a tile / 128-K block.
  const E edges[] = {{1, 1, 1, "fp32"},          {17, 65, 129, "ue8m0"},   {33, 129, 300, "packed_ue8m0"},
                     {64, 256, 512, "fp32"},     {63, 255, 511, "fp32_mn_major"}, {16, 257, 127, "packed_ue8m0"},
                     {40, 70, 385, "ue8m0"}};
  for (const std::string& arch : archs()) {
    if (!use_arch(arch)) continue;
    for (const E& e : edges) {
      const Checked r = run_on(kOp, kern::generate(kOp, shape(e.m, e.n, e.k, e.scale, arch), rng), arch);
      expect_pass(r, arch + " " + std::to_string(e.m) + "x" + std::to_string(e.n) + "x" + std::to_string(e.k) + " " + e.scale);
      const Json& t = r.run.plan.at("tiles");
      const std::int64_t bm = t.at("bm").get<std::int64_t>(), bn = t.at("bn").get<std::int64_t>();
      EXPECT_EQ(r.run.plan.at("grid")[0].get<std::int64_t>(), (e.n + bn - 1) / bn);
      EXPECT_EQ(r.run.plan.at("grid")[1].get<std::int64_t>(), (e.m + bm - 1) / bm);
      EXPECT_EQ(r.run.plan.at("k_shards").get<std::int64_t>(), (e.k + 127) / 128);
    }
  }
}

TEST_F(BsGemmKernel, HandDerivedBlockScalesAndCAccumulator) {
  // x = w = 1.0 everywhere (e4m3fn 0x38), K = 256: d[m, n] = 128·(sx[m,0]·sw[0,0] + sx[m,1]·sw[0,1]).
  // sx = [[0.5, 2], [1, 0.25]], sw = [[3, 0.5]]: d = 128·2.5 = 320 and 128·3.125 = 400 (exact in bf16).
  if (!use_arch("gfx950")) GTEST_SKIP() << "needs an e4m3fn arch (gfx950 / sm_90 on sim)";
  OpCase c;
  Tensor x = Tensor::empty(DType::F8_E4M3FN, {2, 256}), w = Tensor::empty(DType::F8_E4M3FN, {3, 256});
  for (std::int64_t i = 0; i < x.numel(); ++i) x.set_code_linear(i, 0x38);
  for (std::int64_t i = 0; i < w.numel(); ++i) w.set_code_linear(i, 0x38);
  Tensor xs = Tensor::empty(DType::F32, {2, 2}), ws = Tensor::empty(DType::F32, {1, 2});
  xs.set({0, 0}, 0.5), xs.set({0, 1}, 2.0), xs.set({1, 0}, 1.0), xs.set({1, 1}, 0.25);
  ws.set({0, 0}, 3.0), ws.set({0, 1}, 0.5);
  c.inputs = {{"x", x}, {"w", w}, {"x_sf", xs}, {"w_sf", ws}};
  c.attrs = {{"out_dtype", "bf16"}};
  const std::string arch = port::sim::sim_active() ? "gfx950" : "";
  const Checked r = run_on(kOp, c, arch);
  expect_pass(r, "hand case");
  const Tensor& d = r.run.outputs.at("d");
  for (std::int64_t n = 0; n < 3; ++n) {
    EXPECT_EQ(d.get({0, n}), 320.0) << "n=" << n;
    EXPECT_EQ(d.get({1, n}), 400.0) << "n=" << n;
  }
  // Planted: block 0's scales for every block gives 128·2·1.5 = 384 and 128·2·3 = 768.
  const Checked bad = run_on(kOp, c, arch, "scale_per_tile");
  EXPECT_FALSE(bad.verdict.pass) << bad.summary();
  EXPECT_EQ(bad.run.outputs.at("d").get({0, 0}), 384.0);
  // fp32 accumulator c, fp32 output: d = 320 + c, 400 + c.
  Tensor acc = Tensor::empty(DType::F32, {2, 3});
  for (std::int64_t i = 0; i < 6; ++i) acc.set({i / 3, i % 3}, 0.25 * static_cast<double>(i + 1));
  c.inputs["c"] = acc;
  c.attrs = {{"out_dtype", "fp32"}};
  const Checked rc = run_on(kOp, c, arch);
  expect_pass(rc, "hand case + c");
  for (std::int64_t i = 0; i < 6; ++i)
    EXPECT_EQ(rc.run.outputs.at("d").get({i / 3, i % 3}), (i < 3 ? 320.0 : 400.0) + 0.25 * static_cast<double>(i + 1));
}

// Scale bytes at the UE8M0 extremes. Block 0: x bytes 0xFE/0xFD with w bytes 0x00/0x01; block 1 the mirror (x 0x00/
// 0x01, w 0xFE/0xFD); block 2: 0x7F/0x80. Every product is 2^-2..2^1 (nothing overflows), and 2^-127 (0x00) is a
// subnormal fp32 the decode must keep. Row 5 has x byte 0xFF in block 1 and w block 1 has 0xFF in block 2: NaN rows
// and columns. Both typed F8_E8M0 and packed I32 scales, both arch flavours.
TEST_F(BsGemmKernel, Ue8m0ExtremeBytesTypedAndPacked) {
  auto rng = dsv4::test::rng_for_current_test();
  for (const std::string& arch : archs()) {
    if (!use_arch(arch)) continue;
    for (const char* form : {"ue8m0", "packed_ue8m0"}) {
      OpCase c = kern::generate(kOp, shape(6, 200, 384, form, arch), rng);
      Tensor& xs = c.inputs.at("x_sf");
      Tensor& ws = c.inputs.at("w_sf");
      for (std::int64_t m = 0; m < 6; ++m) {
        set_scale_byte(xs, m, 0, m % 2 ? 0xFE : 0xFD);
        set_scale_byte(xs, m, 1, m % 2 ? 0x00 : 0x01);
        set_scale_byte(xs, m, 2, m % 2 ? 0x7F : 0x80);
      }
      for (std::int64_t j = 0; j < 2; ++j) {
        set_scale_byte(ws, j, 0, j ? 0x01 : 0x00);
        set_scale_byte(ws, j, 1, j ? 0xFD : 0xFE);
        set_scale_byte(ws, j, 2, 0x7F);
      }
      set_scale_byte(xs, 5, 1, 0xFF);
      set_scale_byte(ws, 1, 2, 0xFF);
      const Checked r = run_on(kOp, c, arch);
      expect_pass(r, arch + " " + form);
      // NaN placement: row 5 and columns 128..199 (w block 1) are NaN, nothing else.
      const Tensor& d = r.run.outputs.at("d");
      for (std::int64_t m = 0; m < 6; ++m)
        for (std::int64_t n : {0, 127, 128, 199})
          EXPECT_EQ(std::isnan(d.get({m, n})), m == 5 || n >= 128) << arch << " " << form << " d[" << m << "," << n << "]";
      EXPECT_NE(d.get({0, 0}), 0.0);
      // Planted known-bugs #13 (bits << 23: 0x00 -> 0, 0xFF -> +Inf): caught by the same check.
      const Checked bad = run_on(kOp, c, arch, "e8m0_shift23");
      EXPECT_FALSE(bad.verdict.pass) << arch << " " << form << " e8m0_shift23 not caught: " << bad.summary();
    }
  }
}

TEST_F(BsGemmKernel, NanCodesAndNanScalesPropagate) {
  auto rng = dsv4::test::rng_for_current_test();
  for (const std::string& arch : archs()) {
    if (!use_arch(arch)) continue;
    OpCase c = kern::generate(kOp, shape(9, 70, 260, "fp32", arch), rng);
    const std::uint64_t nan = arch == "gfx942" ? 0x80 : 0x7F;
    c.inputs.at("x").set_code({2, 5}, nan);            // row 2 NaN
    c.inputs.at("w").set_code({33, 259}, nan | 0x80);  // column 33 NaN (fn: 0xFF; fnuz: 0x80)
    c.inputs.at("x_sf").set({7, 2}, std::nan(""));     // row 7 NaN (last, partial K block)
    const Checked r = run_on(kOp, c, arch);
    expect_pass(r, arch);
    const Tensor& d = r.run.outputs.at("d");
    for (std::int64_t m = 0; m < 9; ++m)
      for (std::int64_t n : {0, 33, 69})
        EXPECT_EQ(std::isnan(d.get({m, n})), m == 2 || m == 7 || n == 33) << arch << " d[" << m << "," << n << "]";
  }
}

TEST_F(BsGemmKernel, PlantedScalePerTileIsCaughtOnRandomCases) {
  auto rng = dsv4::test::rng_for_current_test();
  for (const std::string& arch : archs()) {
    if (!use_arch(arch)) continue;
    for (const char* form : {"fp32", "packed_ue8m0"}) {
      const OpCase c = kern::generate(kOp, shape(20, 100, 384, form, arch), rng);
      expect_pass(run_on(kOp, c, arch), arch + " default");
      const Checked bad = run_on(kOp, c, arch, "scale_per_tile");
      EXPECT_FALSE(bad.verdict.pass) << arch << " " << form << " scale_per_tile not caught";
    }
  }
}

TEST_F(BsGemmKernel, FlavourOfTheOtherArchIsRefusedBeforeLaunch) {
  auto rng = dsv4::test::rng_for_current_test();
  for (const std::string& arch : archs()) {
    if (!use_arch(arch)) continue;
    const std::string other = arch == "gfx942" ? "e4m3fn" : "e4m3fnuz";
    Json s = shape(4, 16, 128, "fp32", arch);
    s["dtype"] = other;
    try {
      (void)run_on(kOp, kern::generate(kOp, s, rng), arch);
      ADD_FAILURE() << arch << " accepted " << other;
    } catch (const kernels::CannotImplement& e) {
      EXPECT_NE(std::string(e.what()).find("known-bugs #15"), std::string::npos) << e.what();
    }
  }
}
