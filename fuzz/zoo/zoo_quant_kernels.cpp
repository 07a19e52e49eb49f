// Zoo entries of the quantization / GEMM-side kernels' planted variants (per-block FP8 quant, inverse
// RoPE + FP8 quant, KV-cache writer, block-scaled FP8 GEMM and einsum), each run through the shared
// harness (run_under_test + the op's oracle) on generated cases. Where a shape hides the bug (the wave
// size the reduction was written for, a single K block, no E8M0 extremes, no negative slot), the stream
// opens with it, so "cases until detection" names the ingredient.
//  22 wave64_lds_reduction: the cross-wave LDS reduction assumes 64-lane waves (dormant on wave 64);
//  24 python_negative_slot: slot -1 indexed Python-style, the token lands in the cache's last slot;
//  25, 27 scale_per_tile: K block 0's scales reused for every K block;
//  26, 28 e8m0_shift23: E8M0 decoded by bits << 23 (0x00 -> 0, 0xFF -> +inf); needs the generator's extremes.
#include "fuzz/zoo/zoo_detail.hpp"

namespace dsv4::fuzz::zoo::detail {

std::vector<ZooEntry> quant_kernel_entries() {
  const Json block_a{{"N", 130}, {"K", 300}, {"dtype", "bf16"}}, block_b{{"N", 64}, {"K", 200}, {"dtype", "fp32"}};
  const Json gemm_ue8m0{{"M", 8}, {"N", 64}, {"K", 384}, {"scale", "ue8m0"}};
  const Json gemm_ue8m0_specials{{"M", 8}, {"N", 64}, {"K", 384}, {"scale", "ue8m0"}, {"values", "specials"}};
  const Json einsum_ue8m0{{"B", 4}, {"H", 2}, {"R", 256}, {"D", 64}, {"scale", "ue8m0"}};
  const Json einsum_ue8m0_specials{{"B", 4}, {"H", 2}, {"R", 256}, {"D", 64}, {"scale", "ue8m0"}, {"values", "specials"}};
  return kernel_variant_entries({
      {"22", "per_block_quant_fp8", "wave64_lds_reduction", "per-block quant cross-wave reduction assumes wave 64 (run on wave 32)",
       "known-bugs #17", Detector::oracle_localisation, {"FAIL", "wave32"}, "(sim wave 64, then 32)",
       {{block_a, 220, 64}, {block_b, 221, 64}, {block_a, 222, 32}, {block_b, 223, 32}}},
      {"23", "inv_rope_fp8_quant", "forward_rotation", "inverse RoPE applies the forward rotation", "known-bugs #9 class",
       Detector::oracle_localisation, {"FAIL"}, "",
       {{Json{{"T", 4}, {"H", 2}, {"n_groups", 1}, {"max_pos", 64}}, 230}, {Json{{"T", 5}, {"H", 8}, {"max_pos", 64}}, 231}}},
      {"24", "kv_cache_write", "python_negative_slot", "KV-cache writer indexes slot -1 Python-style (writes the last slot)",
       "ops.md kv_cache_write slot < 0", Detector::oracle_localisation, {"FAIL"}, "",
       {{Json{{"n_tokens", 12}, {"d_qk", 512}, {"block_size", 5}, {"num_blocks", 3}}, 240},
        {Json{{"n_tokens", 12}, {"d_qk", 576}, {"block_size", 7}, {"num_blocks", 3}, {"values", "specials"}}, 241},
        {Json{{"n_tokens", 6}, {"d_qk", 512}, {"block_size", 4}, {"num_blocks", 3}, {"values", "specials"}}, 242}}},
      {"25", "fp8_gemm_blockscaled", "scale_per_tile", "block-scaled GEMM applies K block 0's scales to every block",
       "known-bugs #12 class", Detector::oracle_localisation, {"FAIL"}, "",
       {{Json{{"M", 7}, {"N", 100}, {"K", 128}, {"scale", "fp32"}}, 250}, {Json{{"M", 20}, {"N", 100}, {"K", 384}, {"scale", "fp32"}}, 251}}},
      {"26", "fp8_gemm_blockscaled", "e8m0_shift23", "block-scaled GEMM decodes E8M0 scales by bits << 23", "known-bugs #13",
       Detector::oracle_localisation, {"FAIL"}, "", {{gemm_ue8m0, 260}, {gemm_ue8m0_specials, 261}, {gemm_ue8m0_specials, 262}}},
      {"27", "fp8_einsum", "scale_per_tile", "fp8 einsum applies R block 0's scales to every block", "known-bugs #12 class",
       Detector::oracle_localisation, {"FAIL"}, "",
       {{Json{{"B", 3}, {"H", 2}, {"R", 128}, {"D", 64}, {"scale", "fp32"}}, 270},
        {Json{{"B", 3}, {"H", 2}, {"R", 256}, {"D", 130}, {"scale", "fp32"}}, 271}}},
      {"28", "fp8_einsum", "e8m0_shift23", "fp8 einsum decodes E8M0 scales by bits << 23", "known-bugs #13",
       Detector::oracle_localisation, {"FAIL"}, "", {{einsum_ue8m0, 280}, {einsum_ue8m0_specials, 281}, {einsum_ue8m0_specials, 282}}},
  });
}

}  // namespace dsv4::fuzz::zoo::detail
