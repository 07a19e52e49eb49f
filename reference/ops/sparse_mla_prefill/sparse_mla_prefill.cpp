// Float64 reference of sparse_mla_prefill; see sparse_mla_prefill.hpp.
#include "reference/ops/sparse_mla_prefill/sparse_mla_prefill.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include <omp.h>

#include "reference/formats/rne_fast.hpp"
#include "reference/ops/common/attn_io.hpp"
#include "reference/ops/common/attn_sparse_core.hpp"
#include "reference/ops/common/checks.hpp"

namespace dsv4 {

namespace {
constexpr const char* kOp = "sparse_mla_prefill";
}

Outputs sparse_mla_prefill_reference(const OpCase& c) {
  using namespace attn;
  const Tensor& q = c.in("q");
  const Tensor& kv = c.in("kv");
  const Tensor& idx = c.in("indices");
  checks::dtype_in(kOp, "q", q, {DType::BF16});
  checks::dtype_in(kOp, "kv", kv, {DType::BF16});
  checks::dtype_in(kOp, "indices", idx, {DType::I32});
  checks::rank(kOp, "q", q, 3, "[s_q, h_q, d_qk]");
  checks::rank(kOp, "kv", kv, 3, "[s_kv, 1, d_qk]");
  checks::rank(kOp, "indices", idx, 3, "[s_q, 1, topk]");
  const std::int64_t s_q = q.size(0), h_q = q.size(1), d_qk = q.size(2), s_kv = kv.size(0), topk = idx.size(2);
  checks::dim_eq(kOp, "kv", kv, 1, 1, "h_kv");
  checks::dim_eq(kOp, "kv", kv, 2, d_qk, "d_qk (q.size(2))");
  checks::dim_eq(kOp, "indices", idx, 0, s_q, "s_q");
  checks::dim_eq(kOp, "indices", idx, 1, 1, "h_kv");
  checks::last_dim_contiguous(kOp, "q", q);
  checks::last_dim_contiguous(kOp, "kv", kv);
  const Tensor* sink = c.has("attn_sink") ? &c.in("attn_sink") : nullptr;
  const Tensor* tl = c.has("topk_length") ? &c.in("topk_length") : nullptr;
  if (sink) {
    checks::dtype_in(kOp, "attn_sink", *sink, {DType::F32});
    checks::rank(kOp, "attn_sink", *sink, 1, "[h_q]");
    checks::dim_eq(kOp, "attn_sink", *sink, 0, h_q, "h_q");
  }
  if (tl) {
    checks::dtype_in(kOp, "topk_length", *tl, {DType::I32});
    checks::rank(kOp, "topk_length", *tl, 1, "[s_q]");
    checks::dim_eq(kOp, "topk_length", *tl, 0, s_q, "s_q");
  }
  const double sm_scale = attr_double(kOp, c.attrs, "sm_scale");
  const std::int64_t d_v = attr_present(c.attrs, "d_v") ? attr_int(kOp, c.attrs, "d_v") : 512;
  checks::require(d_v >= 1 && d_v <= d_qk, kOp, "d_v", fmt::format("must be in [1, d_qk = {}], got {}", d_qk, d_v));
  const std::string units = attr_string_or(kOp, c.attrs, "lse_units", "ln");
  const std::string lonely = attr_string_or(kOp, c.attrs, "lonely_lse", "+inf");
  const std::string pround = attr_string_or(kOp, c.attrs, "p_rounding", "none");
  const std::string nanpol = attr_string_or(kOp, c.attrs, "nan_beyond_topk_length", "must_ignore");
  checks::require(units == "ln" || units == "log2", kOp, "lse_units", "must be 'ln' or 'log2'");
  checks::require(lonely == "+inf" || lonely == "-inf", kOp, "lonely_lse", "must be '+inf' or '-inf'");
  checks::require(pround == "none" || pround == "bf16", kOp, "p_rounding", "must be 'none' or 'bf16'");
  checks::require(nanpol == "must_ignore" || nanpol == "forbidden", kOp, "nan_beyond_topk_length",
                  "must be 'must_ignore' or 'forbidden'");

  // Per-row valid lengths (checked before anything is computed).
  std::vector<std::int64_t> len(static_cast<std::size_t>(s_q), topk);
  if (tl)
    for (std::int64_t i = 0; i < s_q; ++i) {
      const std::int64_t v = load_index(*tl, i * tl->stride(0));
      checks::require(v >= 0 && v <= topk, kOp, "topk_length",
                      fmt::format("topk_length[{}] = {} must be in [0, topk = {}]", i, v, topk));
      len[i] = v;
    }
  auto index_at = [&](std::int64_t i, std::int64_t j) { return load_index(idx, i * idx.stride(0) + j * idx.stride(2)); };
  if (nanpol == "forbidden" && tl)
    for (std::int64_t i = 0; i < s_q; ++i)
      for (std::int64_t j = len[i]; j < topk; ++j) {
        const std::int64_t r = index_at(i, j);
        if (r < 0 || r >= s_kv) continue;
        for (std::int64_t d = 0; d < d_qk; ++d)
          checks::require(!std::isnan(load_bf16(kv, r * kv.stride(0) + d)), kOp, "kv",
                          fmt::format("row {} holds NaN and is referenced past topk_length by indices[{}, 0, {}] "
                                      "(nan_beyond_topk_length = forbidden)", r, i, j));
      }

  Tensor out = Tensor::empty(DType::BF16, {s_q, h_q, d_v});
  Tensor max_logits = Tensor::empty(DType::F32, {s_q, h_q});
  Tensor lse = Tensor::empty(DType::F32, {s_q, h_q});
  std::vector<float> sink_v;
  if (sink) for (std::int64_t h = 0; h < h_q; ++h) sink_v.push_back(static_cast<float>(load_float(*sink, h * sink->stride(0))));
  CoreOptions co;
  co.scale = sm_scale;
  co.sink = sink ? sink_v.data() : nullptr;
  co.p_bf16 = pround == "bf16";
  const double unit = units == "log2" ? 1.0 / std::numbers::ln2 : 1.0;
  const double lonely_lse = lonely == "+inf" ? std::numeric_limits<double>::infinity()
                                             : -std::numeric_limits<double>::infinity();

  // Parallel over (token, head block) items; see head_split. The hot loops read and write through typed
  // pointers (q and kv have unit last stride, out is contiguous).
  const std::uint16_t* qp = q.ptr<std::uint16_t>();
  const std::uint16_t* kvp = kv.ptr<std::uint16_t>();
  std::uint16_t* outp = out.ptr<std::uint16_t>();
  const HeadSplit hs = head_split(s_q, h_q, omp_get_max_threads());
#pragma omp parallel
  {
    std::vector<double> qrows(static_cast<std::size_t>(hs.size * d_qk)), krows,
        o(static_cast<std::size_t>(hs.size * d_v)), ml(static_cast<std::size_t>(hs.size)),
        ls(static_cast<std::size_t>(hs.size)), work;
    CoreOptions cb = co;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t item = 0; item < s_q * hs.blocks; ++item) {
      const std::int64_t i = item / hs.blocks, h0 = (item % hs.blocks) * hs.size;
      const std::int64_t hn = std::min(hs.size, h_q - h0);
      if (hn <= 0) continue;
      for (std::int64_t h = 0; h < hn; ++h) {
        const std::uint16_t* src = qp + i * q.stride(0) + (h0 + h) * q.stride(1);
        for (std::int64_t d = 0; d < d_qk; ++d) qrows[h * d_qk + d] = formats::bf16_to_double(src[d]);
      }
      krows.resize(static_cast<std::size_t>(len[i] * d_qk));
      std::int64_t n = 0;
      for (std::int64_t j = 0; j < len[i]; ++j) {
        const std::int64_t r = index_at(i, j);
        if (r < 0 || r >= s_kv) continue;
        const std::uint16_t* src = kvp + r * kv.stride(0);
        double* dst = krows.data() + n * d_qk;
        for (std::int64_t d = 0; d < d_qk; ++d) dst[d] = formats::bf16_to_double(src[d]);
        ++n;
      }
      cb.sink = co.sink ? co.sink + h0 : nullptr;
      attend_rows(qrows.data(), static_cast<int>(hn), static_cast<int>(d_qk), krows.data(), n,
                  static_cast<int>(d_v), cb, o.data(), ml.data(), ls.data(), work);
      for (std::int64_t hh = 0; hh < hn; ++hh) {
        const std::int64_t h = h0 + hh;
        const bool is_lonely = ls[hh] == std::numeric_limits<double>::infinity() &&
                               ml[hh] == -std::numeric_limits<double>::infinity();
        store_f32(lse, i * h_q + h, is_lonely ? lonely_lse : ls[hh] * unit);
        store_f32(max_logits, i * h_q + h, ml[hh] * unit);
        std::uint16_t* dst = outp + (i * h_q + h) * d_v;
        for (std::int64_t d = 0; d < d_v; ++d) dst[d] = formats::bf16_rne(o[hh * d_v + d]);
      }
    }
  }
  return {{"out", out}, {"max_logits", max_logits}, {"lse", lse}};
}

}  // namespace dsv4
