// Float64 reference of `skinny_gemm` (ops.md §6): out[n,m] = round(Σ_k a[n,k]·b[m,k] + bias[...]),
// with the bias broadcast rule `bias[(m % Bx) + (n % By)·Bx]` and one rounding to a's dtype. Also
// the per-element error bound of an fp32-accumulating kernel (error_model.md).
#pragma once
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops {

// Checks the skinny_gemm arguments (InputError naming argument and rule); returns nothing.
void skinny_gemm_check(const OpCase& c);

Outputs skinny_gemm_reference(const OpCase& c);

// Per-element bound on |kernel − reference| for out (shaped [N, M], F64): see error_model.md.
std::map<std::string, Tensor> skinny_gemm_error_bound(const OpCase& c, const Outputs& expected);

OpDescriptor skinny_gemm_descriptor();

}  // namespace dsv4::ops
