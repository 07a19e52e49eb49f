// The register-blocked loop shared by the small-row kernels, written once over a vector-traits type V
// and compiled in each ISA's file under that file's DSV4_SMALLROW_TARGET (a function attribute, so only
// these functions use the ISA; included code, std templates too, stays baseline x86-64).
// A tile is MR rows of B x NR rows of A: per step of V::kLanes along k, MR decoded B vectors and NR A
// vectors give MR·NR FMAs into MR·NR vector accumulators, each summed across its lanes at the end of
// the k chunk; k's tail (< kLanes) is summed in scalar. Every B code is decoded once per tile of A rows
// and never stored. V provides: vec, kLanes, kMaxNr, kMaxMr, mr_for(nr) (<= kMaxMr, never rising with nr), zero, load_a,
// load_b<kind>(codes, job), set1, mul, fma, hsum. fp8 codes are scaled per 128 columns of k after the
// decode (exact: a 4-bit significand times a float32 or power-of-two scale fits a double). Everything here sits in an anonymous namespace, so each ISA's file
// compiles its own copy (internal linkage: no copy can stand in for another's at link time).
#pragma once
#ifndef DSV4_SMALLROW_TARGET
#error "define DSV4_SMALLROW_TARGET (the ISA's function attribute) before including gemm_smallrow_tile.hpp"
#endif
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "reference/ops/common/gemm_smallrow_job.hpp"

namespace dsv4::gemm::smallrow {
namespace {

// B's code type for each kind.
template <BKind K>
using Code = std::conditional_t<K == BKind::fp8 || K == BKind::e4m3, std::uint8_t, std::uint16_t>;

template <BKind K>
inline constexpr bool kScaled = K == BKind::fp8 || K == BKind::e4m3;

// One code, exactly (fp8: before its scale): bf16 by its bits, fp16 and fp8 through the job's table.
template <BKind K>
inline double decode1(Code<K> code, const Job& j) {
  if constexpr (K == BKind::bf16) return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(code) << 16));
  else if constexpr (K == BKind::e4m3) return j.table[code] * j.code_factor;  // the vector decode's value · 2^-8 or 2^-7
  else return j.table[code];
}

// fp8: the scale of B's row `row` of this job at column k.
inline double scale_of(const Job& j, std::int64_t row, std::int64_t k) {
  return j.scales[((j.row0 + row) / j.scale_rows) * j.scale_groups + k / kScaleGroupCols];
}

// C[n0.., m0..] (=, or += after the first k chunk) the sums over k in [k0, k0 + kw) of one MR x NR tile.
template <class V, BKind K, int MR, int NR>
DSV4_SMALLROW_TARGET void tile(const Job& j, std::int64_t m0, std::int64_t n0, std::int64_t k0, std::int64_t kw) {
  using vec = typename V::vec;
  vec acc[MR][NR];
  const Code<K>* b[MR];
  const double* a[NR];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    b[r] = static_cast<const Code<K>*>(j.b) + (m0 + r) * j.ldb + k0;
#pragma GCC unroll 8
    for (int c = 0; c < NR; ++c) acc[r][c] = V::zero();
  }
#pragma GCC unroll 8
  for (int c = 0; c < NR; ++c) a[c] = j.a + (n0 + c) * j.lda + k0;
  const std::int64_t kv = kw - kw % V::kLanes;
  // fp8: one span per 128 columns (k0 is a multiple of 128), its scales held in registers; else one span.
  const std::int64_t span = kScaled<K> ? kScaleGroupCols : std::max<std::int64_t>(kv, 1);
  for (std::int64_t g0 = 0; g0 < kv; g0 += span) {
    const std::int64_t g1 = std::min(kv, g0 + span);
    vec sc[MR];
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) sc[r] = V::set1(kScaled<K> ? scale_of(j, m0 + r, k0 + g0) : 1.0);
    for (std::int64_t t = g0; t < g1; t += V::kLanes) {
      vec bv[MR];
#pragma GCC unroll 8
      for (int r = 0; r < MR; ++r) {
        bv[r] = V::template load_b<K>(b[r] + t, j);
        if constexpr (kScaled<K>) bv[r] = V::mul(bv[r], sc[r]);
      }
#pragma GCC unroll 8
      for (int c = 0; c < NR; ++c) {
        const vec av = V::load_a(a[c] + t);
#pragma GCC unroll 8
        for (int r = 0; r < MR; ++r) acc[r][c] = V::fma(av, bv[r], acc[r][c]);
      }
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 8
    for (int c = 0; c < NR; ++c) {
      double s = V::hsum(acc[r][c]);
      for (std::int64_t t = kv; t < kw; ++t) {
        const double bval = decode1<K>(b[r][t], j);
        s += a[c][t] * (kScaled<K> ? bval * scale_of(j, m0 + r, k0 + t) : bval);
      }
      double& out = j.c[(n0 + c) * j.ldc + m0 + r];
      out = k0 == 0 ? s : out + s;
    }
}

using TileFn = void (*)(const Job&, std::int64_t, std::int64_t, std::int64_t, std::int64_t);
template <class V, BKind K>
using TileTable = std::array<std::array<TileFn, V::kMaxNr>, V::kMaxMr>;

// Only the tiles run_tiles can call, MR <= mr_for(NR) (the others stay null: fewer instantiations).
template <class V, BKind K, int MR, int NR>
constexpr TileFn tile_or_null() {
  if constexpr (MR <= V::mr_for(NR)) return &tile<V, K, MR, NR>;
  else return nullptr;
}
template <class V, BKind K, int MR, int... NR>
constexpr std::array<TileFn, V::kMaxNr> tile_row(std::integer_sequence<int, NR...>) {
  return {{tile_or_null<V, K, MR, NR + 1>()...}};
}
template <class V, BKind K, int... MR>
constexpr TileTable<V, K> tile_table(std::integer_sequence<int, MR...>) {
  return {{tile_row<V, K, MR + 1>(std::make_integer_sequence<int, V::kMaxNr>{})...}};
}

// The whole job: k chunk by chunk; per chunk, B's rows MR at a time, A's rows NR at a time (MR fixed by
// the widest tile, remainders of m and n through the smaller tiles). Every call has mr <= mr_full =
// mr_for(widest nr) <= mr_for(nr), as mr_for never rises with nr, so no null tile is ever called.
template <class V, BKind K>
void run_tiles(const Job& j) {
  static constexpr TileTable<V, K> table = tile_table<V, K>(std::make_integer_sequence<int, V::kMaxMr>{});
  if (j.n <= 0 || j.m <= 0) return;
  if (j.k <= 0) {  // an empty sum
    for (std::int64_t i = 0; i < j.n; ++i)
      for (std::int64_t jj = 0; jj < j.m; ++jj) j.c[i * j.ldc + jj] = 0.0;
    return;
  }
  const int mr_full = V::mr_for(static_cast<int>(std::min<std::int64_t>(j.n, V::kMaxNr)));
  for (std::int64_t k0 = 0; k0 < j.k; k0 += j.kc) {
    const std::int64_t kw = std::min(j.kc, j.k - k0);
    for (std::int64_t m0 = 0; m0 < j.m; m0 += mr_full) {
      const int mr = static_cast<int>(std::min<std::int64_t>(mr_full, j.m - m0));
      for (std::int64_t n0 = 0; n0 < j.n; n0 += V::kMaxNr) {
        const int nr = static_cast<int>(std::min<std::int64_t>(V::kMaxNr, j.n - n0));
        table[mr - 1][nr - 1](j, m0, n0, k0, kw);
      }
    }
  }
}

template <class V>
void run_job(const Job& j) {
  switch (j.kind) {
    case BKind::bf16: run_tiles<V, BKind::bf16>(j); return;
    case BKind::fp16: run_tiles<V, BKind::fp16>(j); return;
    case BKind::fp8: run_tiles<V, BKind::fp8>(j); return;
    case BKind::e4m3: run_tiles<V, BKind::e4m3>(j); return;
  }
}

}  // namespace
}  // namespace dsv4::gemm::smallrow
