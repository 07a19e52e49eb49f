// A wvSplitK-style fp16 GEMV in plain HIP for gfx942/gfx950, written here from the design's description:
// y[m] = fp16(Σ_k W[m,k]·x[k]), fp32 accumulation. A workgroup of 4 waves stages all of x in a raw __shared__
// array with 16-byte copies; each wave then owns kRowsPerWave rows of W, each lane takes 8 consecutive halves of K
// per 512-element step (16-byte loads of W and x), multiplies pairwise with `v_dot2c_f32_f16` inline asm, and the
// wave sums its lanes with DPP inline asm: `row_shr:8/4/2/1 bound_ctrl:0` leave each 16-lane row's sum in the
// row's lane 15, `row_bcast:15 row_mask:0xa` and `row_bcast:31 row_mask:0xc` carry them on, so lane 63 holds the
// row's dot product and writes it. Each DPP statement starts with `s_nop 1`: gfx9 needs two wait states between
// a VALU write of a VGPR and a DPP read of it, and the compiler does not look inside inline asm.
// Planted bugs (one per build, -D): BUG_WRONG_ROW_MASK (row_bcast:15 under row_mask:0x2: row 3 never receives
// row 2's sum, so lane 63 misses a quarter of the dot product), BUG_DIVERGENT_REDUCTION (the DPP reduction inside
// `if (lane < 32)`: lanes 32-63 skip the wave-wide DPP), BUG_X_OVERFLOW (the x staging array one element short of
// kMaxK: the last 16-byte copy of a K = kMaxK vector runs past it).
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

constexpr int kWaves = 4;
constexpr int kRowsPerWave = 2;                 // rows of W per wave (the design's YTILE)
constexpr int kRowsPerBlock = kWaves * kRowsPerWave;
constexpr int kHalvesPerLane = 8;               // one 16-byte load
constexpr int kKStep = 64 * kHalvesPerLane;     // K covered by one wave per step
constexpr int kMaxK = 8192;                     // x lives whole in LDS: 16 KiB
#ifdef BUG_X_OVERFLOW
constexpr int kXStage = kMaxK - 1;
#else
constexpr int kXStage = kMaxK;
#endif

// acc += a.lo·b.lo + a.hi·b.hi over two packed fp16 pairs.
__device__ inline float dot2c(float acc, unsigned a, unsigned b) {
  asm volatile("v_dot2c_f32_f16 %0, %1, %2" : "+v"(acc) : "v"(a), "v"(b));
  return acc;
}

// The wave's sum of v, complete in lane 63.
__device__ inline float wave_sum_to_lane63(float v) {
  asm volatile("s_nop 1\n\tv_add_f32 %0, %1, %1 row_shr:8 bound_ctrl:0" : "=v"(v) : "v"(v));
  asm volatile("s_nop 1\n\tv_add_f32 %0, %1, %1 row_shr:4 bound_ctrl:0" : "=v"(v) : "v"(v));
  asm volatile("s_nop 1\n\tv_add_f32 %0, %1, %1 row_shr:2 bound_ctrl:0" : "=v"(v) : "v"(v));
  asm volatile("s_nop 1\n\tv_add_f32 %0, %1, %1 row_shr:1 bound_ctrl:0" : "=v"(v) : "v"(v));
#ifdef BUG_WRONG_ROW_MASK
  asm volatile("s_nop 1\n\tv_add_f32 %0, %1, %0 row_bcast:15 row_mask:0x2" : "+v"(v) : "v"(v));
#else
  asm volatile("s_nop 1\n\tv_add_f32 %0, %1, %0 row_bcast:15 row_mask:0xa" : "+v"(v) : "v"(v));
#endif
  asm volatile("s_nop 1\n\tv_add_f32 %0, %1, %0 row_bcast:31 row_mask:0xc" : "+v"(v) : "v"(v));
  return v;
}

__global__ __launch_bounds__(kWaves * 64) void gemv_dpp(const __half* w, const __half* x, __half* y, int K, int M) {
  __shared__ __half s_x[kXStage];
  const int lane = threadIdx.x, wave = threadIdx.y, tid = lane + wave * 64;
  for (int k = tid * kHalvesPerLane; k < K; k += kWaves * 64 * kHalvesPerLane)
    *reinterpret_cast<uint4*>(&s_x[k]) = *reinterpret_cast<const uint4*>(&x[k]);
  __syncthreads();

  const int m0 = blockIdx.x * kRowsPerBlock + wave * kRowsPerWave;
  if (m0 >= M) return;  // wave-uniform, after the block's only barrier
  float acc[kRowsPerWave] = {};
  for (int k = lane * kHalvesPerLane; k < K; k += kKStep) {
    const uint4 xv = *reinterpret_cast<const uint4*>(&s_x[k]);
    for (int r = 0; r < kRowsPerWave; ++r) {
      const int m = m0 + r < M ? m0 + r : M - 1;  // a partial last tile recomputes row M-1 and does not store it
      const uint4 wv = *reinterpret_cast<const uint4*>(&w[std::size_t(m) * K + k]);
      acc[r] = dot2c(acc[r], wv.x, xv.x);
      acc[r] = dot2c(acc[r], wv.y, xv.y);
      acc[r] = dot2c(acc[r], wv.z, xv.z);
      acc[r] = dot2c(acc[r], wv.w, xv.w);
    }
  }
  for (int r = 0; r < kRowsPerWave; ++r) {
    float s = acc[r];
#ifdef BUG_DIVERGENT_REDUCTION
    if (lane < 32) s = wave_sum_to_lane63(s);  // "only half the lanes hold data": but DPP reads the whole wave
#else
    s = wave_sum_to_lane63(s);
#endif
    if (lane == 63 && m0 + r < M) y[m0 + r] = __float2half(s);
  }
}

// The launch: one workgroup of 4 waves per 8 rows of W. Needs K % 8 == 0 and K <= kMaxK.
hipError_t launch_gemv_dpp(const __half* w, const __half* x, __half* y, int K, int M, hipStream_t stream) {
  const dim3 grid((M + kRowsPerBlock - 1) / kRowsPerBlock), block(64, kWaves);
  gemv_dpp<<<grid, block, 0, stream>>>(w, x, y, K, M);
  return hipGetLastError();
}

#ifndef HIPSIM_NO_HARNESS
#include "tests/hipsim/gemv_harness.hpp"
#endif
