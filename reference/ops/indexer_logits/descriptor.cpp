// Descriptor of op 'indexer_logits' (ops.md §4.1). The generator draws fp8 q and kv from N(0, σ²)
// (σ = 2, so most codes are normal), kv_sf in [0.5, 2]/448, weights N(0, 1/H), and ranges ks ≤ ke
// inside [0, S_kv) with a causal-like growth; when S ≥ 3 row 1 is empty (ks = ke).
#include <algorithm>
#include <cmath>

#include "reference/ops/common/gemm_random.hpp"
#include "reference/ops/indexer_logits/indexer_bound.hpp"
#include "reference/ops/indexer_logits/indexer_logits.hpp"
#include "reference/registry/registry.hpp"
#include "reference/registry/shape_check.hpp"

namespace dsv4::ops {
FuzzSpace indexer_logits_fuzz_space();  // fuzz_space.cpp
}  // namespace dsv4::ops

namespace dsv4 {
namespace ops {

namespace {
OpCase generate_indexer_logits(std::mt19937_64& rng, const Json& shape) {
  const std::int64_t S = gemm::shape_int(shape, "S", -1, 1);
  const std::int64_t S_kv = gemm::shape_int(shape, "S_kv", -1, 1);
  const std::int64_t H = gemm::shape_int(shape, "H", 64, 1);
  const std::int64_t D = gemm::shape_int(shape, "D", 128, 1);
  const DType dt = gemm::parse_dtype_name(gemm::shape_str_field(shape, "dtype", "e4m3fn"));
  OpCase c;
  c.inputs["q"] = gemm::randn(dt, {S, H, D}, rng, 2.0);
  c.inputs["kv"] = gemm::randn(dt, {S_kv, D}, rng, 2.0);
  Tensor sf = Tensor::empty(DType::F32, {S_kv});
  std::uniform_real_distribution<double> u(0.5, 2.0);
  for (std::int64_t j = 0; j < S_kv; ++j) sf.set({j}, u(rng) / 448.0);
  c.inputs["kv_sf"] = sf;
  c.inputs["weights"] = gemm::randn(DType::F32, {S, H}, rng, 1.0 / std::sqrt(static_cast<double>(H)));
  Tensor ks = Tensor::empty(DType::I32, {S}), ke = Tensor::empty(DType::I32, {S});
  for (std::int64_t i = 0; i < S; ++i) {
    std::int64_t end = std::max<std::int64_t>(1, (S_kv * (i + 1) + S - 1) / S);
    std::int64_t start = std::uniform_int_distribution<std::int64_t>(0, end / 2)(rng);
    if (S >= 3 && i == 1) start = end;
    ks.set({i}, static_cast<double>(start));
    ke.set({i}, static_cast<double>(end));
  }
  c.inputs["cu_seq_len_k_start"] = ks;
  c.inputs["cu_seq_len_k_end"] = ke;
  return c;
}
}  // namespace

OpDescriptor indexer_logits_descriptor() {
  OpDescriptor d;
  d.name = "indexer_logits";
  d.summary = "lightning-indexer logits Σ_h relu(q·k)·w·kv_sf over [ks, ke), −inf elsewhere (DeepGEMM fp8_mqa_logits)";
  d.contract = "ops.md §4.1";
  d.inputs = {
      {"q", {DType::F8_E4M3FN, DType::F8_E4M3FNUZ}, "[S, H, D]", false, "no scale: folded into weights"},
      {"kv", {DType::F8_E4M3FN, DType::F8_E4M3FNUZ}, "[S_kv, D]", false, "same fp8 dtype as q"},
      {"kv_sf", {DType::F32}, "[S_kv]", false, ">= 0"},
      {"weights", {DType::F32}, "[S, H]", false, ""},
      {"cu_seq_len_k_start", {DType::I32}, "[S]", false, "ks"},
      {"cu_seq_len_k_end", {DType::I32}, "[S]", false, "ke; 0 <= ks <= ke <= S_kv"},
  };
  d.outputs = {{"logits", {DType::F32}, "[S, S_kv] or [S, max_seqlen_k]", false,
                "−inf outside [ks, ke) (unspecified there when clean_logits=false)", true}};
  d.attrs = {
      {"clean_logits", true, "write −inf outside [ks, ke)", {}, false},
      {"max_seqlen_k", 0, "0 = full width; > 0 = compressed rows out[i, j−ks[i]]", {}, false},
      {"dot", "fp32", "variant dot:{fp32|bf16}: bf16 rounds each q·k dot to bf16 (vLLM torch reference)",
       {"fp32", "bf16"}, false},
  };
  d.reference = indexer_logits_reference;
  d.generate = generate_indexer_logits;
  d.error_bound = indexer::indexer_logits_error_bound;  // error_model.md, per element
  set_shape_fields(d.name, {"S", "S_kv", "H", "D", "dtype"});
  d.fuzz = ops::indexer_logits_fuzz_space();
  d.default_shapes = {
      Json{{"S", 5}, {"S_kv", 37}, {"H", 8}, {"D", 32}},
      Json{{"S", 4}, {"S_kv", 130}, {"H", 64}, {"D", 128}},
      Json{{"S", 3}, {"S_kv", 20}, {"H", 4}, {"D", 64}, {"dtype", "e4m3fnuz"}},
  };
  // Default oracle policies (one per output) with their reasoning: error_model.md beside this file or the
  // anchor suite of ops.md. oracle::require_default_policies rejects an output without one.
  d.oracle["logits"] = {"error-bound", {{"multiple", 1}, {"mask_neg_inf", "clean_logits"}},
      "error_model.md: sf*(sum_h |w| gamma_D sum_d |q kv| + gamma_(H+1) sum_h relu(dot)|w|) + u|logit| + half an fp32 "
      "ulp. Positions outside [ks, ke) are -inf in the reference: compared exactly when clean_logits=true, "
      "unspecified (masked) when false"};
  return d;
}

}  // namespace ops

void register_indexer_logits(Registry& r) { r.add(ops::indexer_logits_descriptor()); }

}  // namespace dsv4
