// The per-op default policy table (ops.md tolerances, the op error models) and its installation.
// Every entry states why: the anchor suite it follows, or the error model behind the bound.
#include "oracle/default_policies.hpp"

#include <fmt/format.h>

namespace dsv4::oracle {

namespace {

OracleSpec S(std::string policy, Json params, std::string why) { return {std::move(policy), std::move(params), std::move(why)}; }

const OracleSpec kNone{};

std::vector<DefaultPolicy> build() {
  std::vector<DefaultPolicy> t;
  auto add = [&](std::string op, std::string out, OracleSpec s, OracleSpec fb = kNone) {
    t.push_back({std::move(op), std::move(out), std::move(s), std::move(fb)});
  };
  // fp8 rows of allclose by_dtype: one ulp at the bottom of a binade (2^-3 relative) plus the
  // smallest subnormal absolute, i.e. a one-ulp disagreement of a value rounded once.
  const Json fp8_one_ulp = {{"F8_E4M3FN", {{"atol", 0x1p-9}, {"rtol", 0.125}}},
                            {"F8_E4M3FNUZ", {{"atol", 0x1p-10}, {"rtol", 0.125}}}};
  Json mas = fp8_one_ulp;
  mas["F32"] = {{"atol", 1e-3}, {"rtol", 1e-3}};
  mas["F16"] = {{"atol", 1e-3}, {"rtol", 1e-3}};
  mas["BF16"] = {{"atol", 1e-3}, {"rtol", 1e-2}};
  add("merge_attn_states", "output", S("allclose", {{"by_dtype", mas}},
      "vLLM test_merge_attn_states tolerances per dtype (ops.md §1): fp32/fp16 1e-3/1e-3, bf16 1e-3/1e-2. FP8: vLLM "
      "compares 0.05-scaled values at 1e-1; on raw fp8 codes dsv4check admits one ulp (rtol 2^-3 plus the smallest "
      "subnormal), the one rounding a correct fp32 merge can disagree by"));
  add("merge_attn_states", "output_lse", S("allclose", {{"atol", 1e-3}, {"rtol", 1e-3}},
      "ops.md §1: the same tolerances apply to the lse (fp32: 1e-3/1e-3); +-inf/NaN positions must match exactly"));

  add("sparse_mla_prefill", "out", S("cosine", {{"max_diff", 7e-6}, {"abs", 8e-4}, {"rel", 3.01 / 128}},
      "FlashMLA test_flash_mla_sparse_prefill check_is_allclose vs fp32 reference (ops.md §2): abs 8e-4, rel 3.01/128, "
      "cos 7e-6; the reference here is float64, tighter than FlashMLA's fp32, so the anchor bound is safe"));
  add("sparse_mla_prefill", "max_logits", S("cosine", {{"abs", 1e-6}, {"rel", 2.01 / 65536}},
      "FlashMLA prefill max_logits: abs 1e-6, rel 2.01/65536 (two fp32-ish ulps); -inf for lonely rows must match"));
  add("sparse_mla_prefill", "lse", S("cosine", {{"abs", 1e-6}, {"rel", 2.01 / 65536}},
      "FlashMLA prefill lse: abs 1e-6, rel 2.01/65536; +inf for lonely rows must match exactly"));

  add("sparse_mla_decode", "out", S("cosine", {{"max_diff", 5e-6}, {"abs", 1e-3}, {"rel", 2.01 / 128}},
      "FlashMLA test_flash_mla_sparse_decoding vs a reference on the dequantized cache (ops.md §3.3): abs 1e-3, "
      "rel 2.01/128, cos 5e-6"));
  add("sparse_mla_decode", "lse", S("cosine", {{"abs", 1e-6}, {"rel", 8.01 / 65536}},
      "FlashMLA decode lse: abs 1e-6, rel 8.01/65536 (split-K combine adds a few fp32 roundings); +inf for lonely rows"));

  add("kv_cache_write", "k_cache", S("exact", Json::object(),
      "a cache write is quantize-and-store with a named rounding recipe: every byte (fp8 code, scale byte, padding) is "
      "determined, so any difference is a bug; NaN-class rule only"));

  add("indexer_logits", "logits", S("error-bound", {{"multiple", 1}, {"mask_neg_inf", "clean_logits"}},
      "reference/ops/indexer_logits/error_model.md: sf*(sum_h |w| gamma_D sum_d |q kv| + gamma_(H+1) sum_h relu(dot)|w|) "
      "+ u|logit| + half an fp32 ulp. Positions outside [ks, ke) are -inf in the reference: compared exactly when "
      "clean_logits=true, unspecified (masked) when false"),
      S("cosine", {{"max_diff", 5e-6}, {"mask_neg_inf", "clean_logits"}},
        "until the op registers its error model: DeepGEMM calc_diff 5e-6 against the simulated (dequantized) fp32 "
        "reference (ops.md §4.2), which is what the dsv4check reference is; a relative per-element tolerance is "
        "meaningless under cross-head cancellation (error_model.md). -inf mask exact when clean_logits=true, else masked"));
  add("indexer_logits_paged", "logits", S("error-bound", {{"multiple", 1}, {"mask_neg_inf", true}},
      "as indexer_logits (error_model.md); positions k >= context_lens are unspecified for kernels (clean_logits must be "
      "false) and -inf in the reference: masked"),
      S("cosine", {{"max_diff", 5e-6}, {"mask_neg_inf", true}},
        "DeepGEMM fp8_paged_mqa_logits calc_diff 5e-6 against the simulated fp32 reference (ops.md §4.2); positions "
        "beyond context_lens are masked (the reference writes -inf there)"));

  add("topk", "topk_indices", S("topk-set", {{"tie_tol", 1e-5}},
      "ops.md §5 set semantics: order unspecified, ties within 1e-5 of the k-th value may swap (vLLM "
      "test_top_k_per_row), -1 padding must match"));

  add("skinny_gemm", "out", S("error-bound", {{"multiple", 1}},
      "reference/ops/skinny_gemm/error_model.md: gamma_(K+1) (sum |a b| + |bias|) + one output ulp, a rigorous worst "
      "case for any fp32 summation order, so no margin. Note (tests/oracle/test_dropped_shard.cpp): this worst-case "
      "bound, like vLLM's atol 1e-3/rtol 1e-2, misses a dropped narrow tail K-shard at large K on xnorm inputs; the "
      "probabilistic bound (oracle/error_models.hpp) catches it"),
      S("allclose", {{"atol", 1e-3}, {"rtol", 1e-2}},
        "vLLM test_rocm_skinny_gemms wvSplitKrc (non-xnorm) tolerance, used until the op's error model lands"));
  add("fp8_gemm_blockscaled", "d", S("error-bound", {{"multiple", 1}},
      "reference/ops/fp8_gemm_blockscaled/error_model.md: per-block MMA accumulation gamma_128 sum|x w| scaled, two "
      "fp32 roundings per block promotion, gamma_(KB+1) over the blocks, plus one output ulp (a worst case)"),
      S("cosine", {{"max_diff", 1e-5}},
        "DeepGEMM gemm tests use calc_diff < 1e-3 against a bf16 reference that includes quantization error; against "
        "the dequantized-input float64 reference the fp32-accumulation error alone is ~1e-6, so 1e-5"));
  add("fp8_einsum", "d", S("error-bound", {{"multiple", 1}},
      "reference/ops/fp8_einsum/error_model.md: per head the fp8_gemm_blockscaled bound with K = R. The ROCm "
      "fallback (bf16-dequantized weights, bf16 einsum) is outside it by design: judge it with cosine max_diff 1e-3"),
      S("cosine", {{"max_diff", 1e-5}},
        "DeepGEMM test_einsum calc_diff < 1e-3 vs a bf16 einsum (includes quantization); vs the dequantized-input float64 "
        "reference only accumulation and output rounding remain (bf16 output: calc_diff ~ 2^-18), so 1e-5"));

  for (std::string op : {"per_token_group_quant_fp8", "per_block_quant_fp8"}) {
    bool blk = op == "per_block_quant_fp8";
    add(op, blk ? "w_q" : "x_q", S("exact", Json::object(),
        "quantization with a named scale recipe and encode mode (formats.md §0, ops.md §7.1) is deterministic: amax, "
        "scale and the one rounding per element are fixed, so codes must match bit for bit. A kernel that multiplies by "
        "the reciprocal scale where the recipe divides may be off by one code: override with ulp n=1 and say why"));
    add(op, blk ? "w_s" : "x_s", S("exact", Json::object(),
        "the scale is amax/fp8_max (one correctly rounded fp32 division) or a power of two (UE8M0): exact; padding 0"));
  }
  add("inv_rope_fp8_quant", "o_fp8", S("ulp", {{"n", 1}},
      "ops.md §7.2: fp32 RoPE rotation (a*c + b*s: fma vs separate rounding differs by an fp32 ulp) then one fp8 "
      "rounding: a value near an fp8 rounding midpoint may land one code away. Never more than one"));
  add("inv_rope_fp8_quant", "o_scale", S("exact", Json::object(),
      "UE8M0 ceil of amax/448 over each 128-group: exact except when fp32 rotation error moves amax across a power of "
      "two (probability ~2^-20 per group); padding rows must be 0"));
  return t;
}

}  // namespace

const std::vector<DefaultPolicy>& default_policy_table() {
  static const std::vector<DefaultPolicy> t = build();
  return t;
}

OracleSpec fallback_policy(DType t) {
  if (is_integer(t) || (format_of(t) && t != DType::F16 && t != DType::BF16))
    return S("exact", Json::object(), "no op-specific entry: integer/fp8 output compared bit for bit");
  return S("allclose", Json::object(),
           "no op-specific entry: PyTorch torch.testing default tolerance for " + std::string(dtype_name(t)));
}

std::vector<std::string> install_default_policies(Registry& r, bool overwrite) {
  std::vector<std::string> done;
  for (const std::string& name : r.names()) {
    OpDescriptor& d = r.mutable_get(name);
    for (const ArgSpec& out : d.outputs) {
      if (!overwrite && d.oracle.count(out.name)) continue;
      const DefaultPolicy* entry = nullptr;
      for (auto& e : default_policy_table())
        if (e.op == name && e.output == out.name) entry = &e;
      OracleSpec s;
      if (entry) {
        s = entry->spec;
        if (s.policy == "error-bound" && !d.error_bound) s = entry->without_error_model;
      } else {
        s = fallback_policy(out.dtypes.empty() ? DType::F32 : out.dtypes.front());
      }
      done.push_back(fmt::format("{}.{}: {} {}", name, out.name, s.policy, s.params.dump()));
      d.oracle[out.name] = std::move(s);
    }
  }
  return done;
}

}  // namespace dsv4::oracle
