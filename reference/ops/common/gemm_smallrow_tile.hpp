// The register-blocked loop shared by the small-row kernels, written once over a vector-traits type V
// and compiled in each ISA's file under that file's DSV4_SMALLROW_TARGET (a function attribute, so only
// these functions use the ISA; included code, std templates too, stays baseline x86-64).
// A tile is MR rows of B x NR rows of A: per step of V::kLanes along k, MR decoded B vectors and NR A
// vectors give MR·NR FMAs into MR·NR vector accumulators, each summed across its lanes at the end of
// the k chunk; k's tail (< kLanes) is summed in scalar. Every B code is decoded once per tile of A rows
// and never stored. V provides: vec, kLanes, kMaxNr, mr_for(nr) (<= kMaxMr), zero, load_a,
// load_b<F16>(codes, job), fma, hsum. Everything here sits in an anonymous namespace, so each ISA's file
// compiles its own copy (internal linkage: no copy can stand in for another's at link time).
#pragma once
#ifndef DSV4_SMALLROW_TARGET
#error "define DSV4_SMALLROW_TARGET (the ISA's function attribute) before including gemm_smallrow_tile.hpp"
#endif
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <utility>

#include "reference/ops/common/gemm_smallrow_job.hpp"

namespace dsv4::gemm::smallrow {
namespace {

inline constexpr int kMaxMr = 4;

// One code, exactly: bf16 by its bits, fp16 through the job's table.
template <bool F16>
inline double decode1(std::uint16_t code, const Job& j) {
  if constexpr (F16) return j.table[code];
  else return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(code) << 16));
}

// C[n0.., m0..] (=, or += after the first k chunk) the sums over k in [k0, k0 + kw) of one MR x NR tile.
template <class V, bool F16, int MR, int NR>
DSV4_SMALLROW_TARGET void tile(const Job& j, std::int64_t m0, std::int64_t n0, std::int64_t k0, std::int64_t kw) {
  using vec = typename V::vec;
  vec acc[MR][NR];
  const std::uint16_t* b[MR];
  const double* a[NR];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    b[r] = j.b + (m0 + r) * j.ldb + k0;
#pragma GCC unroll 8
    for (int c = 0; c < NR; ++c) acc[r][c] = V::zero();
  }
#pragma GCC unroll 8
  for (int c = 0; c < NR; ++c) a[c] = j.a + (n0 + c) * j.lda + k0;
  const std::int64_t kv = kw - kw % V::kLanes;
  for (std::int64_t t = 0; t < kv; t += V::kLanes) {
    vec bv[MR];
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) bv[r] = V::template load_b<F16>(b[r] + t, j);
#pragma GCC unroll 8
    for (int c = 0; c < NR; ++c) {
      const vec av = V::load_a(a[c] + t);
#pragma GCC unroll 8
      for (int r = 0; r < MR; ++r) acc[r][c] = V::fma(av, bv[r], acc[r][c]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 8
    for (int c = 0; c < NR; ++c) {
      double s = V::hsum(acc[r][c]);
      for (std::int64_t t = kv; t < kw; ++t) s += a[c][t] * decode1<F16>(b[r][t], j);
      double& out = j.c[(n0 + c) * j.ldc + m0 + r];
      out = k0 == 0 ? s : out + s;
    }
}

using TileFn = void (*)(const Job&, std::int64_t, std::int64_t, std::int64_t, std::int64_t);
template <class V, bool F16>
using TileTable = std::array<std::array<TileFn, V::kMaxNr>, kMaxMr>;

template <class V, bool F16, int MR, int... NR>
constexpr std::array<TileFn, V::kMaxNr> tile_row(std::integer_sequence<int, NR...>) {
  return {{&tile<V, F16, MR, NR + 1>...}};
}
template <class V, bool F16, int... MR>
constexpr TileTable<V, F16> tile_table(std::integer_sequence<int, MR...>) {
  return {{tile_row<V, F16, MR + 1>(std::make_integer_sequence<int, V::kMaxNr>{})...}};
}

// The whole job: k chunk by chunk; per chunk, B's rows MR at a time, A's rows NR at a time (MR fixed by
// the widest tile, remainders of m and n through the smaller tiles).
template <class V, bool F16>
void run_tiles(const Job& j) {
  static constexpr TileTable<V, F16> table = tile_table<V, F16>(std::make_integer_sequence<int, kMaxMr>{});
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
  if (j.fp16) run_tiles<V, true>(j);
  else run_tiles<V, false>(j);
}

}  // namespace
}  // namespace dsv4::gemm::smallrow
