// Tests of the fp8_einsum 'bhr,hdr->bhd' reference: each head equals fp8_gemm_blockscaled on the head's
// slices (an independent formulation through the other op), the ops.md §8 formula as a loop with both
// recipes, the c accumulator, and bad input.
#include <cmath>

#include <gtest/gtest.h>
#include <omp.h>

#include "reference/registry/registry.hpp"
#include "tests/support/seed.hpp"

namespace dsv4 {
namespace {

TEST(Fp8Einsum, EachHeadEqualsBlockScaledGemm) {
  auto rng = test::rng_for_current_test();
  const auto& desc = Registry::instance().get("fp8_einsum");
  // H = 3: heads in turn at up to 2 threads; H = 2·threads + 1: heads over the threads. D = 300 and
  // R = 600 cross gemm_panels.hpp's panel edges (256 rows, 512 columns).
  for (const std::int64_t H : {std::int64_t{3}, std::int64_t{2 * omp_get_max_threads() + 1}})
    for (const char* form : {"fp32", "packed_ue8m0"})
      for (bool with_c : {false, true}) {
        const std::int64_t R = H == 3 ? 300 : 600, D = H == 3 ? 130 : 300;
        const Json shape{{"B", 3}, {"H", H}, {"R", R}, {"D", D}, {"scale", form}, {"c", with_c}};
        const OpCase c = desc.generate(rng, shape);
        const Tensor d = run_reference("fp8_einsum", c).at("d");
        ASSERT_EQ(d.dtype(), with_c ? DType::F32 : DType::BF16);
        for (std::int64_t h = 0; h < H; ++h) {
          OpCase g;
          g.inputs["x"] = c.in("x").select(1, h);
          g.inputs["x_sf"] = c.in("x_sf").select(1, h);
          g.inputs["w"] = c.in("w").select(0, h);
          g.inputs["w_sf"] = c.in("w_sf").select(0, h);
          if (with_c) {
            g.inputs["c"] = c.in("c").select(1, h);
            g.attrs["out_dtype"] = "fp32";
          }
          const Tensor dg = run_reference("fp8_gemm_blockscaled", g).at("d");
          for (std::int64_t b = 0; b < 3; ++b)
            for (std::int64_t n = 0; n < D; ++n) ASSERT_EQ(d.code({b, h, n}), dg.code({b, n})) << shape.dump() << " h " << h;
        }
      }
}

TEST(Fp8Einsum, MatchesFormulaLoopPerRowRecipe) {
  auto rng = test::rng_for_current_test();
  const OpCase c = Registry::instance().get("fp8_einsum").generate(
      rng, Json{{"B", 2}, {"H", 2}, {"R", 256}, {"D", 20}, {"scale", "ue8m0"}, {"recipe", "1,1,128"}});
  const Tensor d = run_reference("fp8_einsum", c).at("d");
  const Tensor &x = c.in("x"), &w = c.in("w"), &xs = c.in("x_sf"), &ws = c.in("w_sf");
  ASSERT_EQ(ws.size(1), 20);  // per-row weight scales
  int nonzero = 0;
  for (std::int64_t b = 0; b < 2; ++b)
    for (std::int64_t h = 0; h < 2; ++h)
      for (std::int64_t n = 0; n < 20; ++n) {
        long double acc = 0;
        for (std::int64_t kb = 0; kb < 2; ++kb) {
          long double part = 0;
          for (std::int64_t r = kb * 128; r < kb * 128 + 128; ++r)
            part += static_cast<long double>(x.get({b, h, r})) * w.get({h, n, r});
          acc += part * xs.get({b, h, kb}) * ws.get({h, n, kb});
        }
        Tensor e = Tensor::empty(DType::BF16, {1});
        e.set({0}, static_cast<double>(acc));
        ASSERT_EQ(d.get({b, h, n}), e.get({0})) << b << "," << h << "," << n;
        nonzero += e.get({0}) != 0;
      }
  EXPECT_GT(nonzero, 40);
}

TEST(Fp8Einsum, BadInputNamesArgumentAndRule) {
  auto rng = test::rng_for_current_test();
  const OpCase good = Registry::instance().get("fp8_einsum").generate(rng, Json{{"B", 2}, {"H", 2}, {"R", 128}, {"D", 8}});
  auto expect_err = [](OpCase c, const std::string& needle) {
    try {
      run_reference("fp8_einsum", std::move(c));
      ADD_FAILURE() << "no InputError for " << needle;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  OpCase c = good;
  c.attrs["recipe"] = "1,1,128";  // w_sf is [H, 1, 1] for D = 8: per-row needs [H, 8, 1]
  expect_err(c, "w_sf");
  c = good;
  c.inputs["w"] = Tensor::empty(DType::F8_E4M3FN, {3, 8, 128});
  expect_err(c, "H (x.size(1))");
  c = good;
  c.attrs["expr"] = "bhd,hdr->bhr";
  expect_err(c, "expr");
}

}  // namespace
}  // namespace dsv4
