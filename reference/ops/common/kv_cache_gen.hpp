// Test/fuzz helpers for FP8 sparse KV caches: allocate a cache tensor in a layout (MODEL1 blocks padded
// to a multiple of 576 bytes, as FlashMLA), poison it with NaN bytes, and fill chosen slots with
// quantized random rows (randn/10 + U(-0.05, 0.05), bf16) so unreferenced slots stay NaN (ops.md §3.2).
#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include "reference/ops/common/kv_cache_layout.hpp"

namespace dsv4::kv {

// A U8 cache [num_blocks, block_size, 1, bytes_per_token] with stride(0) = block_bytes_padded, every
// byte 0xFF (NaN in e4m3fn, fp32, bf16 and e8m0).
Tensor alloc_cache(CacheLayout l, std::int64_t num_blocks, std::int64_t block_size);

// Mutable base pointer and block stride of a cache made by alloc_cache (or any valid cache tensor).
std::uint8_t* cache_base(Tensor& cache);

// Writes quantized random rows into `slots` (values rounded to bf16 first); returns the bf16 rows
// written, [slots.size() x d_qk] row-major.
std::vector<double> fill_slots(std::mt19937_64& rng, Tensor& cache, CacheLayout l, const std::vector<std::int64_t>& slots,
                               const QuantizeOptions& o);

}  // namespace dsv4::kv
