// Zoo entries of the attention-side kernels' planted variants (indexer logits, paged indexer logits,
// sparse MLA decode and prefill, top-k), each run through the shared harness (run_under_test + the op's
// oracle) on generated cases; the fuzz layer's "values": "specials" key supplies the ingredients (invalid
// indices, NaN in unreferenced KV rows, -inf logits, empty rows). Where a shape hides the bug, the stream
// opens with it, so "cases until detection" names the ingredient.
//  13 ke_off_by_one: the last key of each row's [ks, ke) window is dropped (clean_logits: it reads -inf);
//  14 mask_broadcast_heads: row t's causal mask broadcast over the next_n rows (exact with next_n = 1);
//  19 log2_lse: the kernel refuses lse_units=log2 cases (CannotImplement); the variant writes log2 units
//     into an ln contract.
#include "fuzz/zoo/zoo_detail.hpp"

namespace dsv4::fuzz::zoo::detail {

namespace {

Json with(Json s, const Json& extra) {
  for (const auto& [k, v] : extra.items()) s[k] = v;
  return s;
}

}  // namespace

std::vector<ZooEntry> attention_kernel_entries() {
  const Json specials{{"values", "specials"}};
  const Json indexer{{"S", 4}, {"S_kv", 60}, {"H", 4}, {"D", 32}, {"attr.clean_logits", true}};
  const Json paged{{"B", 2}, {"H", 4}, {"D", 32}, {"block_kv", 8}, {"max_context_len", 40}};
  const Json decode{{"b", 2}, {"s_q", 1}, {"h_q", 4}, {"d_qk", 576}, {"block_size", 61}, {"num_blocks", 2}, {"topk", 64}};
  const Json decode_one_split{{"b", 1}, {"s_q", 1}, {"h_q", 4}, {"d_qk", 576}, {"block_size", 64}, {"num_blocks", 1}, {"topk", 16}};
  const Json prefill{{"s_q", 3}, {"h_q", 8}, {"d_qk", 576}, {"s_kv", 96}, {"topk", 40}};
  const Json topk{{"R", 4}, {"C", 300}, {"topk", 40}, {"attr.index_base", "absolute"}, {"attr.masked", "minus1"}};
  return kernel_variant_entries({
      {"13", "indexer_logits", "ke_off_by_one", "indexer logits window end off by one (last key dropped)", "known-bugs #8 class",
       Detector::nan_placement, {"Inf", "logits"}, "", {{indexer, 130}, {Json{{"S", 3}, {"S_kv", 150}, {"H", 16}, {"D", 128}}, 131}}},
      {"14", "indexer_logits_paged", "mask_broadcast_heads", "paged indexer causal mask broadcast over next_n rows", "known-bugs #8",
       Detector::oracle_localisation, {"FAIL logits"}, "", {{with(paged, {{"next_n", 1}}), 140}, {with(paged, {{"next_n", 4}}), 141}}},
      {"15", "sparse_mla_decode", "gather_invalid_rows", "sparse decode gathers the rows of -1 indices (0 x NaN from unwritten slots)",
       "known-bugs #10", Detector::nan_placement, {"NaN"}, "", {{decode, 150}, {with(decode, specials), 151}, {with(decode, specials), 152}}},
      {"16", "sparse_mla_decode", "combine_no_inf_guard", "split-KV combine without the -inf guard (lonely queries become NaN)",
       "known-bugs #6 family", Detector::nan_placement, {"NaN"}, "",
       {{decode_one_split, 159}, {decode, 160}, {with(decode, specials), 161}, {with(decode, specials), 162}, {with(decode, with(specials, {{"varlen", true}})), 163}}},
      {"17", "sparse_mla_prefill", "clamp_invalid", "sparse prefill clamps invalid indices into range (0 x NaN from unreferenced rows)",
       "known-bugs #10", Detector::nan_placement, {"NaN"}, "", {{prefill, 170}, {with(prefill, specials), 171}, {with(prefill, specials), 172}}},
      {"18", "sparse_mla_prefill", "drop_sink", "sparse prefill drops the attention sink from the denominator",
       "ops.md sparse_mla_prefill attn_sink", Detector::oracle_localisation, {"FAIL out"}, "",
       {{with(prefill, {{"sink", false}}), 180}, {with(prefill, {{"sink", true}}), 181}}},
      {"19", "sparse_mla_prefill", "log2_lse", "sparse prefill returns lse in log2 units (FlashMLA version trap)", "known-bugs #7",
       Detector::oracle_localisation, {"FAIL lse"}, "", {{prefill, 190}, {with(prefill, {{"s_q", 2}, {"h_q", 4}}), 191}}},
      {"20", "topk", "raw_bits_key", "top-k radix select on raw float bits (negatives misordered)", "ops.md top-k ordering",
       Detector::oracle_localisation, {"FAIL"}, "", {{Json{{"R", 3}, {"C", 10}, {"topk", 32}}, 200}, {topk, 201}}},
      {"21", "topk", "neg_inf_valid", "top-k counts -inf logits as valid (slots that must be -1 filled)", "ops.md top-k -1 padding",
       Detector::oracle_localisation, {"FAIL"}, "", {{topk, 210}, {with(topk, specials), 211}, {with(topk, specials), 212}}},
  });
}

}  // namespace dsv4::fuzz::zoo::detail
