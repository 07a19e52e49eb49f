// Helpers shared by the per-op generator specs (fuzz/generators/specs_*.cpp): picking from lists,
// alignment-edge integers, storing a float64 into any floating tensor (fp8 through RNE satfinite
// encoding), and the per-op spec constructors the aggregator in op_generators.cpp lists.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <random>
#include <vector>

#include "fuzz/generators/op_generators.hpp"

namespace dsv4::fuzz::gen {

template <typename T>
T pick(std::mt19937_64& rng, const std::vector<T>& v) {
  return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
}
inline std::int64_t pick_int(std::mt19937_64& rng, std::initializer_list<std::int64_t> v) {
  return pick(rng, std::vector<std::int64_t>(v));
}
inline std::int64_t uniform(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
}
inline bool coin(std::mt19937_64& rng, double p = 0.5) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }

// A multiple of `align` in [align, align*max_mult] or one of its +-delta neighbours (clamped to >= lo).
std::int64_t align_edge(std::mt19937_64& rng, std::int64_t align, std::int64_t max_mult, std::int64_t delta = 1,
                        std::int64_t lo = 1);

// Stores v into element i (linear, logical order) of a floating tensor; fp8 codes by RNE satfinite.
void store(Tensor& t, std::int64_t i, double v);
bool is_floating(DType t);
// Largest finite magnitude of a floating dtype.
double max_finite_of(DType t);

// Per-op specs (one constructor each).
OpGenSpec merge_attn_states_spec();
OpGenSpec sparse_mla_prefill_spec();
OpGenSpec sparse_mla_decode_spec();
OpGenSpec kv_cache_write_spec();
OpGenSpec indexer_logits_spec();
OpGenSpec indexer_logits_paged_spec();
OpGenSpec topk_spec();
OpGenSpec skinny_gemm_spec();
OpGenSpec fp8_gemm_blockscaled_spec();
OpGenSpec fp8_einsum_spec();
OpGenSpec per_token_group_quant_fp8_spec();
OpGenSpec per_block_quant_fp8_spec();
OpGenSpec inv_rope_fp8_quant_spec();

// E8M0 extremes in a scale tensor (F8_E8M0 bytes or I32 words of 4 packed bytes): sets the byte of
// `row` (first index) in every group to `byte`. F32 scales are left alone (no E8M0 there).
void set_e8m0_row(Tensor& scales, std::int64_t row, std::uint8_t byte);

}  // namespace dsv4::fuzz::gen
