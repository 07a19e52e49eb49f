// Portable warp-level matrix multiply-accumulate: D[16x8] += A[16x16] · B[16x8] with bf16 or fp16 inputs and fp32
// accumulation, in the fragment layout of PTX `mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}`. Include after
// kernels/port/hip_port.hpp, from kernel TUs only. Every lane of the 32-lane group must call it (convergent).
//
// Fragment layout, per group of 32 lanes (on a wave of 64 each half-wave is an independent group):
//   g = (lane % 32) / 4, t = lane % 4; each uint32 packs two elements, the lower k (or column) in the low half.
//   a[0] = A[g][2t, 2t+1]     a[1] = A[g+8][2t, 2t+1]     a[2] = A[g][2t+8, 2t+9]     a[3] = A[g+8][2t+8, 2t+9]
//   b[0] = B[2t, 2t+1][g]     b[1] = B[2t+8, 2t+9][g]
//   c[0] = D[g][2t]  c[1] = D[g][2t+1]  c[2] = D[g+8][2t]  c[3] = D[g+8][2t+1]
// Backends:
//   cuda: the mma.sync instruction (tensor cores, sm_80+).
//   sim : exact scalar emulation of the same layout: the lane gathers its A rows and B columns from the other
//         lanes by shuffles (width 32), forms the 16 exact products (bf16·bf16 and fp16·fp16 are exact in fp32),
//         sums them with the accumulator in float64 (exact unless the terms span more than ~2^29 in magnitude) and
//         rounds once to fp32. The hardware's fused accumulation may differ from this in the last fp32 bit: tests
//         compare bitwise only on value grids where every sum is exact (tests/kernels/nvidia/port/test_port_mma.cpp).
//   hip : FALLBACK, not MFMA: the sim emulation above (correct, slow: 32 shuffles per call). It compiles with
//         clang-19 for gfx90a/gfx942 (seen 2026-11-29), but spills to scratch when inlined many times, so kernels
//         choose their MMA path on sm_90 plans only and do not instantiate it on hip (kernels/skinny_gemm).
#pragma once

#include <cstdint>
#include <cstring>

namespace dsv4::port {

enum class MmaElem { bf16, f16 };

namespace mma_detail {

__device__ __forceinline__ float half_bits_to_f32(std::uint32_t h, bool f16) {
  std::uint32_t u;
  if (!f16) {
    u = h << 16;
  } else {
    const std::uint32_t sign = (h & 0x8000u) << 16;
    const std::uint32_t em = h & 0x7fffu;
    if (em >= 0x7c00u) {
      u = sign | 0x7f800000u | ((em & 0x3ffu) << 13);
    } else {
      float mag;
      const std::uint32_t shifted = em << 13;
      std::memcpy(&mag, &shifted, 4);
      mag *= 5.192296858534828e33f;  // 2^112: exact rescale, subnormals included
      std::memcpy(&u, &mag, 4);
      u |= sign;
    }
  }
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

__device__ __forceinline__ float lo(std::uint32_t w, bool f16) { return half_bits_to_f32(w & 0xffffu, f16); }
__device__ __forceinline__ float hi(std::uint32_t w, bool f16) { return half_bits_to_f32(w >> 16, f16); }

}  // namespace mma_detail

template <MmaElem E>
__device__ __forceinline__ void mma_m16n8k16(float (&c)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
#if defined(DSV4_BACKEND_CUDA) && defined(__CUDA_ARCH__)
  if constexpr (E == MmaElem::bf16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
#elif defined(DSV4_BACKEND_CUDA)
  (void)c, (void)a, (void)b;  // host pass of nvcc: never called
#else
  constexpr bool f16 = E == MmaElem::f16;
  using mma_detail::hi;
  using mma_detail::lo;
  const int lane = static_cast<int>(__lane_id()) & 31;
  const int g = lane / 4, t = lane % 4;
  // Rows g and g+8 of A, all 16 k: lane 4g+q holds k = 2q, 2q+1 (a[0]/a[1]) and 2q+8, 2q+9 (a[2]/a[3]).
  float arow[2][16];
  // Columns 2t and 2t+1 of B, all 16 k: lane 4n+q holds k = 2q, 2q+1 (b[0]) and 2q+8, 2q+9 (b[1]).
  float bcol[2][16];
  for (int q = 0; q < 4; ++q) {
    std::uint32_t av[4], bv[2][2];
    for (int r = 0; r < 4; ++r) av[r] = __shfl(a[r], 4 * g + q, 32);
    for (int j = 0; j < 2; ++j)
      for (int r = 0; r < 2; ++r) bv[j][r] = __shfl(b[r], 4 * (2 * t + j) + q, 32);
    for (int h = 0; h < 2; ++h) {  // h = 0: row g (a[0], a[2]); h = 1: row g+8 (a[1], a[3])
      arow[h][2 * q] = lo(av[h], f16);
      arow[h][2 * q + 1] = hi(av[h], f16);
      arow[h][2 * q + 8] = lo(av[h + 2], f16);
      arow[h][2 * q + 9] = hi(av[h + 2], f16);
    }
    for (int j = 0; j < 2; ++j) {
      bcol[j][2 * q] = lo(bv[j][0], f16);
      bcol[j][2 * q + 1] = hi(bv[j][0], f16);
      bcol[j][2 * q + 8] = lo(bv[j][1], f16);
      bcol[j][2 * q + 9] = hi(bv[j][1], f16);
    }
  }
  for (int h = 0; h < 2; ++h)
    for (int j = 0; j < 2; ++j) {
      double s = static_cast<double>(c[2 * h + j]);
      for (int k = 0; k < 16; ++k) s += static_cast<double>(arow[h][k] * bcol[j][k]);  // exact fp32 products
      c[2 * h + j] = static_cast<float>(s);
    }
#endif
}

}  // namespace dsv4::port
