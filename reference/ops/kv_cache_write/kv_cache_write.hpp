// Float64 reference of kv_cache_write: quantize bf16 kv rows and insert them into an FP8 sparse KV
// cache (V32_FP8Sparse or MODEL1_FP8Sparse, ops.md §3.1), the reference for the cache-write kernels.
// Each row is split into NoPE (fp8 tiles with one scale each, chosen by scale_recipe, formats.md §5:
// flashmla-kv-test | vllm-v4-kv | plain-fp32 (V3.2 fp32 scales only)) and RoPE (bf16 copy).
//   - slot_mapping[i] < 0 means padding: row i is not written (vLLM's convention);
//     slot_mapping[i] >= num_slots is an InputError; duplicate slots: the later row wins;
//   - the MODEL1 pad byte is written as 0; every byte not belonging to a written slot is unchanged.
// Output k_cache: a copy of the input cache bytes (same shape, strides and padding) with the rows written.
#pragma once
#include "reference/registry/op_descriptor.hpp"

namespace dsv4 {

Outputs kv_cache_write_reference(const OpCase& c);

}  // namespace dsv4
