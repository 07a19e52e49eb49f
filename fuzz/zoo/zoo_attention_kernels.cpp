// Zoo entries of the attention-side kernels' planted variants (indexer logits, paged indexer logits,
// sparse MLA decode and prefill, top-k), each run through the shared harness (run_under_test + the op's
// oracle) on generated cases; the fuzz layer's "values": "specials" key supplies the ingredients (invalid
// indices, NaN in unreferenced KV rows, -inf logits, empty rows). Each stream opens with a case that hides
// the bug, so "cases until detection" names the ingredient.
#include "fuzz/zoo/zoo_detail.hpp"

namespace dsv4::fuzz::zoo::detail {

namespace {

const Json kSpecials = "specials";

ZooEntry indexer_ke_off_by_one() {
  // The last key of each row's [ks, ke) window is dropped: with clean_logits its logit reads -inf.
  const Json base{{"S", 4}, {"S_kv", 60}, {"H", 4}, {"D", 32}, {"attr.clean_logits", true}};
  return kernel_variant_entry({.id = "13", .title = "indexer logits window end off by one (last key dropped)",
                               .known_bugs_ref = "known-bugs #8 class", .enable = "indexer_logits kernel variant ke_off_by_one",
                               .expected = Detector::nan_placement, .diagnosis_must_contain = {"Inf", "logits"}},
                              "indexer_logits", "ke_off_by_one", {{base, 130}, {Json{{"S", 3}, {"S_kv", 150}, {"H", 16}, {"D", 128}}, 131}});
}

ZooEntry paged_mask_broadcast_heads() {
  // The causal mask of row t is broadcast over the next_n rows: exact with next_n = 1.
  return kernel_variant_entry(
      {.id = "14", .title = "paged indexer causal mask broadcast over next_n rows",
       .known_bugs_ref = "known-bugs #8", .enable = "indexer_logits_paged kernel variant mask_broadcast_heads",
       .expected = Detector::oracle_localisation, .diagnosis_must_contain = {"FAIL logits"}},
      "indexer_logits_paged", "mask_broadcast_heads",
      {{Json{{"B", 2}, {"next_n", 1}, {"H", 8}, {"D", 32}, {"block_kv", 16}, {"max_context_len", 70}}, 140},
       {Json{{"B", 2}, {"next_n", 4}, {"H", 4}, {"D", 32}, {"block_kv", 8}, {"max_context_len", 40}}, 141}});
}

const Json kDecodeShape{{"b", 2}, {"s_q", 1}, {"h_q", 4}, {"d_qk", 576}, {"block_size", 61}, {"num_blocks", 2}, {"topk", 64}};
Json with(Json s, const Json& extra) {
  for (const auto& [k, v] : extra.items()) s[k] = v;
  return s;
}

ZooEntry decode_gather_invalid_rows() {
  return kernel_variant_entry(
      {.id = "15", .title = "sparse decode gathers the rows of -1 indices (0 x NaN from unwritten slots)",
       .known_bugs_ref = "known-bugs #10", .enable = "sparse_mla_decode kernel variant gather_invalid_rows",
       .expected = Detector::nan_placement, .diagnosis_must_contain = {"NaN"}},
      "sparse_mla_decode", "gather_invalid_rows",
      {{kDecodeShape, 150}, {with(kDecodeShape, {{"values", kSpecials}}), 151}, {with(kDecodeShape, {{"values", kSpecials}}), 152}});
}

ZooEntry decode_combine_no_inf_guard() {
  return kernel_variant_entry(
      {.id = "16", .title = "split-KV combine without the -inf guard (lonely queries become NaN)",
       .known_bugs_ref = "known-bugs #6 family", .enable = "sparse_mla_decode kernel variant combine_no_inf_guard",
       .expected = Detector::nan_placement, .diagnosis_must_contain = {"NaN"}},
      "sparse_mla_decode", "combine_no_inf_guard",
      {{Json{{"b", 1}, {"s_q", 1}, {"h_q", 4}, {"d_qk", 576}, {"block_size", 64}, {"num_blocks", 1}, {"topk", 16}}, 159},
       {kDecodeShape, 160}, {with(kDecodeShape, {{"values", kSpecials}}), 161}, {with(kDecodeShape, {{"values", kSpecials}}), 162},
       {with(kDecodeShape, {{"values", kSpecials}, {"varlen", true}}), 163}});
}

const Json kPrefillShape{{"s_q", 3}, {"h_q", 8}, {"d_qk", 576}, {"s_kv", 96}, {"topk", 40}};

ZooEntry prefill_clamp_invalid() {
  return kernel_variant_entry(
      {.id = "17", .title = "sparse prefill clamps invalid indices into range (0 x NaN from unreferenced rows)",
       .known_bugs_ref = "known-bugs #10", .enable = "sparse_mla_prefill kernel variant clamp_invalid",
       .expected = Detector::nan_placement, .diagnosis_must_contain = {"NaN"}},
      "sparse_mla_prefill", "clamp_invalid",
      {{kPrefillShape, 170}, {with(kPrefillShape, {{"values", kSpecials}}), 171}, {with(kPrefillShape, {{"values", kSpecials}}), 172}});
}

ZooEntry prefill_drop_sink() {
  return kernel_variant_entry(
      {.id = "18", .title = "sparse prefill drops the attention sink from the denominator",
       .known_bugs_ref = "ops.md sparse_mla_prefill attn_sink", .enable = "sparse_mla_prefill kernel variant drop_sink",
       .expected = Detector::oracle_localisation, .diagnosis_must_contain = {"FAIL out"}},
      "sparse_mla_prefill", "drop_sink",
      {{with(kPrefillShape, {{"sink", false}}), 180}, {with(kPrefillShape, {{"sink", true}}), 181}});
}

ZooEntry prefill_log2_lse() {
  // The kernel refuses lse_units=log2 cases (CannotImplement); the variant writes log2 lse into an ln contract.
  return kernel_variant_entry(
      {.id = "19", .title = "sparse prefill returns lse in log2 units (FlashMLA version trap)",
       .known_bugs_ref = "known-bugs #7", .enable = "sparse_mla_prefill kernel variant log2_lse",
       .expected = Detector::oracle_localisation, .diagnosis_must_contain = {"FAIL lse"}},
      "sparse_mla_prefill", "log2_lse", {{kPrefillShape, 190}, {with(kPrefillShape, {{"s_q", 2}, {"h_q", 4}}), 191}});
}

const Json kTopkShape{{"R", 4}, {"C", 300}, {"topk", 40}, {"attr.index_base", "absolute"}, {"attr.masked", "minus1"}};

ZooEntry topk_raw_bits_key() {
  return kernel_variant_entry(
      {.id = "20", .title = "top-k radix select on raw float bits (negatives misordered)",
       .known_bugs_ref = "ops.md top-k ordering", .enable = "topk kernel variant raw_bits_key",
       .expected = Detector::oracle_localisation, .diagnosis_must_contain = {"FAIL"}},
      "topk", "raw_bits_key", {{Json{{"R", 3}, {"C", 10}, {"topk", 32}}, 200}, {kTopkShape, 201}});
}

ZooEntry topk_neg_inf_valid() {
  return kernel_variant_entry(
      {.id = "21", .title = "top-k counts -inf logits as valid (slots that must be -1 filled)",
       .known_bugs_ref = "ops.md top-k -1 padding", .enable = "topk kernel variant neg_inf_valid",
       .expected = Detector::oracle_localisation, .diagnosis_must_contain = {"FAIL"}},
      "topk", "neg_inf_valid", {{kTopkShape, 210}, {with(kTopkShape, {{"values", kSpecials}}), 211},
                                {with(kTopkShape, {{"values", kSpecials}}), 212}});
}

}  // namespace

std::vector<ZooEntry> attention_kernel_entries() {
  return {indexer_ke_off_by_one(), paged_mask_broadcast_heads(), decode_gather_invalid_rows(), decode_combine_no_inf_guard(),
          prefill_clamp_invalid(), prefill_drop_sink(),          prefill_log2_lse(),           topk_raw_bits_key(),
          topk_neg_inf_valid()};
}

}  // namespace dsv4::fuzz::zoo::detail
