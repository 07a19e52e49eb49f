// Kernel tests of fp8_einsum 'bhr,hdr->bhd' (issue 7) through the tools' runner path (outputs poisoned, written-
// check, default oracle policy = the per-head error_model.md bound vs the float64 reference, tile map over d's
// [B·H, D] view): default shapes on both wave sizes, both recipes ((1,128,128) block and (1,1,128) per-row weight
// scales) with every scale form, edge tiles in B and D, partial R blocks, the fp32 accumulator, the gfx942 flavour
// (e4m3fnuz operands) and its refusal elsewhere, the per-head identity with the fp8_gemm_blockscaled kernel (bitwise),
// UE8M0 extremes (0x00 / 0xFE / 0xFF), NaN propagation, and the planted variants.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/kernels/fp8_gemm_blockscaled/bs_case.hpp"
#include "tests/support/seed.hpp"

using namespace dsv4;
using namespace dsv4::test::bs;
namespace kern = dsv4::test::kern;

namespace {

constexpr const char* kOp = "fp8_einsum";

class EinsumKernel : public BsKernelTest {};

Json eshape(std::int64_t B, std::int64_t H, std::int64_t R, std::int64_t D, const std::string& scale,
            const std::string& recipe = "1,128,128") {
  return Json{{"B", B}, {"H", H}, {"R", R}, {"D", D}, {"scale", scale}, {"recipe", recipe}};
}

// The einsum generator makes e4m3fn operands; on gfx942 reinterpret the codes as e4m3fnuz (a valid fnuz case).
OpCase for_arch(OpCase c, const std::string& arch) {
  if (arch == "gfx942")
    for (const char* n : {"x", "w"}) c.inputs[n] = recode_fp8(c.inputs.at(n), DType::F8_E4M3FNUZ);
  return c;
}

void expect_pass(const Checked& r, const std::string& what) { EXPECT_TRUE(r.verdict.pass) << what << ": " << r.summary(); }

}  // namespace

TEST_F(EinsumKernel, DefaultShapesBothArchsBothWaves) {
  auto rng = dsv4::test::rng_for_current_test();
  for (const std::string& arch : archs())
    for (int w : waves()) {
      if (!use_arch(arch, w)) continue;
      for (const Json& s : kern::descriptor(kOp).default_shapes) {
        const Checked r = run_on(kOp, for_arch(kern::generate(kOp, s, rng), arch), arch);
        expect_pass(r, arch + " wave " + std::to_string(w) + " " + s.dump());
        EXPECT_EQ(r.run.plan.value("wave_size", 0), w);
      }
    }
}

TEST_F(EinsumKernel, RecipesScaleFormsEdgeTilesAndAccumulator) {
  auto rng = dsv4::test::rng_for_current_test();
  struct E { std::int64_t b, h, r, d; const char* scale; const char* recipe; bool c; };
  const E edges[] = {{1, 1, 1, 1, "fp32", "1,128,128", false},       {8, 4, 300, 130, "ue8m0", "1,1,128", false},
                     {17, 2, 129, 65, "packed_ue8m0", "1,128,128", true}, {5, 3, 512, 256, "fp32", "1,1,128", true},
                     {33, 1, 200, 40, "packed_ue8m0", "1,1,128", false}};
  for (const std::string& arch : archs()) {
    if (!use_arch(arch)) continue;
    for (const E& e : edges) {
      Json s = eshape(e.b, e.h, e.r, e.d, e.scale, e.recipe);
      s["c"] = e.c;
      const Checked r = run_on(kOp, for_arch(kern::generate(kOp, s, rng), arch), arch);
      expect_pass(r, arch + " " + s.dump());
      EXPECT_EQ(r.run.outputs.at("d").dtype(), e.c ? DType::F32 : DType::BF16);
      EXPECT_EQ(r.run.plan.at("grid")[2].get<std::int64_t>(), e.h);
      EXPECT_EQ(r.run.plan.value("recipe", std::string()), e.recipe);
    }
  }
}

// d[:, h, :] of the einsum kernel equals the fp8_gemm_blockscaled kernel on the head's slices, bit for bit (same
// kernel, same tiles, same order): the identity error_model.md states, checked on the kernels themselves.
TEST_F(EinsumKernel, EachHeadIsTheBlockScaledGemmKernelBitwise) {
  auto rng = dsv4::test::rng_for_current_test();
  const std::string arch = archs().front();
  ASSERT_TRUE(use_arch(arch));
  const OpCase c = for_arch(kern::generate(kOp, eshape(6, 3, 300, 70, "fp32"), rng), arch);
  const Checked r = run_on(kOp, c, arch);
  expect_pass(r, "einsum");
  for (std::int64_t h = 0; h < 3; ++h) {
    OpCase g;
    g.inputs = {{"x", c.in("x").select(1, h).contiguous()}, {"x_sf", c.in("x_sf").select(1, h).contiguous()},
                {"w", c.in("w").select(0, h).contiguous()}, {"w_sf", c.in("w_sf").select(0, h).contiguous()}};
    g.attrs = {{"out_dtype", "bf16"}};
    const Checked rg = run_on("fp8_gemm_blockscaled", g, arch);
    expect_pass(rg, "gemm head " + std::to_string(h));
    for (std::int64_t b = 0; b < 6; ++b)
      for (std::int64_t n = 0; n < 70; ++n)
        ASSERT_EQ(r.run.outputs.at("d").code({b, h, n}), rg.run.outputs.at("d").code({b, n})) << "h=" << h << " b=" << b << " n=" << n;
  }
}

TEST_F(EinsumKernel, Ue8m0ExtremesNanAndPlantedVariants) {
  auto rng = dsv4::test::rng_for_current_test();
  for (const std::string& arch : archs()) {
    if (!use_arch(arch)) continue;
    OpCase c = for_arch(kern::generate(kOp, eshape(4, 2, 256, 64, "packed_ue8m0"), rng), arch);
    // Per head: block 0 x 0xFE with w 0x00/0x01, block 1 x 0x00/0x01 with w 0xFE: products 2^-1..2^0.
    Tensor& xs = c.inputs.at("x_sf");
    Tensor& ws = c.inputs.at("w_sf");
    for (std::int64_t h = 0; h < 2; ++h) {
      for (std::int64_t b = 0; b < 4; ++b) {
        Tensor v = xs.select(1, h);
        set_scale_byte(v, b, 0, 0xFE);
        set_scale_byte(v, b, 1, b % 2 ? 0x00 : 0x01);
      }
      Tensor v = ws.select(0, h);
      set_scale_byte(v, 0, 0, h ? 0x01 : 0x00);
      set_scale_byte(v, 0, 1, 0xFE);
    }
    Tensor v = xs.select(1, 1);
    set_scale_byte(v, 3, 1, 0xFF);  // d[3, 1, :] NaN
    const std::uint64_t nan = arch == "gfx942" ? 0x80 : 0x7F;
    c.inputs.at("w").set_code({0, 10, 77}, nan);  // d[:, 0, 10] NaN
    const Checked r = run_on(kOp, c, arch);
    expect_pass(r, arch);
    const Tensor& d = r.run.outputs.at("d");
    for (std::int64_t b = 0; b < 4; ++b)
      for (std::int64_t h = 0; h < 2; ++h)
        for (std::int64_t n : {0, 10, 63})
          EXPECT_EQ(std::isnan(d.get({b, h, n})), (b == 3 && h == 1) || (h == 0 && n == 10))
              << arch << " d[" << b << "," << h << "," << n << "]";
    for (const char* variant : {"e8m0_shift23", "scale_per_tile"}) {
      const Checked bad = run_on(kOp, c, arch, variant);
      EXPECT_FALSE(bad.verdict.pass) << arch << " " << variant << " not caught";
    }
  }
}

TEST_F(EinsumKernel, OcpOperandsAreRefusedOnGfx942) {
  if (!use_arch("gfx942")) GTEST_SKIP() << "gfx942 profile not available on this device";
  auto rng = dsv4::test::rng_for_current_test();
  const OpCase c = kern::generate(kOp, eshape(2, 2, 128, 16, "fp32"), rng);  // e4m3fn
  EXPECT_THROW((void)run_on(kOp, c, "gfx942"), kernels::CannotImplement);
}
