// The small-row kernel on AVX-512 (gemm_smallrow_tile.hpp with 8 doubles a vector): B's 8 codes a step
// widened to float32 (bf16: a byte shuffle into the high halves; fp16: vcvtph2ps), then to float64, both
// exact; fp8 codes gathered from the table of their exact values, then scaled. Tiles of 3 B rows x 5..8
// A rows (24 accumulators, 3 decoded B vectors, A read by the FMAs: 32 registers), 6 x 3..4, and 8 x
// 1..2: with one or two rows of A, more rows of B per tile keep more loads in flight and amortise A's (a
// GEMV is bound by B's bytes and their decode: bench/reference/RESULTS_reference_cpu.md).
// Only called when the CPU has AVX-512F, AVX2, FMA and F16C (gemm_smallrow.cpp checks at run time).
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define DSV4_SMALLROW_TARGET __attribute__((target("avx512f,avx2,fma,f16c")))
#include "reference/ops/common/gemm_smallrow_tile.hpp"

namespace dsv4::gemm::smallrow {
namespace {

struct Avx512 {
  using vec = __m512d;
  static constexpr int kLanes = 8;
  static constexpr int kMaxNr = 8;
  static constexpr int kMaxMr = 8;
  static constexpr int mr_for(int nr) { return nr <= 2 ? 8 : nr <= 4 ? 6 : 3; }
  DSV4_SMALLROW_TARGET static vec zero() { return _mm512_setzero_pd(); }
  DSV4_SMALLROW_TARGET static vec load_a(const double* p) { return _mm512_loadu_pd(p); }
  // The mask/maskz forms (all lanes kept) are the plain instructions; GCC 12's unmasked intrinsics trip
  // -Wuninitialized on their internal undefined operand.
  template <BKind K>
  DSV4_SMALLROW_TARGET static vec load_b(const Code<K>* p, const Job& j) {
    if constexpr (K == BKind::fp8) {  // 8 codes gathered from the table of their exact values
      const __m256i idx = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
      return _mm512_mask_i32gather_pd(_mm512_setzero_pd(), 0xFF, idx, j.table, 8);
    } else if constexpr (K == BKind::e4m3) {  // s eeee mmm -> fp16 bits s0eeeemmm0000000: the sign moved up a bit
      const __m128i w = _mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
      const __m128i h = _mm_slli_epi16(_mm_add_epi16(w, _mm_and_si128(w, _mm_set1_epi16(0x80))), 7);
      return _mm512_maskz_cvtps_pd(0xFF, _mm256_cvtph_ps(h));
    } else {
      const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      if constexpr (K == BKind::fp16) return _mm512_maskz_cvtps_pd(0xFF, _mm256_cvtph_ps(h));
      // bf16: each code moved to the high half of a zeroed 32-bit lane by one in-lane byte shuffle of the
      // codes broadcast to both 128-bit halves (one shuffle op where a widen and a shift took two).
      const __m256i w = _mm256_broadcastsi128_si256(h);
      const __m256i to_high = _mm256_setr_epi8(-1, -1, 0, 1, -1, -1, 2, 3, -1, -1, 4, 5, -1, -1, 6, 7,  //
                                               -1, -1, 8, 9, -1, -1, 10, 11, -1, -1, 12, 13, -1, -1, 14, 15);
      return _mm512_maskz_cvtps_pd(0xFF, _mm256_castsi256_ps(_mm256_shuffle_epi8(w, to_high)));
    }
  }
  DSV4_SMALLROW_TARGET static vec set1(double x) { return _mm512_set1_pd(x); }
  DSV4_SMALLROW_TARGET static vec mul(vec a, vec b) { return _mm512_mul_pd(a, b); }
  DSV4_SMALLROW_TARGET static vec fma(vec a, vec b, vec c) { return _mm512_fmadd_pd(a, b, c); }
  DSV4_SMALLROW_TARGET static double hsum(vec v) {
    alignas(64) double t[8];
    _mm512_store_pd(t, v);
    return ((t[0] + t[4]) + (t[1] + t[5])) + ((t[2] + t[6]) + (t[3] + t[7]));
  }
};

}  // namespace

void run_avx512(const Job& job) { run_job<Avx512>(job); }

}  // namespace dsv4::gemm::smallrow
#endif  // x86
