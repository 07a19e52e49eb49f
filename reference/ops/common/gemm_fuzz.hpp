// Fuzz specials shared by the block-scaled fp8 GEMM ops' fuzz spaces (fp8_gemm_blockscaled, fp8_einsum).
#pragma once
#include <random>

#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops {

// E8M0 extremes on the activation side (x_sf of E8M0 or packed I32 scales; F32 scales are left alone): one row
// gets scale byte 0x00 (2^-127, x left normal), another 0xFE (2^127) with its fp8 codes zeroed, so every exact
// product stays finite.
void e8m0_extremes(OpCase& c, std::mt19937_64& rng);

// Zeroes about a fifth of the rows of x (fp8 codes).
void zero_rows(Tensor& x, std::mt19937_64& rng);

// The specials of both ops: zero rows of w, then the E8M0 extremes.
void blockscaled_specials(OpCase& c, const Json& shape, std::mt19937_64& rng);

}  // namespace dsv4::ops
