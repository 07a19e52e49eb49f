// Descriptor of op 'sparse_mla_prefill' (ops.md §2): argument schema, variant attributes, the float64
// reference and a generator after FlashMLA's tests/lib.py. Oracle specs are filled by the oracle.
#include <algorithm>
#include <limits>

#include "reference/ops/common/attn_gen.hpp"
#include "reference/ops/sparse_mla_prefill/sparse_mla_prefill.hpp"
#include "reference/registry/registry.hpp"
#include "reference/registry/shape_check.hpp"

namespace dsv4::ops {
FuzzSpace sparse_mla_prefill_fuzz_space();  // fuzz_space.cpp
}  // namespace dsv4::ops

namespace dsv4 {

namespace {

std::int64_t shape_int(const Json& s, const char* k, std::int64_t dflt) {
  return s.contains(k) ? s.at(k).get<std::int64_t>() : dflt;
}

// Shape keys: s_q, h_q, d_qk, s_kv, topk; optional d_v (512, or d_qk if smaller), sink (bool, true),
// varlen (bool, true: topk_length given), sm_scale (0.5), pad (q head padding, 1).
OpCase generate(std::mt19937_64& rng, const Json& s) {
  using namespace attn;
  const std::int64_t s_q = shape_int(s, "s_q", 4), h_q = shape_int(s, "h_q", 64), d_qk = shape_int(s, "d_qk", 512);
  const std::int64_t s_kv = shape_int(s, "s_kv", 256), topk = shape_int(s, "topk", 128);
  const std::int64_t d_v = shape_int(s, "d_v", std::min<std::int64_t>(512, d_qk));
  OpCase c;
  c.inputs["q"] = gen_bf16(rng, {s_q, h_q, d_qk}, shape_int(s, "pad", 1));
  c.inputs["kv"] = gen_bf16(rng, {s_kv, 1, d_qk});
  const std::vector<std::int64_t> invalid = {std::numeric_limits<std::int32_t>::min(), -1, s_kv,
                                             std::numeric_limits<std::int32_t>::max()};
  Tensor idx = Tensor::empty(DType::I32, {s_q, 1, topk});
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (std::int64_t i = 0; i < s_q; ++i) {
    std::int64_t n_valid = std::min(topk, s_kv);
    const double r = u(rng);
    if (r < 0.02 || (s_q >= 4 && i == s_q / 2)) n_valid = 0;  // fully invalid rows (always one when s_q >= 4)
    else if (r < 0.5) n_valid = std::uniform_int_distribution<std::int64_t>(0, n_valid)(rng);
    auto row = gen_index_row(rng, s_kv, topk, n_valid, invalid);
    if (u(rng) < 0.5) std::shuffle(row.begin(), row.end(), rng);  // invalid values mixed among valid ones
    for (std::int64_t j = 0; j < topk; ++j) idx.set_code({i, 0, j}, static_cast<std::uint32_t>(row[j]));
  }
  c.inputs["indices"] = idx;
  if (!s.contains("sink") || s.at("sink").get<bool>()) c.inputs["attn_sink"] = gen_sink(rng, h_q);
  if (!s.contains("varlen") || s.at("varlen").get<bool>()) {
    Tensor tl = Tensor::empty(DType::I32, {s_q});
    for (std::int64_t i = 0; i < s_q; ++i)
      tl.set_code({i}, static_cast<std::uint32_t>(std::uniform_int_distribution<std::int64_t>(0, topk)(rng)));
    c.inputs["topk_length"] = tl;
  }
  c.attrs["sm_scale"] = s.contains("sm_scale") ? s.at("sm_scale").get<double>() : 0.5;
  c.attrs["d_v"] = d_v;
  return c;
}

}  // namespace

void register_sparse_mla_prefill(Registry& r) {
  OpDescriptor d;
  d.name = "sparse_mla_prefill";
  d.summary = "Sparse MLA prefill: per-token softmax attention over top-k selected kv rows (FlashMLA sparse_fwd)";
  d.contract = "ops.md §2";
  d.inputs = {
      {"q", {DType::BF16}, "[s_q, h_q, d_qk]", false, "last dim contiguous; other strides arbitrary"},
      {"kv", {DType::BF16}, "[s_kv, 1, d_qk]", false, "V = kv[..., :d_v]"},
      {"indices", {DType::I32}, "[s_q, 1, topk]", false, "invalid: < 0, >= s_kv, or past topk_length"},
      {"attn_sink", {DType::F32}, "[h_q]", true, "folds into out only"},
      {"topk_length", {DType::I32}, "[s_q]", true, "only indices[i, 0, :topk_length[i]] are used"},
  };
  d.outputs = {
      {"out", {DType::BF16}, "[s_q, h_q, d_v]", false, "lonely rows 0"},
      {"max_logits", {DType::F32}, "[s_q, h_q]", false, "lonely rows -inf", true},
      {"lse", {DType::F32}, "[s_q, h_q]", false, "natural log (lse_units); lonely rows +inf (lonely_lse)", true},
  };
  d.attrs = {
      {"sm_scale", nullptr, "softmax scale applied to q.k", {}, false},
      {"d_v", 512, "value width (V = kv[..., :d_v])", {}, false},
      {"lse_units", "ln", "units of lse and max_logits: ln (current) or log2 (release 1408756)", {"ln", "log2"}},
      {"lonely_lse", "+inf", "lse of rows with no valid index: +inf (current) or -inf (release 1408756)",
       {"+inf", "-inf"}},
      {"p_rounding", "none", "none: pure float64; bf16: round exp(P - max) to bf16 before PV (kernel intermediate)",
       {"none", "bf16"}},
      {"nan_beyond_topk_length", "must_ignore",
       "must_ignore: rows past topk_length never matter; forbidden: a valid index past topk_length pointing at a "
       "NaN row is a precondition violation",
       {"must_ignore", "forbidden"}},
  };
  d.reference = sparse_mla_prefill_reference;
  d.generate = generate;
  set_shape_fields(d.name, {"s_q", "h_q", "d_qk", "d_v", "s_kv", "topk", "pad", "sink", "sm_scale", "varlen"});
  d.fuzz = ops::sparse_mla_prefill_fuzz_space();
  d.default_shapes = {
      Json{{"s_q", 4}, {"h_q", 4}, {"d_qk", 576}, {"s_kv", 96}, {"topk", 64}},
      Json{{"s_q", 5}, {"h_q", 8}, {"d_qk", 512}, {"s_kv", 128}, {"topk", 128}},
      Json{{"s_q", 3}, {"h_q", 2}, {"d_qk", 512}, {"s_kv", 32}, {"topk", 64}, {"varlen", false}},
  };
  // Default oracle policies (one per output) with their reasoning: error_model.md beside this file or the
  // anchor suite of ops.md. oracle::require_default_policies rejects an output without one.
  d.oracle["out"] = {"cosine", {{"max_diff", 7e-6}, {"abs", 8e-4}, {"rel", 3.01 / 128}},
      "FlashMLA test_flash_mla_sparse_prefill check_is_allclose vs fp32 reference (ops.md §2): abs 8e-4, rel 3.01/128, "
      "cos 7e-6; the reference here is float64, tighter than FlashMLA's fp32, so the anchor bound is safe"};
  d.oracle["max_logits"] = {"cosine", {{"abs", 1e-6}, {"rel", 2.01 / 65536}},
      "FlashMLA prefill max_logits: abs 1e-6, rel 2.01/65536 (two fp32-ish ulps); -inf for lonely rows must match"};
  d.oracle["lse"] = {"cosine", {{"abs", 1e-6}, {"rel", 2.01 / 65536}},
      "FlashMLA prefill lse: abs 1e-6, rel 2.01/65536; +inf for lonely rows must match exactly"};
  r.add(std::move(d));
}

}  // namespace dsv4
