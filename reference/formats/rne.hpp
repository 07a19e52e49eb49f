// Round-to-nearest-even of an exact float64 value onto a format's grid: the building block of every
// encode mode (encode.hpp), and what tensors use to store a float64 result as bf16/fp16/fp32 once.
#pragma once
#include <cstdint>

#include "reference/formats/format.hpp"

namespace dsv4::formats {

// Result of rounding |x| (x finite, non-NaN) to the format's grid, before any overflow policy.
struct RoundedMagnitude {
  std::uint32_t magnitude_code;  // code without the sign bit; may exceed the largest finite code
  bool overflow;                 // magnitude_code is past the largest finite code (or x was huge)
};

// RNE of |x| onto the grid of f (not e8m0). Exact: works on the float64 value directly, so no
// double rounding. If `truncate` is set, rounds toward zero instead.
RoundedMagnitude round_magnitude(Format f, double abs_x, bool truncate = false);

// Direction of rounding for round_magnitude: RNE, toward zero, nearest with ties toward zero
// (DeepGEMM fp4 bucketize), nearest with ties away from zero (microxcaling "nearest").
enum class RoundDir : std::uint8_t { nearest_even, toward_zero, nearest_ties_to_zero, nearest_ties_away };
RoundedMagnitude round_magnitude(Format f, double abs_x, RoundDir dir);

// Largest finite magnitude code of f (0x7E e4m3fn, 0x7F e4m3fnuz, 0x7B e5m2, 0x7F e5m2fnuz,
// 0x7 e2m1fn, 0x7F7F bf16, 0x7BFF fp16, 0xFE e8m0fnu).
std::uint32_t max_finite_code(Format f);

// IEEE-style RNE for the ieee formats (bf16, fp16, e5m2): overflow to +-Inf, NaN to the quiet NaN
// with the sign kept (bf16 0x7FC0|s, fp16 0x7E00|s, e5m2 0x7E|s). Used to store float64 results.
std::uint32_t encode_ieee_rne(Format f, double x);

}  // namespace dsv4::formats
