// C = A·Bᵀ where B [m, k] is decoded on the fly and never held whole as a float64 matrix: B's rows go
// in panels of kPanelRows rows x kPanelCols columns through a per-thread buffer (cache-sized), one
// single-threaded OpenBLAS dgemm per panel accumulating into C's columns of that panel. Panels of
// different rows go to different OpenMP threads (outside a parallel region; inside one, the caller's
// thread runs them all), so no two threads write the same C column. Each C element is a float64 sum
// over k (blocked by kPanelCols, then by OpenBLAS): within every op's error model. A of one row is a
// GEMV: memory-bound on decoding B (2 flops per decoded element), far below the dgemm peak.
#pragma once
#include <cstdint>
#include <functional>

#include "reference/ops/common/blas_gemm.hpp"

namespace dsv4::gemm {

inline constexpr std::int64_t kPanelRows = 256;
inline constexpr std::int64_t kPanelCols = 512;

// Writes B[j0:j0+n, k0:k0+w] as float64 into dst (row-major, leading dimension w). Called
// concurrently from several threads on disjoint panels, inside an OpenMP region: it must not throw
// (validate the operand before the product).
using PanelSource = std::function<void(std::int64_t j0, std::int64_t n, std::int64_t k0, std::int64_t w, double* dst)>;

// C [n, m] = A [n, k] · Bᵀ + beta·C, B [m, k] given by `source`.
void product_nt_panels(const ConstRef& A, std::int64_t m, const PanelSource& source, MutRef C, double beta = 0.0);

// The panel source of a 2-D tensor's rows, decoded exactly (decode_block); b must outlive it.
PanelSource tensor_rows(const Tensor& b);

}  // namespace dsv4::gemm
