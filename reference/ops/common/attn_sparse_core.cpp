// Float64 sparse-attention core; see attn_sparse_core.hpp.
#include "reference/ops/common/attn_sparse_core.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Dense>

#include "reference/formats/format.hpp"
#include "reference/ops/common/blas_gemm.hpp"
#include "reference/formats/rne_fast.hpp"

namespace dsv4::attn {

namespace {
using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

double round_to_bf16(double x) { return formats::bf16_to_double(formats::bf16_rne(x)); }

HeadSplit head_split(std::int64_t tokens, std::int64_t h, int threads) {
  std::int64_t blocks = tokens >= 2 * threads ? 1 : (2 * threads + tokens - 1) / std::max<std::int64_t>(tokens, 1);
  blocks = std::clamp<std::int64_t>(blocks, 1, std::max<std::int64_t>(1, h / 8));
  const std::int64_t size = (h + blocks - 1) / std::max<std::int64_t>(blocks, 1);
  return {size > 0 ? (h + size - 1) / size : 1, std::max<std::int64_t>(size, 1)};
}

double logaddexp(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  if (a == -kInf) return b;
  if (b == -kInf) return a;
  if (a == kInf || b == kInf) return kInf;
  const double m = std::max(a, b);
  return m + std::log1p(std::exp(-std::fabs(a - b)));
}

void attend_rows(const double* q, int h, int d_qk, const double* k, std::int64_t n, int d_v, const CoreOptions& o,
                 double* out, double* max_logits, double* lse, std::vector<double>& work) {
  Eigen::Map<RowMat> O(out, h, d_v);
  if (n == 0) {
    O.setZero();
    for (int i = 0; i < h; ++i) { max_logits[i] = -kInf; lse[i] = kInf; }
    return;
  }
  Eigen::Map<const RowMat> Q(q, h, d_qk);
  Eigen::Map<const RowMat> K(k, n, d_qk);
  work.resize(static_cast<std::size_t>(h) * n);
  Eigen::Map<RowMat> S(work.data(), h, n);
  gemm::product_nt(Q, K, S);
  S *= o.scale;
  std::vector<char> lonely(h, 0);
  for (int i = 0; i < h; ++i) {
    double* s = S.row(i).data();
    double m = -kInf;
    bool nan = false;
    for (std::int64_t j = 0; j < n; ++j) {
      if (std::isnan(s[j])) nan = true;
      else m = std::max(m, s[j]);
    }
    if (nan) m = std::numeric_limits<double>::quiet_NaN();
    double l = 0;
    if (m == -kInf) {
      l = 0;
    } else {
      for (std::int64_t j = 0; j < n; ++j) l += (s[j] = std::exp(s[j] - m));  // m = +inf gives NaN, as the math does
    }
    if (l == 0) {  // every logit -inf: the kernels' rL == 0 epilogue
      lonely[i] = 1;
      max_logits[i] = -kInf;
      lse[i] = kInf;
      for (std::int64_t j = 0; j < n; ++j) s[j] = 0;
      continue;
    }
    const double lse_i = m + std::log(l);
    max_logits[i] = m;
    lse[i] = lse_i;
    const double lse_o = o.sink ? logaddexp(lse_i, static_cast<double>(o.sink[i])) : lse_i;
    // s holds exp(P - m), each exponential taken once; the probabilities are exp(P - m) · exp(m - lse_o)
    // (float64: a rounding or two from exp(P - lse_o), not budgeted by the error model), and with
    // p_rounding = bf16 the unnormalised exp(P - m) is rounded first, the normaliser exact.
    const double f = std::exp(m - lse_o);
    if (!o.p_bf16) {
      for (std::int64_t j = 0; j < n; ++j) s[j] *= f;
    } else {
      for (std::int64_t j = 0; j < n; ++j) s[j] = round_to_bf16(s[j]) * f;
    }
  }
  gemm::product_nn(S, K.leftCols(d_v), O);
  for (int i = 0; i < h; ++i)
    if (lonely[i]) O.row(i).setZero();
}

}  // namespace dsv4::attn
