// Helpers shared by the oracle tests: seeded random tensors and a skinny-GEMM-like case with its
// float64 product, sum |a b| per output and the per-element error bound (oracle/error_models.hpp).
#pragma once
#include <cmath>
#include <random>
#include <vector>

#include "oracle/error_models.hpp"
#include "reference/tensor/tensor.hpp"

namespace dsv4::oracle::testutil {

inline Tensor randn(DType t, Shape s, std::mt19937_64& rng, double scale = 1.0) {
  std::normal_distribution<double> nd(0.0, 1.0);
  std::vector<double> v(static_cast<std::size_t>(shape_numel(s)));
  for (auto& x : v) x = nd(rng) * scale;
  return Tensor::from_f64(t, s, v);
}

// out[n,m] = sum_k a[n,k] b[m,k] in float64, optionally without the K-range [drop_lo, drop_hi) in
// rows where drop_row(n) is true (a dropped K-shard: its partial sum never reached those rows).
struct GemmCase {
  Tensor a, b;            // bf16 [N,K], [M,K]
  std::vector<double> exact, sum_abs;  // [N*M]
  std::vector<double> A, B;            // a, b decoded (row-major)
  std::int64_t N = 0, M = 0, K = 0;
};

inline GemmCase make_gemm(std::int64_t N, std::int64_t M, std::int64_t K, double a_scale, double b_scale,
                          std::mt19937_64& rng) {
  GemmCase g{randn(DType::BF16, {N, K}, rng, a_scale), randn(DType::BF16, {M, K}, rng, b_scale), {}, {}, {}, {}, N, M, K};
  g.A = g.a.to_f64(), g.B = g.b.to_f64();
  const auto &A = g.A, &B = g.B;
  g.exact.assign(static_cast<std::size_t>(N * M), 0);
  g.sum_abs.assign(static_cast<std::size_t>(N * M), 0);
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t m = 0; m < M; ++m) {
      double s = 0, sa = 0;
      for (std::int64_t k = 0; k < K; ++k) {
        double p = A[n * K + k] * B[m * K + k];
        s += p;
        sa += std::fabs(p);
      }
      g.exact[n * M + m] = s;
      g.sum_abs[n * M + m] = sa;
    }
  return g;
}

// The gemm output with the K-shard [lo, hi) missing from rows where drop(n), rounded to dtype t.
template <class Pred>
Tensor gemm_with_dropped_shard(const GemmCase& g, std::int64_t lo, std::int64_t hi, Pred drop, DType t) {
  const auto &A = g.A, &B = g.B;
  std::vector<double> out(g.exact);
  for (std::int64_t n = 0; n < g.N; ++n) {
    if (!drop(n)) continue;
    for (std::int64_t m = 0; m < g.M; ++m) {
      double part = 0;
      for (std::int64_t k = lo; k < hi; ++k) part += A[n * g.K + k] * B[m * g.K + k];
      out[n * g.M + m] -= part;
    }
  }
  return Tensor::from_f64(t, {g.N, g.M}, out);
}

// Per-element bound tensor: worst-case (gamma_K) or probabilistic (lambda sqrt(K) u) model.
inline Tensor gemm_bound(const GemmCase& g, DType t, bool probabilistic = false) {
  std::vector<double> b(g.exact.size());
  for (std::size_t i = 0; i < b.size(); ++i)
    b[i] = probabilistic ? probabilistic_dot_product_bound(g.K, g.sum_abs[i], g.exact[i], t)
                         : dot_product_bound(g.K, g.sum_abs[i], g.exact[i], t);
  return Tensor::from_f64(DType::F64, {g.N, g.M}, b);
}

// What a correct split-K kernel computes: fp32 partial sums over shards of `shard` elements
// (sequential within a shard), the partials summed in fp32 in shard order, one rounding to t.
inline Tensor gemm_fp32_split_k(const GemmCase& g, std::int64_t shard, DType t) {
  const auto &A = g.A, &B = g.B;
  std::vector<double> out(g.exact.size());
  for (std::int64_t n = 0; n < g.N; ++n)
    for (std::int64_t m = 0; m < g.M; ++m) {
      float total = 0.f;
      for (std::int64_t k0 = 0; k0 < g.K; k0 += shard) {
        float part = 0.f;
        for (std::int64_t k = k0; k < std::min(g.K, k0 + shard); ++k)
          part += static_cast<float>(A[n * g.K + k]) * static_cast<float>(B[m * g.K + k]);
        total += part;
      }
      out[n * g.M + m] = total;
    }
  return Tensor::from_f64(t, {g.N, g.M}, out);
}

}  // namespace dsv4::oracle::testutil
