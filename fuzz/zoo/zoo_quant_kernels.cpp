// Zoo entries of the quantization / GEMM-side kernels' planted variants (per-block FP8 quant, inverse
// RoPE + FP8 quant, KV-cache writer, block-scaled FP8 GEMM and einsum), each run through the shared
// harness (run_under_test + the op's oracle) on generated cases. Each stream opens with a case that hides
// the bug (wave size the reduction was written for, a single K block, no E8M0 extremes), so "cases until
// detection" names the ingredient.
#include "fuzz/zoo/zoo_detail.hpp"

namespace dsv4::fuzz::zoo::detail {

namespace {

ZooEntry per_block_wave64_lds() {
  // The cross-wave LDS reduction assumes 64-lane waves: dormant on wave 64, drops partial maxima on wave 32.
  const Json a{{"N", 130}, {"K", 300}, {"dtype", "bf16"}}, b{{"N", 64}, {"K", 200}, {"dtype", "fp32"}};
  return kernel_variant_entry(
      {.id = "22", .title = "per-block quant cross-wave reduction assumes wave 64 (run on wave 32)",
       .known_bugs_ref = "known-bugs #17", .enable = "per_block_quant_fp8 kernel variant wave64_lds_reduction (sim wave 64, then 32)",
       .expected = Detector::oracle_localisation, .diagnosis_must_contain = {"FAIL", "wave32"}},
      "per_block_quant_fp8", "wave64_lds_reduction", {{a, 220, 64}, {b, 221, 64}, {a, 222, 32}, {b, 223, 32}});
}

ZooEntry inv_rope_forward_rotation() {
  return kernel_variant_entry(
      {.id = "23", .title = "inverse RoPE applies the forward rotation",
       .known_bugs_ref = "known-bugs #9 class", .enable = "inv_rope_fp8_quant kernel variant forward_rotation",
       .expected = Detector::oracle_localisation, .diagnosis_must_contain = {"FAIL"}},
      "inv_rope_fp8_quant", "forward_rotation",
      {{Json{{"T", 4}, {"H", 2}, {"n_groups", 1}, {"max_pos", 64}}, 230}, {Json{{"T", 5}, {"H", 8}, {"max_pos", 64}}, 231}});
}

ZooEntry kv_write_python_negative_slot() {
  // slot -1 indexed Python-style: the token lands in the cache's last slot instead of being skipped.
  return kernel_variant_entry(
      {.id = "24", .title = "KV-cache writer indexes slot -1 Python-style (writes the last slot)",
       .known_bugs_ref = "ops.md kv_cache_write slot < 0", .enable = "kv_cache_write kernel variant python_negative_slot",
       .expected = Detector::oracle_localisation, .diagnosis_must_contain = {"FAIL"}},
      "kv_cache_write", "python_negative_slot",
      {{Json{{"n_tokens", 12}, {"d_qk", 512}, {"block_size", 5}, {"num_blocks", 3}}, 240},
       {Json{{"n_tokens", 12}, {"d_qk", 576}, {"block_size", 7}, {"num_blocks", 3}, {"values", "specials"}}, 241},
       {Json{{"n_tokens", 6}, {"d_qk", 512}, {"block_size", 4}, {"num_blocks", 3}, {"values", "specials"}}, 242}});
}

// scale_per_tile: block 0's scales reused for every K block (one 128-wide block hides it).
// e8m0_shift23: E8M0 scales decoded by bits << 23 (0x00 -> 0, 0xFF -> +inf); needs the generator's extremes.
ZooEntry scaled_gemm_entry(const std::string& id, const std::string& op, const std::string& variant, const std::string& title,
                           const std::string& ref, Detector expected, const std::string& must, const std::vector<KernelCase>& cases) {
  return kernel_variant_entry({.id = id, .title = title, .known_bugs_ref = ref, .enable = op + " kernel variant " + variant,
                               .expected = expected, .diagnosis_must_contain = {must}},
                              op, variant, cases);
}

const Json kGemmOneBlock{{"M", 7}, {"N", 100}, {"K", 128}, {"scale", "fp32"}};
const Json kGemm{{"M", 20}, {"N", 100}, {"K", 384}, {"scale", "fp32"}};
const Json kGemmUe8m0{{"M", 8}, {"N", 64}, {"K", 384}, {"scale", "ue8m0"}, {"values", "specials"}};
const Json kEinsumOneBlock{{"B", 3}, {"H", 2}, {"R", 128}, {"D", 64}, {"scale", "fp32"}};
const Json kEinsum{{"B", 3}, {"H", 2}, {"R", 256}, {"D", 130}, {"scale", "fp32"}};
const Json kEinsumUe8m0{{"B", 4}, {"H", 2}, {"R", 256}, {"D", 64}, {"scale", "ue8m0"}, {"values", "specials"}};

}  // namespace

std::vector<ZooEntry> quant_kernel_entries() {
  const Json gemm_plain_ue8m0{{"M", 8}, {"N", 64}, {"K", 384}, {"scale", "ue8m0"}};
  const Json einsum_plain_ue8m0{{"B", 4}, {"H", 2}, {"R", 256}, {"D", 64}, {"scale", "ue8m0"}};
  return {per_block_wave64_lds(), inv_rope_forward_rotation(), kv_write_python_negative_slot(),
          scaled_gemm_entry("25", "fp8_gemm_blockscaled", "scale_per_tile", "block-scaled GEMM applies K block 0's scales to every block",
                            "known-bugs #12 class", Detector::oracle_localisation, "FAIL", {{kGemmOneBlock, 250}, {kGemm, 251}}),
          scaled_gemm_entry("26", "fp8_gemm_blockscaled", "e8m0_shift23", "block-scaled GEMM decodes E8M0 scales by bits << 23",
                            "known-bugs #13", Detector::oracle_localisation, "FAIL",
                            {{gemm_plain_ue8m0, 260}, {kGemmUe8m0, 261}, {kGemmUe8m0, 262}}),
          scaled_gemm_entry("27", "fp8_einsum", "scale_per_tile", "fp8 einsum applies R block 0's scales to every block",
                            "known-bugs #12 class", Detector::oracle_localisation, "FAIL", {{kEinsumOneBlock, 270}, {kEinsum, 271}}),
          scaled_gemm_entry("28", "fp8_einsum", "e8m0_shift23", "fp8 einsum decodes E8M0 scales by bits << 23", "known-bugs #13",
                            Detector::oracle_localisation, "FAIL", {{einsum_plain_ue8m0, 280}, {kEinsumUe8m0, 281}, {kEinsumUe8m0, 282}})};
}

}  // namespace dsv4::fuzz::zoo::detail
