// A skinny GEMM in plain HIP with raw __shared__, written here for the hipsim tests from the wvSplitKrc design of
// known-bugs.md (appendix): out[n, m] = bf16(Σ_k a[n,k]·b[m,k] + bias[m]) for N <= 4 rows of a, fp32 accumulation.
// One workgroup of 4 waves per 16 rows of b; each K-tile of a is staged in LDS with 16-byte copies, each wave takes
// a quarter of the tile's K, lanes reduce with __shfl_xor, and after a __syncthreads that frees LDS the waves' fp32
// partials go through a union with the staging area (main loop / readback, as in the design) to wave 0, which sums
// them in wave order (bit-reproducible), adds the bias and rounds once.
// Planted bugs (one per build, -D): BUG_LDS_OVERFLOW (partials staged at a per-wave stride sized for shards, past the
// allocation, through a float4*), BUG_NEIGHBOUR (the epilogue reads bias one past its array, into the next
// __shared__ variable), BUG_MISSING_SYNC (no __syncthreads between the partial writes and wave 0's reads),
// BUG_EARLY_EXIT (waves without K work return before the readback's __syncthreads), BUG_GLOBAL_OOB (the bias load
// guard admits row M: one element past the end of bias), BUG_UNINIT (the staging leaves the rows of a past N unwritten).
#include <hip/hip_bf16.h>
#include <hip/hip_runtime.h>

constexpr int kWaves = 4;
constexpr int kRowsPerBlock = 16;  // rows of b (outputs m) per workgroup
constexpr int kMaxN = 4;           // rows of a
constexpr int kKTile = 512;        // elements of K staged per step
constexpr int kKPerWave = kKTile / kWaves;
#ifdef BUG_LDS_OVERFLOW
constexpr int kStageStride = 512;  // float4 per wave: sized for 8 K-shards of partials, not for the 4 waves here
#endif

__global__ __launch_bounds__(256) void skinny_splitk(const __hip_bfloat16* a, const __hip_bfloat16* b,
                                                     const __hip_bfloat16* bias, __hip_bfloat16* out, int N, int K,
                                                     int M) {
  __shared__ float s_bias[kRowsPerBlock];
  __shared__ union {
    __hip_bfloat16 a_tile[kMaxN * kKTile];             // main loop: a's K-tile
    float partial[kWaves][kRowsPerBlock * kMaxN];      // readback: each wave's sums, (row, n) by lane
  } smem;
  const int tid = threadIdx.x + threadIdx.y * 64;
  const int lane = threadIdx.x, wave = threadIdx.y;
  const int m0 = blockIdx.x * kRowsPerBlock;
  if (tid < kRowsPerBlock) {
#ifdef BUG_GLOBAL_OOB
    const bool in_range = m0 + tid <= M;
#else
    const bool in_range = m0 + tid < M;
#endif
    s_bias[tid] = in_range ? __bfloat162float(bias[m0 + tid]) : 0.0f;
  }
  float acc[kRowsPerBlock][kMaxN] = {};
  for (int k0 = 0; k0 < K; k0 += kKTile) {
    {  // stage a[n][k0 .. k0 + 512) as 8-element (16-byte) pieces: one per thread
      const int n = tid / 64, piece = tid % 64, k = k0 + piece * 8;
#ifdef BUG_UNINIT
      if (n < N && k < K)  // rows of a past N are left unwritten, but the loop below reads all kMaxN rows
        reinterpret_cast<uint4*>(smem.a_tile)[tid] = *reinterpret_cast<const uint4*>(a + std::size_t(n) * K + k);
#else
      uint4 v = make_uint4(0, 0, 0, 0);
      if (n < N && k < K) v = *reinterpret_cast<const uint4*>(a + std::size_t(n) * K + k);
      reinterpret_cast<uint4*>(smem.a_tile)[tid] = v;
#endif
    }
    __syncthreads();
    for (int i = 0; i < kKPerWave / 64; ++i) {
      const int kk = wave * kKPerWave + i * 64 + lane, k = k0 + kk;
      if (k >= K) break;
      float av[kMaxN];
      for (int n = 0; n < kMaxN; ++n) av[n] = __bfloat162float(smem.a_tile[n * kKTile + kk]);
      for (int r = 0; r < kRowsPerBlock; ++r) {
        const int m = m0 + r < M ? m0 + r : M - 1;
        const float bv = __bfloat162float(b[std::size_t(m) * K + k]);
        for (int n = 0; n < kMaxN; ++n) acc[r][n] += av[n] * bv;
      }
    }
    __syncthreads();  // the tile is read by every wave before the next one (or the readback) overwrites it
  }
  // Wave reduction: afterwards every lane holds the wave's sums; lane r*4+n keeps (r, n).
  float mine = 0.0f;
  for (int r = 0; r < kRowsPerBlock; ++r)
    for (int n = 0; n < kMaxN; ++n) {
      float v = acc[r][n];
      for (int off = 32; off > 0; off >>= 1) v += __shfl_xor(v, off);
      if (lane == r * kMaxN + n) mine = v;
    }
#ifdef BUG_EARLY_EXIT
  if (wave * kKPerWave >= K) return;  // "nothing to add": but the readback below still waits at a barrier
#endif
#ifdef BUG_LDS_OVERFLOW
  const float p1 = __shfl(mine, lane + 1), p2 = __shfl(mine, lane + 2), p3 = __shfl(mine, lane + 3);
  if (lane % 4 == 0)  // four partials of one row per 16-byte store
    reinterpret_cast<float4*>(&smem)[wave * kStageStride + lane / 4] = make_float4(mine, p1, p2, p3);
#else
  smem.partial[wave][lane] = mine;
#endif
#ifndef BUG_MISSING_SYNC
  __syncthreads();
#endif
  if (wave == 0) {
    const int r = lane / kMaxN, n = lane % kMaxN;
    float sum = 0.0f;
#ifdef BUG_LDS_OVERFLOW
    for (int w = 0; w < kWaves; ++w) sum += reinterpret_cast<const float*>(&smem)[(w * kStageStride) * 4 + lane];
#else
    for (int w = 0; w < kWaves; ++w) sum += smem.partial[w][lane];
#endif
#ifdef BUG_NEIGHBOUR
    const float bias_v = s_bias[r + 1];  // off by one: row 15 reads s_bias[16], past the array
#else
    const float bias_v = s_bias[r];
#endif
    if (n < N && m0 + r < M) out[std::size_t(n) * M + m0 + r] = __float2bfloat16(sum + bias_v);
  }
}

// The launch: one workgroup of 4 waves per 16 rows of b.
hipError_t launch_skinny_splitk(const __hip_bfloat16* a, const __hip_bfloat16* b, const __hip_bfloat16* bias,
                                __hip_bfloat16* out, int N, int K, int M, hipStream_t stream) {
  const dim3 grid((M + kRowsPerBlock - 1) / kRowsPerBlock), block(64, kWaves);
  skinny_splitk<<<grid, block, 0, stream>>>(a, b, bias, out, N, K, M);
  return hipGetLastError();
}

#ifndef HIPSIM_NO_HARNESS
#include "tests/hipsim/skinny_harness.hpp"
#endif
