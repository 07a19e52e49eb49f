// The one call every small-row kernel (gemm_smallrow_{portable,avx2,avx512}.cpp) implements: C = A·Bᵀ for
// a few float64 rows of A against rows of codes of B (bf16, fp16, or fp8 with block scales), decoded
// exactly inside the FMA loop. Plain data only, so each ISA's file includes nothing that could be compiled for its ISA
// and then shared with the rest of the program (one binary runs on any x86-64).
#pragma once
#include <cstdint>

namespace dsv4::gemm::smallrow {

// fp8: any fp8 code through its exact table; e4m3: e4m3fn/e4m3fnuz codes without NaN, widened in
// registers through fp16 bits to value · 2^-8 (fn) or 2^-7 (fnuz), the factor put back into the scales.
enum class BKind { bf16, fp16, fp8, e4m3 };

inline constexpr std::int64_t kScaleGroupCols = 128;  // fp8: one scale per row block x 128 columns of k

struct Job {
  const double* a;         // A [n, k], row stride lda (elements)
  std::int64_t lda;
  const void* b;           // B [m, k] codes (uint16_t, or uint8_t for fp8), unit stride along k, row stride ldb
  std::int64_t ldb;
  BKind kind;
  const double* table;     // the exact value of every code (fp16, fp8: the decode where no instruction does it)
  // fp8 only: B's value is table[code] · scales[((row0 + row) / scale_rows) · scale_groups + k / 128].
  const double* scales;
  std::int64_t scale_rows, scale_groups, row0;
  double code_factor;      // e4m3: 2^-8 (fn) or 2^-7 (fnuz), the scales hold the inverse
  double* c;               // C [n, m], row stride ldc; overwritten (beta = 0)
  std::int64_t ldc;
  std::int64_t n, m, k;
  std::int64_t kc;         // k is summed in chunks of kc (> 0; fp8: a multiple of 128): A's chunk stays in cache
};

// Each kernel: C[i, j] = Σ_t A[i, t]·B[j, t] for every i < n, j < m, in float64 (any summation order;
// every product of a double and a decoded code is rounded once, every partial sum once per add).
void run_portable(const Job& job);
void run_avx2(const Job& job);    // needs AVX2, FMA and F16C
void run_avx512(const Job& job);  // needs AVX-512F/VL/BW, AVX2, FMA and F16C

}  // namespace dsv4::gemm::smallrow
