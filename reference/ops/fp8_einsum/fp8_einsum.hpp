// Float64 reference of `fp8_einsum` 'bhr,hdr->bhd' (DeepGEMM fp8_einsum, ops.md §8):
//   d[b,h,n] = Σ_kb x_sf[b,h,kb]·w_sf[h,n/128,kb]·Σ_{r∈kb} x[b,h,r]·w[h,n,r]  (+ c),
// computed per head as dequantize-then-GEMM in float64 and rounded once to d's dtype (bf16, or fp32
// when c is given). recipe (1,128,128): w_sf [H, ceil(D/128), ceil(R/128)]; (1,1,128): w_sf [H, D, ...].
#pragma once
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops {

Outputs fp8_einsum_reference(const OpCase& c);
OpDescriptor fp8_einsum_descriptor();

}  // namespace dsv4::ops
