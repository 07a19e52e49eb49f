// Random tensor fills for the op generators (GEMMs, indexer, quant ops): Gaussian values scaled by
// `sigma`, stored with one rounding (set() for F32/F16/BF16; rne-satfinite codes for fp8). A fill
// is never all zeros (a zero draw is replaced). Reads shape-JSON fields with a clear error.
#pragma once
#include <cstdint>
#include <random>
#include <string>

#include "reference/registry/op_descriptor.hpp"

namespace dsv4::gemm {

// Fills every element of t (any strides) with sigma·N(0,1), encoded in t's dtype.
void fill_randn(Tensor& t, std::mt19937_64& rng, double sigma);

// A new contiguous tensor filled by fill_randn.
Tensor randn(DType t, Shape shape, std::mt19937_64& rng, double sigma);

// shape[key] as an integer >= min_value, or `fallback` when absent (fallback < 0 = required).
std::int64_t shape_int(const Json& shape, const std::string& key, std::int64_t fallback = -1,
                       std::int64_t min_value = 0);
std::string shape_str_field(const Json& shape, const std::string& key, const std::string& fallback);

// A floating dtype named by a shape JSON ("bf16", "fp16", "fp32", "e4m3fn", "e4m3fnuz").
DType parse_dtype_name(const std::string& s);

}  // namespace dsv4::gemm
