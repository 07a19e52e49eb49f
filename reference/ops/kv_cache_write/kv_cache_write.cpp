// Float64 reference of kv_cache_write; see kv_cache_write.hpp.
#include "reference/ops/kv_cache_write/kv_cache_write.hpp"

#include <cstring>
#include <vector>

#include "reference/ops/common/attn_io.hpp"
#include "reference/ops/common/checks.hpp"
#include "reference/ops/common/kv_cache_layout.hpp"

namespace dsv4 {

namespace {
constexpr const char* kOp = "kv_cache_write";

// A copy of t's whole storage, viewed with t's shape, strides and offset.
Tensor copy_storage(const Tensor& t) {
  Tensor raw = Tensor::empty(DType::U8, {static_cast<std::int64_t>(t.storage_bytes())});
  const std::byte* start = t.data() - t.offset() * static_cast<std::int64_t>(t.element_bytes());
  std::memcpy(raw.data(), start, t.storage_bytes());
  return raw.view_as(t.dtype()).as_strided(t.shape(), t.strides(), t.offset());
}
}  // namespace

Outputs kv_cache_write_reference(const OpCase& c) {
  using namespace attn;
  const auto layout = kv::parse_cache_layout(attr_string(kOp, c.attrs, "cache_layout"));
  checks::require(layout.has_value(), kOp, "cache_layout", "must be V32_FP8Sparse or MODEL1_FP8Sparse");
  const auto recipe = kv::parse_scale_recipe(attr_string(kOp, c.attrs, "scale_recipe"));
  checks::require(recipe.has_value(), kOp, "scale_recipe", "must be flashmla-kv-test, vllm-v4-kv or plain-fp32");
  checks::require(!(*recipe == kv::ScaleRecipe::plain_fp32 && *layout == kv::CacheLayout::MODEL1_FP8Sparse), kOp,
                  "scale_recipe", "plain-fp32 scales are not powers of two and cannot be stored as UE8M0 (MODEL1)");
  const std::string f8 = attr_string_or(kOp, c.attrs, "fp8_format", "e4m3fn");
  checks::require(f8 == "e4m3fn" || f8 == "e4m3fnuz", kOp, "fp8_format", "must be e4m3fn or e4m3fnuz");
  kv::QuantizeOptions qo;
  qo.recipe = *recipe;
  qo.fp8 = f8 == "e4m3fn" ? formats::Format::e4m3fn : formats::Format::e4m3fnuz;
  checks::require(!(qo.fp8 == formats::Format::e4m3fnuz && qo.recipe == kv::ScaleRecipe::flashmla_kv_test), kOp,
                  "fp8_format", "the flashmla-kv-test recipe is defined for e4m3fn only");
  const kv::LayoutInfo& li = kv::layout_info(*layout);

  const Tensor& rows = c.in("kv");
  const Tensor& slots = c.in("slot_mapping");
  checks::dtype_in(kOp, "kv", rows, {DType::BF16, DType::F32});
  checks::rank(kOp, "kv", rows, 2, "[n_tokens, d_qk]");
  checks::dim_eq(kOp, "kv", rows, 1, li.d_qk, "d_qk of the cache layout");
  checks::dtype_in(kOp, "slot_mapping", slots, {DType::I64, DType::I32});
  checks::rank(kOp, "slot_mapping", slots, 1, "[n_tokens]");
  checks::dim_eq(kOp, "slot_mapping", slots, 0, rows.size(0), "n_tokens (kv.size(0))");
  const kv::CacheView view = kv::cache_view(kOp, "k_cache", c.in("k_cache"), *layout);
  const std::int64_t n = rows.size(0);
  std::vector<std::int64_t> slot(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    slot[i] = load_index(slots, i * slots.stride(0));
    checks::require(slot[i] < view.num_slots(), kOp, "slot_mapping",
                    fmt::format("slot_mapping[{}] = {} must be < num_blocks * block_size = {} (negative = skip)", i,
                                slot[i], view.num_slots()));
  }
  Tensor out = copy_storage(c.in("k_cache"));
  auto* base = reinterpret_cast<std::uint8_t*>(out.data());
  std::vector<double> row(static_cast<std::size_t>(li.d_qk));
  for (std::int64_t i = 0; i < n; ++i) {  // sequential: a duplicate slot keeps the later row
    if (slot[i] < 0) continue;
    for (int d = 0; d < li.d_qk; ++d) row[d] = load_float(rows, i * rows.stride(0) + d * rows.stride(1));
    kv::quantize_insert_row(*layout, base, view.block_size, view.block_stride, slot[i], row.data(), qo);
  }
  return {{"k_cache", out}};
}

}  // namespace dsv4
