// The one call every small-row kernel (gemm_smallrow_{portable,avx2,avx512}.cpp) implements: C = A·Bᵀ for
// a few float64 rows of A against rows of 16-bit codes of B (bf16 or fp16), decoded exactly inside the
// FMA loop. Plain data only, so each ISA's file includes nothing that could be compiled for its ISA
// and then shared with the rest of the program (one binary runs on any x86-64).
#pragma once
#include <cstdint>

namespace dsv4::gemm::smallrow {

struct Job {
  const double* a;         // A [n, k], row stride lda (elements)
  std::int64_t lda;
  const std::uint16_t* b;  // B [m, k] codes, unit stride along k, row stride ldb (elements)
  std::int64_t ldb;
  bool fp16;               // codes are fp16 (else bf16)
  const double* table;     // the exact value of every fp16 code (the portable kernel's and the k tails' fp16 decode)
  double* c;               // C [n, m], row stride ldc; overwritten (beta = 0)
  std::int64_t ldc;
  std::int64_t n, m, k;
  std::int64_t kc;         // k is summed in chunks of kc (> 0): A's chunk stays in cache across B's rows
};

// Each kernel: C[i, j] = Σ_t A[i, t]·B[j, t] for every i < n, j < m, in float64 (any summation order;
// every product of a double and a decoded code is rounded once, every partial sum once per add).
void run_portable(const Job& job);
void run_avx2(const Job& job);    // needs AVX2, FMA and F16C
void run_avx512(const Job& job);  // needs AVX-512F/VL/BW, AVX2, FMA and F16C

}  // namespace dsv4::gemm::smallrow
