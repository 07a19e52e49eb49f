// Error bound of the indexer kernels; see indexer_bound.hpp.
#include "reference/ops/indexer_logits/indexer_bound.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "reference/ops/common/gemm_matrix.hpp"
#include "reference/ops/indexer_logits/indexer_logits.hpp"
#include "reference/ops/indexer_logits_paged/indexer_logits_paged.hpp"

namespace dsv4::ops::indexer {

namespace {
constexpr double kU = 0x1p-24;  // fp32 unit roundoff

double gamma(double n) { return n * kU >= 1 ? std::numeric_limits<double>::infinity() : n * kU / (1 - n * kU); }

// Spacing of a binary grid with `p` significant bits at magnitude v (fp32 p = 24, bf16 p = 8; min normal 2^-126).
double spacing(int p, double v) {
  int e = -126;
  if (v > 0 && std::isfinite(v)) {
    std::frexp(v, &e);
    e = std::max(e - 1, -126);
  }
  return std::ldexp(1.0, e - (p - 1));
}
}  // namespace

ScoreBound score_bound(const double* q, const double* k, std::int64_t H, std::int64_t D, double sf, const double* w,
                       Dot dot) {
  const double gD = gamma(static_cast<double>(D)), gH = gamma(static_cast<double>(H + 1));
  double exact = 0, dots = 0, heads = 0;
  for (std::int64_t h = 0; h < H; ++h) {
    double d = 0, abs = 0;
    for (std::int64_t i = 0; i < D; ++i) {
      d += q[h * D + i] * k[i];
      abs += std::fabs(q[h * D + i] * k[i]);
    }
    double e = gD * abs;
    if (dot == Dot::bf16) {
      e += spacing(8, std::fabs(d) + e);
      d = gemm::round_to_bf16(d);
    }
    const double v = d * sf;
    const double r = v > 0 ? v : 0.0;  // the reference's relu(dot'·sf)
    const double aw = std::fabs(w[h]);
    exact += r * w[h];
    dots += sf * aw * e;
    heads += (r + sf * e) * aw;
  }
  double b = dots + gH * heads;
  b += kU * (std::fabs(exact) + b) + static_cast<double>(H + 2) * std::ldexp(1.0, -149);
  b += spacing(24, std::fabs(exact) + b);
  return {exact, std::isfinite(b) ? b : std::numeric_limits<double>::infinity()};
}

std::map<std::string, Tensor> indexer_logits_error_bound(const OpCase& in, const Outputs& expected) {
  OpCase c = in;
  validate_case(indexer_logits_descriptor(), c);  // attribute defaults, dtypes
  (void)indexer_logits_reference(c);              // the op's own argument checks
  const Tensor& q = c.in("q");
  const std::int64_t S = q.size(0), H = q.size(1), D = q.size(2);
  const Dot dot = parse_dot(c.attrs.at("dot").get<std::string>());
  const std::int64_t msk = c.attrs.at("max_seqlen_k").get<std::int64_t>();
  const gemm::MatD KV = gemm::to_matrix(c.in("kv"));
  const gemm::MatD W = gemm::to_matrix(c.in("weights"));
  const std::vector<double> sf = gemm::to_vector(c.in("kv_sf"));
  const Tensor& logits = expected.at("logits");
  const std::int64_t width = logits.size(1);
  Tensor t = Tensor::empty(DType::F64, {S, width});
  t.fill(0.0);
  double* out = t.ptr<double>();
  for (std::int64_t i = 0; i < S; ++i) {
    const auto ks = static_cast<std::int64_t>(c.in("cu_seq_len_k_start").get({i}));
    const auto ke = static_cast<std::int64_t>(c.in("cu_seq_len_k_end").get({i}));
    const gemm::MatD Qi = gemm::to_matrix(q.select(0, i));
    for (std::int64_t j = ks; j < ke; ++j) {
      const std::int64_t col = msk > 0 ? j - ks : j;
      out[i * width + col] = score_bound(Qi.data(), KV.row(j).data(), H, D, sf[j], W.row(i).data(), dot).bound;
    }
  }
  return {{"logits", t}};
}

std::map<std::string, Tensor> indexer_logits_paged_error_bound(const OpCase& in, const Outputs& expected) {
  OpCase c = in;
  validate_case(indexer_logits_paged_descriptor(), c);  // attribute defaults, dtypes
  (void)indexer_logits_paged_reference(c);  // the op's own checks (block ids, context lengths, cache layout)
  const Tensor& q = c.in("q");
  const Tensor& cache = c.in("kv_cache");
  const Tensor& bt = c.in("block_table");
  const std::int64_t B = q.size(0), next_n = q.size(1), H = q.size(2), D = q.size(3), block_kv = cache.size(1);
  const Dot dot = parse_dot(c.attrs.at("dot").get<std::string>());
  const gemm::Decoder dec(q.dtype());  // cache bytes are fp8 codes in q's format
  const gemm::MatD W = gemm::to_matrix(c.in("weights"));
  const std::int64_t width = expected.at("logits").size(1);
  Tensor t = Tensor::empty(DType::F64, {B * next_n, width});
  t.fill(0.0);
  double* out = t.ptr<double>();
  std::vector<double> key(static_cast<std::size_t>(D));
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t j = 0; j < next_n; ++j) {
      const std::int64_t r = b * next_n + j;
      const auto L = static_cast<std::int64_t>(c.in("context_lens").get({b, j}));
      const gemm::MatD Qr = gemm::to_matrix(q.select(0, b).select(0, j));
      for (std::int64_t k = 0; k < L; ++k) {
        const auto blk = static_cast<std::int64_t>(bt.get({b, k / block_kv}));
        const std::byte* base = cache.data() + blk * block_kv * (D + 4);
        for (std::int64_t d = 0; d < D; ++d) key[static_cast<std::size_t>(d)] = dec(base + (k % block_kv) * D + d);
        float s;
        std::memcpy(&s, base + block_kv * D + 4 * (k % block_kv), 4);
        out[r * width + k] = score_bound(Qr.data(), key.data(), H, D, s, W.row(r).data(), dot).bound;
      }
    }
  return {{"logits", t}};
}

}  // namespace dsv4::ops::indexer
