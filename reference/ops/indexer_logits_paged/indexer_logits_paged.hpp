// Float64 reference of `indexer_logits_paged` (DeepGEMM fp8_paged_mqa_logits, ops.md §4.2), and the
// cache-block byte layout it reads: per block, block_kv·D fp8 bytes (token t at t·D), then block_kv
// little-endian fp32 scales (token t at block_kv·D + 4t) — structure-of-arrays; the tensor view is
// [num_blocks, block_kv, 1, D+4] uint8 and must be contiguous. The fp8 format is q's.
#pragma once
#include <cstdint>

#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops {

Outputs indexer_logits_paged_reference(const OpCase& c);
OpDescriptor indexer_logits_paged_descriptor();

// Writers for tests and generators: put token `slot` of `block` (fp8 code row of D bytes, scale).
void paged_kv_write(Tensor& kv_cache, std::int64_t block, std::int64_t slot, const std::uint8_t* codes, float scale);

}  // namespace dsv4::ops
