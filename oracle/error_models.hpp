// Building blocks for per-element error bounds (the error-bound policy), in the standard forward
// error analysis of floating-point summation (Higham, "Accuracy and Stability of Numerical
// Algorithms", ch. 3): a K-term sum of products accumulated in a format with unit roundoff u, in any
// order, satisfies |fl(sum) - sum| <= gamma_K * sum |a_i b_i| with gamma_K = K u / (1 - K u).
// The kernel's result is then rounded to the output dtype, and so is the float64 reference, so the
// two differ by at most gamma_K * S + one ulp of the output at |y| + gamma_K * S.
#pragma once
#include <cstdint>

#include "reference/tensor/dtype.hpp"

namespace dsv4::oracle {

inline constexpr double kUnitRoundoffF32 = 0x1p-24;

// gamma_n = n u / (1 - n u); +inf when n u >= 1 (the bound is void).
double gamma_n(std::int64_t n, double u = kUnitRoundoffF32);

// Spacing of dtype t's values at magnitude |v| (the ulp of the binade holding |v|; the subnormal
// spacing below the smallest normal). Integers: 1. F64/F32/F16/BF16 and fp8/e8m0 formats.
double ulp_at(DType t, double v);

// Bound on |kernel - reference| for one output element of an fp32-accumulated dot product:
// gamma_K(u) * sum_abs_products + ulp_at(out, |exact| + gamma_K(u) * sum_abs_products).
double dot_product_bound(std::int64_t K, double sum_abs_products, double exact, DType out,
                         double u = kUnitRoundoffF32);

// Probabilistic variant (Higham & Mary, "A new approach to probabilistic rounding error analysis",
// SISC 2019): modelling rounding errors as independent and mean zero, |fl(sum) - sum| <=
// lambda * sqrt(K) * u * S except with probability about 2 K exp(-lambda^2 / 2) (lambda = 8: below
// 1e-9 per element for K <= 1e5). sqrt(K) times tighter than the worst case, which makes it the
// bound that separates a dropped K-shard from accumulation noise (tests/oracle/test_dropped_shard.cpp).
double probabilistic_dot_product_bound(std::int64_t K, double sum_abs_products, double exact, DType out,
                                       double lambda = 8.0, double u = kUnitRoundoffF32);

}  // namespace dsv4::oracle
