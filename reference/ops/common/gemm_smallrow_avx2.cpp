// The small-row kernel on AVX2 + FMA (gemm_smallrow_tile.hpp with 4 doubles a vector): B's 4 codes a
// step widened to float32 (bf16: a 16-bit shift; fp16: vcvtph2ps), then to float64, both exact; fp8
// codes gathered from the table of their exact values, then scaled. Tiles
// of 3 B rows x 3..4 A rows (12 accumulators, 3 decoded B vectors, A read by the FMAs: 16 registers), 4 x 2,
// and 8 x 1 (a GEMV: more rows of B in flight; bench/reference/RESULTS_reference_cpu.md).
// Only called when the CPU has AVX2, FMA and F16C (gemm_smallrow.cpp checks at run time).
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include <cstring>

#define DSV4_SMALLROW_TARGET __attribute__((target("avx2,fma,f16c")))
#include "reference/ops/common/gemm_smallrow_tile.hpp"

namespace dsv4::gemm::smallrow {
namespace {

struct Avx2 {
  using vec = __m256d;
  static constexpr int kLanes = 4;
  static constexpr int kMaxNr = 4;
  static constexpr int kMaxMr = 8;
  static constexpr int mr_for(int nr) { return nr == 1 ? 8 : nr > 2 ? 3 : 4; }
  DSV4_SMALLROW_TARGET static vec zero() { return _mm256_setzero_pd(); }
  DSV4_SMALLROW_TARGET static vec load_a(const double* p) { return _mm256_loadu_pd(p); }
  template <BKind K>
  DSV4_SMALLROW_TARGET static vec load_b(const Code<K>* p, const Job& j) {
    if constexpr (K == BKind::fp8) {  // 4 codes gathered from the table of their exact values
      std::int32_t four;
      std::memcpy(&four, p, 4);
      const __m128i idx = _mm_cvtepu8_epi32(_mm_cvtsi32_si128(four));
      const __m256d all = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
      return _mm256_mask_i32gather_pd(_mm256_setzero_pd(), j.table, idx, all, 8);
    } else if constexpr (K == BKind::e4m3) {  // s eeee mmm -> fp16 bits s0eeeemmm0000000: the sign moved up a bit
      std::int32_t four;
      std::memcpy(&four, p, 4);
      const __m128i w = _mm_cvtepu8_epi16(_mm_cvtsi32_si128(four));
      const __m128i h = _mm_slli_epi16(_mm_add_epi16(w, _mm_and_si128(w, _mm_set1_epi16(0x80))), 7);
      return _mm256_cvtps_pd(_mm_cvtph_ps(h));
    } else {
      const __m128i h = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
      if constexpr (K == BKind::fp16) return _mm256_cvtps_pd(_mm_cvtph_ps(h));
      else return _mm256_cvtps_pd(_mm_castsi128_ps(_mm_slli_epi32(_mm_cvtepu16_epi32(h), 16)));
    }
  }
  DSV4_SMALLROW_TARGET static vec set1(double x) { return _mm256_set1_pd(x); }
  DSV4_SMALLROW_TARGET static vec mul(vec a, vec b) { return _mm256_mul_pd(a, b); }
  DSV4_SMALLROW_TARGET static vec fma(vec a, vec b, vec c) { return _mm256_fmadd_pd(a, b, c); }
  DSV4_SMALLROW_TARGET static double hsum(vec v) {
    const __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
  }
};

}  // namespace

void run_avx2(const Job& job) { run_job<Avx2>(job); }

}  // namespace dsv4::gemm::smallrow
#endif  // x86
