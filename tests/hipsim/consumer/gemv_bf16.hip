// A small plain-HIP kernel, the kind a user brings: bf16 GEMV y = W·x. Each block stages a K-tile of x in a raw
// __shared__ float array, each thread accumulates one row in fp32 over the staged tile, one bf16 rounding (RNE) at
// the end. Built with -DPLANT_LDS_BUG the staging array is sized in bf16 units (kTile / 2 floats) while the
// loop fills kTile floats: the writes past it are outside the block's LDS (CDNA drops them, reads return 0), which
// the sim must report as lds_out_of_range at the store's line.
#include "gemv_bf16.h"

namespace {

constexpr int kThreads = 128;  // two waves of 64
constexpr int kTile = 256;     // x elements staged per step
#ifdef PLANT_LDS_BUG
constexpr int kStageFloats = kTile * int(sizeof(__hip_bfloat16)) / int(sizeof(float));  // the planted bug
#else
constexpr int kStageFloats = kTile;
#endif

__global__ __launch_bounds__(kThreads) void gemv_bf16(const __hip_bfloat16* __restrict__ w,
                                                      const __hip_bfloat16* __restrict__ x,
                                                      __hip_bfloat16* __restrict__ y, int M, int K) {
  __shared__ float xs[kStageFloats];
  const int m = blockIdx.x * kThreads + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += kTile) {
    const int n = K - k0 < kTile ? K - k0 : kTile;
    for (int i = threadIdx.x; i < n; i += kThreads) xs[i] = __bfloat162float(x[k0 + i]);
    __syncthreads();
    if (m < M) {
      const __hip_bfloat16* row = w + static_cast<long>(m) * K + k0;
      for (int k = 0; k < n; ++k) acc += __bfloat162float(row[k]) * xs[k];
    }
    __syncthreads();  // the next tile overwrites xs
  }
  if (m < M) y[m] = __float2bfloat16(acc);
}

}  // namespace

hipError_t launch_gemv_bf16(const __hip_bfloat16* w, const __hip_bfloat16* x, __hip_bfloat16* y, int M, int K,
                            hipStream_t stream) {
  const dim3 grid((M + kThreads - 1) / kThreads), block(kThreads);
  gemv_bf16<<<grid, block, 0, stream>>>(w, x, y, M, K);
  return hipGetLastError();
}
