// inv_rope_fp8_quant reference; see inv_rope_fp8_quant.hpp. Tokens are independent: OpenMP across T.
#include "reference/ops/inv_rope_fp8_quant/inv_rope_fp8_quant.hpp"

#include <fmt/format.h>

#include "reference/ops/common/checks.hpp"
#include "reference/ops/common/gemm_matrix.hpp"
#include "reference/ops/common/quant_op_attrs.hpp"
#include "reference/ops/common/rope_apply.hpp"

namespace dsv4::ops {

namespace {
constexpr const char* kOp = "inv_rope_fp8_quant";
}

Outputs inv_rope_fp8_quant_reference(const OpCase& c) {
  const Tensor& o = c.in("o");
  const Tensor& pos = c.in("positions");
  const Tensor& cache = c.in("cos_sin_cache");
  checks::rank(kOp, "o", o, 3, "[T, H, 512]");
  checks::dtype_in(kOp, "o", o, {DType::BF16});
  const std::int64_t T = o.size(0), H = o.size(1), hd = o.size(2);
  checks::rank(kOp, "positions", pos, 1, "[T]");
  checks::dim_eq(kOp, "positions", pos, 0, T, "T");
  checks::rank(kOp, "cos_sin_cache", cache, 2, "[max_pos, rope_dim]");
  const quant::QuantAttrs a = quant::read_quant_attrs(kOp, c);
  const std::int64_t G = c.attrs.at("n_groups").get<std::int64_t>();
  const std::int64_t rope_dim = c.attrs.at("rope_dim").get<std::int64_t>();
  const rope::Pairing pairing = rope::parse_pairing(c.attrs.at("pairing").get<std::string>());
  checks::require(G > 0 && H % G == 0, kOp, "n_groups", fmt::format("= {} must be > 0 and divide H = {}", G, H));
  checks::require(rope_dim > 0 && rope_dim % 2 == 0 && rope_dim <= hd, kOp, "rope_dim",
                  fmt::format("= {} must be even, > 0 and <= head dim {}", rope_dim, hd));
  checks::dim_eq(kOp, "cos_sin_cache", cache, 1, rope_dim, "rope_dim");
  checks::require(hd % a.group_size == 0, kOp, "group_size",
                  fmt::format("= {} must divide the head dim {}", a.group_size, hd));
  checks::require(a.layout != quant::ScaleLayout::row_major, kOp, "scale_layout", "must be mn_major or packed_ue8m0");
  checks::require(a.layout != quant::ScaleLayout::packed_ue8m0 || hd == 4 * a.group_size, kOp, "scale_layout",
                  "packed_ue8m0 packs the 4 groups of a head into one word: needs head dim = 4·group_size");
  const std::int64_t max_pos = cache.size(0), D = (H / G) * hd, ng = D / a.group_size, Tal = quant::align4(T);
  std::vector<std::int64_t> p(T);
  for (std::int64_t t = 0; t < T; ++t) {
    p[t] = static_cast<std::int64_t>(pos.get({t}));
    checks::require(0 <= p[t] && p[t] < max_pos, kOp, "positions",
                    fmt::format("[{}] = {} must lie in [0, max_pos = {})", t, p[t], max_pos));
  }
  const gemm::MatD CS = gemm::to_matrix(cache);
  // Rotated rows [T·G, D] as float (grouped heads are contiguous within a row).
  std::vector<float> rows(static_cast<std::size_t>(T * G * D));
#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < T; ++t) {
    const gemm::MatD heads = gemm::to_matrix(o.select(0, t));  // [H, hd]
    std::vector<double> x(hd);
    for (std::int64_t h = 0; h < H; ++h) {
      for (std::int64_t d = 0; d < hd; ++d) x[d] = heads(h, d);
      rope::apply(x.data() + (hd - rope_dim), static_cast<int>(rope_dim), CS.row(p[t]).data(), pairing, true);
      const std::int64_t g = h / (H / G), off = (h % (H / G)) * hd;
      for (std::int64_t d = 0; d < hd; ++d) rows[(t * G + g) * D + off + d] = static_cast<float>(x[d]);
    }
  }
  formats::Quantized2D q;
  try {
    q = formats::quantize_per_token_group(a.recipe, rows, T * G, D, a.group_size, a.fp8, a.opt);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string(kOp) + ": attribute 'scale_recipe': " + e.what());
  }
  Tensor store = Tensor::empty(a.fp8_dtype, {G, T, D});
  for (std::int64_t t = 0; t < T; ++t)
    for (std::int64_t g = 0; g < G; ++g)
      for (std::int64_t d = 0; d < D; ++d) store.set_code({g, t, d}, q.codes[(t * G + g) * D + d]);
  Tensor o_fp8 = store.as_strided({T, G, D}, {D, T * D, 1}, 0);
  Tensor o_scale;
  if (a.layout == quant::ScaleLayout::mn_major) {
    Tensor s = Tensor::empty(DType::F32, {G, ng, Tal});
    s.fill_bytes(0);
    for (std::int64_t t = 0; t < T; ++t)
      for (std::int64_t g = 0; g < G; ++g)
        for (std::int64_t k = 0; k < ng; ++k) s.set({g, k, t}, q.scales[(t * G + g) * ng + k]);
    o_scale = s.as_strided({G, Tal, ng}, {ng * Tal, 1, Tal}, 0);
  } else {
    const std::int64_t nw = ng / 4;
    Tensor s = Tensor::empty(DType::I32, {G, nw, Tal});
    s.fill_bytes(0);
    for (std::int64_t t = 0; t < T; ++t)
      for (std::int64_t g = 0; g < G; ++g)
        for (std::int64_t k = 0; k < ng; ++k) {
          const std::uint32_t byte = quant::scale_byte(kOp, q, static_cast<std::size_t>((t * G + g) * ng + k));
          const auto w = static_cast<std::uint32_t>(s.code({g, k / 4, t}));
          s.set_code({g, k / 4, t}, w | (byte << (8 * (k % 4))));
        }
    o_scale = s.as_strided({G, Tal, nw}, {nw * Tal, 1, Tal}, 0);
  }
  return {{"o_fp8", o_fp8}, {"o_scale", o_scale}};
}

}  // namespace dsv4::ops
