// Lightning-indexer score; see indexer_core.hpp.
#include "reference/ops/indexer_logits/indexer_core.hpp"

#include <stdexcept>

#include "reference/ops/common/blas_gemm.hpp"

namespace dsv4::ops::indexer {

Dot parse_dot(const std::string& s) {
  if (s == "fp32") return Dot::fp32;
  if (s == "bf16") return Dot::bf16;
  throw std::invalid_argument("unknown dot variant '" + s + "' (fp32, bf16)");
}

void score_row(const Eigen::Ref<const gemm::MatD>& Q, const Eigen::Ref<const gemm::MatD>& K, const double* sf, const double* w, Dot dot, double* out) {
  const Eigen::Index n = K.rows(), H = Q.rows();
  if (n == 0) return;
  const gemm::MatD S = gemm::product_nt(K, Q);  // n × H dots
  for (Eigen::Index j = 0; j < n; ++j) {
    double acc = 0;
    for (Eigen::Index h = 0; h < H; ++h) {
      const double d = dot == Dot::bf16 ? gemm::round_to_bf16(S(j, h)) : S(j, h);
      const double v = d * sf[j];
      acc += (v > 0 ? v : 0.0) * w[h];
    }
    out[j] = acc;
  }
}

}  // namespace dsv4::ops::indexer
