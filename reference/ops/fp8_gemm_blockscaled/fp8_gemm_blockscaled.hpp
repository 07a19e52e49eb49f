// Float64 reference of `fp8_gemm_blockscaled` (DeepGEMM fp8_gemm_nt, recipe 1x128 activations x
// 128x128 weights, ops.md §7 / formats.md §7): d[m,n] = Σ_kb x_sf[m,kb]·w_sf[n/128,kb]·Σ_{k∈kb} x·w (+ c),
// computed as dequantize-then-GEMM in float64 (exact scaling) and rounded once to d's dtype.
// w_sf may also be given per row ([N, ...], the SM100 broadcast along N).
#pragma once
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops {

Outputs fp8_gemm_blockscaled_reference(const OpCase& c);
OpDescriptor fp8_gemm_blockscaled_descriptor();

}  // namespace dsv4::ops
