// Float64 reference of sparse_mla_decode; see sparse_mla_decode.hpp.
#include "reference/ops/sparse_mla_decode/sparse_mla_decode.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <omp.h>

#include "reference/ops/common/attn_io.hpp"
#include "reference/ops/common/attn_sparse_core.hpp"
#include "reference/ops/common/checks.hpp"
#include "reference/ops/common/kv_cache_layout.hpp"

namespace dsv4 {

namespace {
constexpr const char* kOp = "sparse_mla_decode";

struct IndexSet {
  const Tensor* idx = nullptr;
  std::vector<std::int64_t> len;  // per batch
  kv::CacheView cache;
};

IndexSet index_set(const OpCase& c, const char* cache_arg, const char* idx_arg, const char* len_arg, kv::CacheLayout l,
                   std::int64_t b, std::int64_t s_q) {
  IndexSet r;
  r.cache = kv::cache_view(kOp, cache_arg, c.in(cache_arg), l);
  r.idx = &c.in(idx_arg);
  checks::dtype_in(kOp, idx_arg, *r.idx, {DType::I32});
  checks::rank(kOp, idx_arg, *r.idx, 3, "[b, s_q, topk]");
  checks::dim_eq(kOp, idx_arg, *r.idx, 0, b, "b");
  checks::dim_eq(kOp, idx_arg, *r.idx, 1, s_q, "s_q");
  const std::int64_t topk = r.idx->size(2);
  r.len.assign(static_cast<std::size_t>(b), topk);
  if (c.has(len_arg)) {
    const Tensor& tl = c.in(len_arg);
    checks::dtype_in(kOp, len_arg, tl, {DType::I32});
    checks::rank(kOp, len_arg, tl, 1, "[b]");
    checks::dim_eq(kOp, len_arg, tl, 0, b, "b");
    for (std::int64_t i = 0; i < b; ++i) {
      const std::int64_t v = attn::load_index(tl, i * tl.stride(0));
      checks::require(v >= 0 && v <= topk, kOp, len_arg, fmt::format("{}[{}] = {} must be in [0, {}]", len_arg, i, v, topk));
      r.len[i] = v;
    }
  }
  const Tensor& ix = *r.idx;
  for (std::int64_t i = 0; i < b; ++i)
    for (std::int64_t s = 0; s < s_q; ++s)
      for (std::int64_t j = 0; j < r.len[i]; ++j) {
        const std::int64_t v = attn::load_index(ix, i * ix.stride(0) + s * ix.stride(1) + j * ix.stride(2));
        checks::require(v == -1 || (v >= 0 && v < r.cache.num_slots()), kOp, idx_arg,
                        fmt::format("{}[{}, {}, {}] = {}: only -1 is invalid; other values must be slots in [0, {}) "
                                    "(decode_invalid:minus1_only precondition)", idx_arg, i, s, j, v,
                                    r.cache.num_slots()));
      }
  return r;
}
}  // namespace

Outputs sparse_mla_decode_reference(const OpCase& c) {
  using namespace attn;
  const std::string layout_s = attr_string(kOp, c.attrs, "cache_layout");
  const auto layout = kv::parse_cache_layout(layout_s);
  checks::require(layout.has_value(), kOp, "cache_layout", "must be V32_FP8Sparse or MODEL1_FP8Sparse");
  const kv::LayoutInfo& li = kv::layout_info(*layout);
  const Tensor& q = c.in("q");
  checks::dtype_in(kOp, "q", q, {DType::BF16});
  checks::rank(kOp, "q", q, 4, "[b, s_q, h_q, d_qk]");
  checks::dim_eq(kOp, "q", q, 3, li.d_qk, fmt::format("d_qk of {}", layout_s));
  checks::last_dim_contiguous(kOp, "q", q);
  const std::int64_t b = q.size(0), s_q = q.size(1), h_q = q.size(2), d_qk = li.d_qk;
  const std::int64_t d_v = attr_present(c.attrs, "head_dim_v") ? attr_int(kOp, c.attrs, "head_dim_v") : 512;
  checks::require(d_v >= 1 && d_v <= d_qk, kOp, "head_dim_v", fmt::format("must be in [1, {}], got {}", d_qk, d_v));
  const double scale = attr_present(c.attrs, "softmax_scale") ? attr_double(kOp, c.attrs, "softmax_scale")
                                                              : 1.0 / std::sqrt(static_cast<double>(d_qk));
  kv::DequantOptions dq;
  const auto mode = kv::parse_kv_dequant(attr_string_or(kOp, c.attrs, "kv_dequant", "exact"));
  checks::require(mode.has_value(), kOp, "kv_dequant", "must be exact, fp32_product or bf16_product");
  dq.mode = *mode;
  const std::string f8 = attr_string_or(kOp, c.attrs, "fp8_format", "e4m3fn");
  checks::require(f8 == "e4m3fn" || f8 == "e4m3fnuz", kOp, "fp8_format", "must be e4m3fn or e4m3fnuz");
  dq.fp8 = f8 == "e4m3fn" ? formats::Format::e4m3fn : formats::Format::e4m3fnuz;
  const std::string e8 = attr_string_or(kOp, c.attrs, "e8m0_decode", "exact");
  checks::require(e8 == "exact" || e8 == "shift23", kOp, "e8m0_decode", "must be exact or shift23");
  dq.e8m0_shift23 = e8 == "shift23";
  const std::string pround = attr_string_or(kOp, c.attrs, "p_rounding", "none");
  checks::require(pround == "none" || pround == "bf16", kOp, "p_rounding", "must be 'none' or 'bf16'");

  std::vector<IndexSet> sets;
  sets.push_back(index_set(c, "k_cache", "indices", "topk_length", *layout, b, s_q));
  const bool has_extra = c.has("extra_k_cache") || c.has("extra_indices_in_kvcache");
  checks::require(!c.has("extra_topk_length") || has_extra, kOp, "extra_topk_length",
                  "given without extra_k_cache / extra_indices_in_kvcache");
  if (has_extra) {
    checks::require(c.has("extra_k_cache") && c.has("extra_indices_in_kvcache"), kOp, "extra_k_cache",
                    "extra_k_cache and extra_indices_in_kvcache must be given together");
    sets.push_back(index_set(c, "extra_k_cache", "extra_indices_in_kvcache", "extra_topk_length", *layout, b, s_q));
  }
  std::vector<float> sink_v;
  if (c.has("attn_sink")) {
    const Tensor& sk = c.in("attn_sink");
    checks::dtype_in(kOp, "attn_sink", sk, {DType::F32});
    checks::rank(kOp, "attn_sink", sk, 1, "[h_q]");
    checks::dim_eq(kOp, "attn_sink", sk, 0, h_q, "h_q");
    for (std::int64_t h = 0; h < h_q; ++h) sink_v.push_back(sk.ptr<float>()[h * sk.stride(0)]);
  }
  CoreOptions co;
  co.scale = scale;
  co.sink = sink_v.empty() ? nullptr : sink_v.data();
  co.p_bf16 = pround == "bf16";

  Tensor out = Tensor::empty(DType::BF16, {b, s_q, h_q, d_v});
  Tensor lse_store = Tensor::empty(DType::F32, {b, s_q, h_q});
  std::int64_t max_rows = 0;
  for (auto& st : sets) max_rows += st.idx->size(2);
  const std::int64_t n_tok = b * s_q;
  const HeadSplit hs = head_split(n_tok, h_q, omp_get_max_threads());  // (token, head block) items
#pragma omp parallel
  {
    std::vector<double> qrows(static_cast<std::size_t>(hs.size * d_qk)), krows(static_cast<std::size_t>(max_rows * d_qk)),
        o(static_cast<std::size_t>(hs.size * d_v)), ml(static_cast<std::size_t>(hs.size)),
        ls(static_cast<std::size_t>(hs.size)), work;
    CoreOptions cb = co;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t item = 0; item < n_tok * hs.blocks; ++item) {
      const std::int64_t tkn = item / hs.blocks, h0 = (item % hs.blocks) * hs.size;
      const std::int64_t hn = std::min(hs.size, h_q - h0);
      if (hn <= 0) continue;
      const std::int64_t i = tkn / s_q, s = tkn % s_q;
      for (std::int64_t h = 0; h < hn; ++h) {
        const std::int64_t base = i * q.stride(0) + s * q.stride(1) + (h0 + h) * q.stride(2);
        for (std::int64_t d = 0; d < d_qk; ++d) qrows[h * d_qk + d] = load_bf16(q, base + d);
      }
      std::int64_t n = 0;
      for (const IndexSet& st : sets) {
        const Tensor& ix = *st.idx;
        for (std::int64_t j = 0; j < st.len[i]; ++j) {
          const std::int64_t v = load_index(ix, i * ix.stride(0) + s * ix.stride(1) + j * ix.stride(2));
          if (v == -1) continue;
          kv::dequantize_slot(st.cache, v, dq, krows.data() + n * d_qk);
          ++n;
        }
      }
      cb.sink = co.sink ? co.sink + h0 : nullptr;
      attend_rows(qrows.data(), static_cast<int>(hn), static_cast<int>(d_qk), krows.data(), n, static_cast<int>(d_v),
                  cb, o.data(), ml.data(), ls.data(), work);
      for (std::int64_t hh = 0; hh < hn; ++hh) {
        const std::int64_t h = h0 + hh;
        store_f32(lse_store, (i * s_q + s) * h_q + h, ls[hh]);
        for (std::int64_t d = 0; d < d_v; ++d) store_bf16(out, ((i * s_q + s) * h_q + h) * d_v + d, o[hh * d_v + d]);
      }
    }
  }
  return {{"out", out}, {"lse", lse_store.transpose(1, 2)}};
}

}  // namespace dsv4
