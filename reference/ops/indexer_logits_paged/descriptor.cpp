// Descriptor of op 'indexer_logits_paged' (ops.md §4.2). The generator lays each batch's tokens
// out through a shuffled block table over num_blocks = B·ceil(max_context_len/block_kv) + 2 blocks;
// unreferenced slots hold fp8 NaN codes and NaN scales (a kernel reading them poisons its row),
// context_lens follow the causal form L_b − next_n + j + 1.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "reference/ops/common/gemm_random.hpp"
#include "reference/ops/indexer_logits/indexer_bound.hpp"
#include "reference/ops/common/quant_fp8_encode.hpp"
#include "reference/ops/indexer_logits_paged/indexer_logits_paged.hpp"
#include "reference/registry/registry.hpp"
#include "reference/registry/shape_check.hpp"

namespace dsv4::ops {
FuzzSpace indexer_logits_paged_fuzz_space();  // fuzz_space.cpp
}  // namespace dsv4::ops

namespace dsv4 {
namespace ops {

namespace {
OpCase generate_indexer_logits_paged(std::mt19937_64& rng, const Json& shape) {
  const std::int64_t B = gemm::shape_int(shape, "B", -1, 1);
  const std::int64_t next_n = gemm::shape_int(shape, "next_n", 1, 1);
  const std::int64_t H = gemm::shape_int(shape, "H", 64, 1);
  const std::int64_t D = gemm::shape_int(shape, "D", 128, 1);
  const std::int64_t block_kv = gemm::shape_int(shape, "block_kv", 64, 1);
  const std::int64_t max_ctx = gemm::shape_int(shape, "max_context_len", -1, next_n);
  const DType dt = gemm::parse_dtype_name(gemm::shape_str_field(shape, "dtype", "e4m3fn"));
  const formats::Format f8 = *format_of(dt);
  const std::int64_t max_blocks = (max_ctx + block_kv - 1) / block_kv;
  const std::int64_t num_blocks = B * max_blocks + 2;
  OpCase c;
  c.attrs["max_context_len"] = max_ctx;
  c.inputs["q"] = gemm::randn(dt, {B, next_n, H, D}, rng, 2.0);
  Tensor cache = Tensor::empty(DType::U8, {num_blocks, block_kv, 1, D + 4});
  {  // poison: fp8 NaN codes (fn 0x7F, fnuz 0x80) and NaN scales everywhere
    const std::uint8_t nan8 = f8 == formats::Format::e4m3fnuz ? 0x80 : 0x7F;
    std::vector<std::uint8_t> row(static_cast<std::size_t>(D), nan8);
    for (std::int64_t blk = 0; blk < num_blocks; ++blk)
      for (std::int64_t s = 0; s < block_kv; ++s) paged_kv_write(cache, blk, s, row.data(), std::nanf(""));
  }
  std::vector<std::int64_t> perm(num_blocks);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  Tensor bt = Tensor::empty(DType::I32, {B, max_blocks});
  Tensor ctx = Tensor::empty(DType::I32, {B, next_n});
  std::normal_distribution<double> nd(0, 2.0);
  std::uniform_real_distribution<double> u(0.5, 2.0);
  for (std::int64_t b = 0; b < B; ++b) {
    const std::int64_t Lb = std::uniform_int_distribution<std::int64_t>(next_n, max_ctx)(rng);
    for (std::int64_t j = 0; j < next_n; ++j) ctx.set({b, j}, static_cast<double>(Lb - next_n + j + 1));
    for (std::int64_t i = 0; i < max_blocks; ++i) bt.set({b, i}, static_cast<double>(perm[b * max_blocks + i]));
    std::vector<std::uint8_t> row(static_cast<std::size_t>(D));
    for (std::int64_t t = 0; t < Lb; ++t) {
      for (auto& code : row) {
        do code = static_cast<std::uint8_t>(quant::encode_fp8_satfinite(f8, nd(rng)));
        while ((code & 0x7F) == 0);
      }
      paged_kv_write(cache, perm[b * max_blocks + t / block_kv], t % block_kv, row.data(), static_cast<float>(u(rng) / 448));
    }
  }
  c.inputs["kv_cache"] = cache;
  c.inputs["weights"] = gemm::randn(DType::F32, {B * next_n, H}, rng, 1.0 / std::sqrt(static_cast<double>(H)));
  c.inputs["context_lens"] = ctx;
  c.inputs["block_table"] = bt;
  return c;
}
}  // namespace

OpDescriptor indexer_logits_paged_descriptor() {
  OpDescriptor d;
  d.name = "indexer_logits_paged";
  d.summary = "paged lightning-indexer logits for decode (DeepGEMM fp8_paged_mqa_logits), row (b,j) valid for k < context_lens[b,j]";
  d.contract = "ops.md §4.2";
  d.inputs = {
      {"q", {DType::F8_E4M3FN, DType::F8_E4M3FNUZ}, "[B, next_n, H, D]", false, ""},
      {"kv_cache", {DType::U8}, "[num_blocks, block_kv, 1, D+4]", false,
       "per block: block_kv·D fp8 bytes (format of q), then block_kv fp32 scales"},
      {"weights", {DType::F32}, "[B·next_n, H]", false, ""},
      {"context_lens", {DType::I32}, "[B, next_n]", false, "only 2-D"},
      {"block_table", {DType::I32}, "[B, max_blocks]", false, ""},
      {"schedule_meta", {DType::I32}, "[num_sms+1, 2]", true, "kernel-private (int32); ignored by the reference"},
  };
  d.outputs = {{"logits", {DType::F32}, "[B·next_n, max_context_len]", false,
                "valid for k < context_lens[b, j]; the reference writes −inf beyond (unspecified for kernels)",
                true}};
  d.attrs = {
      {"max_context_len", nullptr, "width of the logits rows", {}, false},
      {"clean_logits", false, "must be false", {}, false},
      {"dot", "fp32", "variant dot:{fp32|bf16}: bf16 rounds each q·k dot to bf16 (vLLM torch reference)",
       {"fp32", "bf16"}, false},
  };
  d.reference = indexer_logits_paged_reference;
  d.generate = generate_indexer_logits_paged;
  d.error_bound = indexer::indexer_logits_paged_error_bound;  // error_model.md, per element
  set_shape_fields(d.name, {"B", "next_n", "H", "D", "block_kv", "max_context_len", "dtype"});
  d.fuzz = ops::indexer_logits_paged_fuzz_space();
  d.default_shapes = {
      Json{{"B", 2}, {"next_n", 1}, {"H", 8}, {"D", 32}, {"block_kv", 16}, {"max_context_len", 70}},
      Json{{"B", 3}, {"next_n", 2}, {"H", 4}, {"D", 64}, {"block_kv", 8}, {"max_context_len", 40}},
      Json{{"B", 2}, {"next_n", 4}, {"H", 4}, {"D", 32}, {"block_kv", 16}, {"max_context_len", 50}},
      Json{{"B", 1}, {"next_n", 3}, {"H", 64}, {"D", 128}, {"block_kv", 64}, {"max_context_len", 130}},
  };
  // Default oracle policies (one per output) with their reasoning: error_model.md beside this file or the
  // anchor suite of ops.md. oracle::require_default_policies rejects an output without one.
  d.oracle["logits"] = {"error-bound", {{"multiple", 1}, {"mask_neg_inf", true}},
      "as indexer_logits (error_model.md); positions k >= context_lens are unspecified for kernels (clean_logits must be "
      "false) and -inf in the reference: masked"};
  return d;
}

}  // namespace ops

void register_indexer_logits_paged(Registry& r) { r.add(ops::indexer_logits_paged_descriptor()); }

}  // namespace dsv4
