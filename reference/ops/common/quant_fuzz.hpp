// Fuzz helpers shared by the FP8 quantization ops' fuzz spaces (per_token_group_quant_fp8, per_block_quant_fp8,
// inv_rope_fp8_quant): the scale layout and recipe as attr.* keys (packed only with power-of-two recipes, as the
// contract requires), and rows that drive the scale to its extremes.
#pragma once
#include <random>

#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops {

// Draws attr.scale_layout (row_major only if allowed), attr.scale_recipe and sometimes attr.fp8_dtype into s.
void quant_attrs(Json& s, std::mt19937_64& rng, bool allow_row_major);

// Scale-extreme rows over a [rows, cols] view (any float dtype): all zero (the amax floor), +-top (the top E8M0
// bytes), 2^-120-scaled (the bottom clamp), one non-zero element, signed zeros, or left as drawn.
void extreme_rows(Tensor& x, std::mt19937_64& rng, double top);

}  // namespace dsv4::ops
