// Drawing helpers for the ops' fuzz spaces (reference/ops/<op>/fuzz_space.cpp) and the fuzz value layer: picking
// from lists, alignment-edge integers, storing a float64 into any floating tensor (fp8 through RNE satfinite
// encoding), the largest finite value of a dtype, and E8M0 extremes in scale tensors.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <random>
#include <vector>

#include "reference/tensor/tensor.hpp"

namespace dsv4::draw {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <typename T>
T pick(std::mt19937_64& rng, const std::vector<T>& v) {
  return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
}
inline std::int64_t pick_int(std::mt19937_64& rng, std::initializer_list<std::int64_t> v) {
  return pick(rng, std::vector<std::int64_t>(v));
}
inline std::int64_t uniform(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
}
inline bool coin(std::mt19937_64& rng, double p = 0.5) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }

// A multiple of `align` in [align, align*max_mult] or one of its +-delta neighbours (clamped to >= lo).
std::int64_t align_edge(std::mt19937_64& rng, std::int64_t align, std::int64_t max_mult, std::int64_t delta = 1,
                        std::int64_t lo = 1);

// Stores v into element i (linear, logical order) of a floating tensor; fp8 codes by RNE satfinite.
void store(Tensor& t, std::int64_t i, double v);
// A value dtype the distributions rewrite: F64, F32, F16, BF16 and the fp8 element formats (not E8M0 scales).
bool is_value_dtype(DType t);
// Largest finite magnitude of a value dtype.
double max_finite_of(DType t);

// E8M0 extremes in a scale tensor (F8_E8M0 bytes or I32 words of 4 packed bytes): sets the byte of
// `row` (first index) in every group to `byte`. F32 scales are left alone (no E8M0 there).
void set_e8m0_row(Tensor& scales, std::int64_t row, std::uint8_t byte);

}  // namespace dsv4::draw
