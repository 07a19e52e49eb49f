// Random-case helpers for the attention generators, after FlashMLA's tests/lib.py as ops.md §2/§3.3
// describe it: values randn/10 + U(-0.05, 0.05) rounded to bf16; unique index permutations padded
// with invalid values; sinks mixing -inf, +inf and finite values.
#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include "reference/tensor/tensor.hpp"

namespace dsv4::attn {

// randn/10 + U(-0.05, 0.05), as a float64 (caller rounds by storing into bf16).
double gen_value(std::mt19937_64& rng);

// A BF16 tensor of `shape` filled with gen_value, stored as a view with the last dimension
// contiguous but the second-to-last dimension padded by `pad` elements when pad > 0 (non-contiguous).
Tensor gen_bf16(std::mt19937_64& rng, const Shape& shape, std::int64_t pad = 0);

// One row of `topk` indices: a prefix of a random permutation of [0, n_keys) of length n_valid
// (n_valid <= min(topk, n_keys)), the rest filled from `invalid_values` (mixed at random).
std::vector<std::int64_t> gen_index_row(std::mt19937_64& rng, std::int64_t n_keys, std::int64_t topk,
                                        std::int64_t n_valid, const std::vector<std::int64_t>& invalid_values);

// Sink values: ~30% -inf, ~30% +inf, the rest N(0,1)-ish finite.
Tensor gen_sink(std::mt19937_64& rng, std::int64_t h);

}  // namespace dsv4::attn
