// FP8 sparse KV-cache generation helpers; see kv_cache_gen.hpp.
#include "reference/ops/common/kv_cache_gen.hpp"

#include "reference/ops/common/attn_gen.hpp"
#include "reference/ops/common/attn_sparse_core.hpp"

namespace dsv4::kv {

Tensor alloc_cache(CacheLayout l, std::int64_t num_blocks, std::int64_t block_size) {
  const LayoutInfo& li = layout_info(l);
  const std::int64_t bb = block_bytes_padded(l, block_size);
  Tensor raw = Tensor::empty(DType::U8, {std::max<std::int64_t>(num_blocks * bb, 1)});
  raw.fill_bytes(0xFF);
  return raw.as_strided({num_blocks, block_size, 1, li.bytes_per_token}, {bb, li.bytes_per_token, li.bytes_per_token, 1},
                        0);
}

std::uint8_t* cache_base(Tensor& cache) { return reinterpret_cast<std::uint8_t*>(cache.data()); }

std::vector<double> fill_slots(std::mt19937_64& rng, Tensor& cache, CacheLayout l, const std::vector<std::int64_t>& slots,
                               const QuantizeOptions& o) {
  const LayoutInfo& li = layout_info(l);
  const std::int64_t bs = cache.size(1);
  const std::int64_t stride = cache.size(0) > 1 ? cache.stride(0) : block_bytes_padded(l, bs);
  std::vector<double> rows(slots.size() * static_cast<std::size_t>(li.d_qk));
  for (std::size_t i = 0; i < slots.size(); ++i) {
    double* r = rows.data() + i * li.d_qk;
    for (int d = 0; d < li.d_qk; ++d) r[d] = attn::round_to_bf16(attn::gen_value(rng));
    quantize_insert_row(l, cache_base(cache), bs, stride, slots[i], r, o);
  }
  return rows;
}

}  // namespace dsv4::kv
