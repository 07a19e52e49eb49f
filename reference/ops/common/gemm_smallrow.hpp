// C = A·Bᵀ for a few rows of A (float64) against a bf16 or fp16 B [m, k] read in place: each code is
// decoded inside the FMA loop (exactly, to float64) and never stored, so B, the big operand, is read from
// memory once and never packed. The skinny products of few rows (a GEMV at one row) use it instead of the
// panel-decoded dgemm (gemm_panels), whose packing and decode passes dominate there.
// Kernels per SIMD level, chosen at run time from the CPU (one binary on any x86-64): portable C++,
// AVX2 + FMA + F16C, AVX-512F (+ AVX2, FMA, F16C); each in its own file (gemm_smallrow_<level>.cpp).
// Rows of B are split over the OpenMP threads (outside a parallel region; inside one, the caller's thread
// runs them all). Each C element is a float64 sum over k in an order of the kernel's (lane-strided
// partial sums, k in chunks): within every op's error model, like the dgemm's own blocked order.
#pragma once
#include <cstdint>
#include <vector>

#include "reference/ops/common/blas_gemm.hpp"

namespace dsv4::gemm {

enum class SimdLevel { portable, avx2, avx512 };

const char* simd_level_name(SimdLevel level);

// The levels this CPU and OS can run, portable first, fastest last.
std::vector<SimdLevel> simd_levels_available();
SimdLevel best_simd_level();

// Products of at most this many rows of A take the small-row path in the GEMM references (the
// measured crossover with the panel-decoded dgemm: bench/reference/RESULTS_reference_cpu.md).
inline constexpr std::int64_t kSmallRowMaxRows = 96;

// Whether b can be B here: a 2-D bf16 or fp16 tensor with unit stride along dim 1.
bool smallrow_operand(const Tensor& b);

// C [n, m] = A [n, k] · Bᵀ with B = b [m, k] (smallrow_operand), at the given level (which must be in
// simd_levels_available(); std::invalid_argument otherwise, or on shapes that do not agree).
void product_nt_smallrow(const ConstRef& A, const Tensor& b, MutRef C, SimdLevel level);
void product_nt_smallrow(const ConstRef& A, const Tensor& b, MutRef C);  // at best_simd_level()

// Whether q can be the B of product_nt_smallrow_blockscaled: a 2-D 1-byte float (fp8) with unit stride along dim 1.
bool smallrow_fp8_operand(const Tensor& q);

// C [n, m] = A [n, k] · Bᵀ with B = decode(q) · scale (gemm_blockscaled.hpp: q [m, k] fp8, sf its block scales
// per row_block rows x 128 columns, checked by the caller), each code looked up in its exact table and scaled
// in registers: the fp8 twin of the call above, no panel of B ever decoded to memory.
void product_nt_smallrow_blockscaled(const ConstRef& A, const Tensor& q, const Tensor& sf, std::int64_t row_block,
                                     MutRef C, SimdLevel level);
void product_nt_smallrow_blockscaled(const ConstRef& A, const Tensor& q, const Tensor& sf, std::int64_t row_block,
                                     MutRef C);

}  // namespace dsv4::gemm
