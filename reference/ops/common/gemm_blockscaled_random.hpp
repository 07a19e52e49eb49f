// Random block-scaled fp8 operands for the generators of fp8_gemm_blockscaled and fp8_einsum: fp8
// codes from N(0, 16²) (spanning the e4m3 range), and block scales in one of three stored forms:
//   "fp32"          F32 row_major scales in [2^-10, 2^-6)·U(1,2) (not powers of two);
//   "fp32_mn_major" the same values in an MN-major F32 view (stride(-2)=1, stride(-1)=align(rows,4));
//   "ue8m0"         F8_E8M0 bytes 2^-12..2^-4 (typed UE8M0);
//   "packed_ue8m0"  the same exponents packed 4 per I32 word (DeepGEMM layout).
#pragma once
#include <random>
#include <string>

#include "reference/tensor/tensor.hpp"

namespace dsv4::gemm {

Tensor random_block_scales(std::mt19937_64& rng, const std::string& form, std::int64_t rows, std::int64_t groups);

}  // namespace dsv4::gemm
