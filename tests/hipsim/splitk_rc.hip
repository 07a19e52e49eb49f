// A split-K skinny GEMM for gfx950 in the wvSplitKrc design (known-bugs.md appendix), written here in plain HIP for
// the hipsim tests: out[N,M] = round(a[N,K]·b[M,K]^T + bias[M]) in bf16 or fp16 (the reference skinny_gemm's layout,
// bias "m" or none), fp32 accumulation.
// Plan: N_p2 = next_pow2(N) picks GrpsShrB = min(N_p2/16, 4) waves sharing a 16-row tile of b, nt_count =
// N_p2/16/GrpsShrB MFMA tiles per wave, 64/GrpsShrB rows of b per workgroup; the CHUNKK rule (appendix A.3) picks
// kFit = 512/CHUNKK and k_rnd = ceil(K/kFit) K-shards; one workgroup per (M-tile, shard). a's shard is staged into
// LDS with global_load_lds (16 B per lane, rows of 520 elements, CHUNKK token rows per LDS row), b is loaded into
// registers, mfma_f32_16x16x32_{bf16,f16} multiplies. Each workgroup publishes its fp32 partials to its shard's slab
// of a global workspace, then counts itself on its M-tile's counter (release fence, atomicAdd); the last arriver
// resets the counter, and after a __syncthreads that frees the main-loop staging (a union in one 160 KiB __shared__
// allocation) reads every shard's partials back through LDS with global_load_lds and sums them in ascending shard
// order (bit-reproducible whatever the arrival order), adds the bias and rounds once.
// Readback: batched by default (batch = 163840 / (4096·nt_count) shards per pass); ONE_PASS_READBACK stages all
// k_rnd shards at float4 index y·64 + ks·256 + nt·256·k_rnd at once (known-bugs.md A.1: past 160 KiB when
// 4096·nt_count·k_rnd > 163840). STATIC_WORKSPACE: the workspace and counters are file-scope __device__ arrays
// shared by every launch (the cross-stream bug); otherwise the caller passes one slot per stream.
#include <hip/hip_bf16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

#include <cstddef>

constexpr int kLdsBytes = 163840;  // gfx950
constexpr int kLdsRow = 520;       // elements per LDS row of a: 512 + 8 padding

typedef __bf16 splitk_y8 __attribute__((ext_vector_type(8)));
typedef _Float16 splitk_h8 __attribute__((ext_vector_type(8)));
typedef float splitk_f4 __attribute__((__vector_size__(4 * sizeof(float))));

template <class T>
struct SplitkType;
template <>
struct SplitkType<__hip_bfloat16> {
  using V8 = splitk_y8;
  __device__ static splitk_f4 mfma(const uint4& ra, const uint4& rb, splitk_f4 c) {
    V8 a, b;
    __builtin_memcpy(&a, &ra, 16);
    __builtin_memcpy(&b, &rb, 16);
    return __builtin_amdgcn_mfma_f32_16x16x32_bf16(a, b, c, 0, 0, 0);
  }
  __device__ static float to_float(__hip_bfloat16 v) { return __bfloat162float(v); }
  __device__ static __hip_bfloat16 from_float(float v) { return __float2bfloat16(v); }
};
template <>
struct SplitkType<__half> {
  using V8 = splitk_h8;
  __device__ static splitk_f4 mfma(const uint4& ra, const uint4& rb, splitk_f4 c) {
    V8 a, b;
    __builtin_memcpy(&a, &ra, 16);
    __builtin_memcpy(&b, &rb, 16);
    return __builtin_amdgcn_mfma_f32_16x16x32_f16(a, b, c, 0, 0, 0);
  }
  __device__ static float to_float(__half v) { return __half2float(v); }
  __device__ static __half from_float(float v) { return __float2half(v); }
};

// The plan's numbers, shared by the launcher, the workspace size and the harness's tile map.
struct SplitkPlan {
  int np2 = 0, grps = 0, nt = 0, mrows = 0, chunkk = 0, kfit = 0, k_rnd = 0, m_tiles = 0, batch = 0;
  long long cu_needed = 0;
  bool ok = false;
  const char* why = "";
  std::size_t workspace_floats() const { return std::size_t(k_rnd) * m_tiles * mrows * np2; }
  int readback_bytes_one_pass() const { return 4096 * nt * k_rnd; }
};

inline SplitkPlan splitk_plan(int N, int K, int M, int cu) {
  SplitkPlan p;
  if (N < 10 || N > 128 || K <= 512 || K % 8 != 0 || M % 16 != 0) {
    p.why = "needs 10 <= N <= 128, K > 512, K % 8 == 0, M % 16 == 0";
    return p;
  }
  p.np2 = 16;
  while (p.np2 < N) p.np2 *= 2;
  p.grps = p.np2 / 16 < 4 ? p.np2 / 16 : 4;
  p.nt = p.np2 / 16 / p.grps;
  p.mrows = 64 / p.grps;
  const long long rndup_cus = (M + 63) / 64 * ((K + 511) / 512);
  p.cu_needed = rndup_cus * p.grps;
  if (p.cu_needed > cu) {
    p.why = "Invalid wvSplitKrc size (CuNeeded > CU)";
    return p;
  }
  p.chunkk = p.np2 == 16 ? 1 : (2 * p.cu_needed <= cu ? 2 : 1);
  p.kfit = 512 / p.chunkk;
  p.k_rnd = (K + p.kfit - 1) / p.kfit;
  p.m_tiles = (M + p.mrows - 1) / p.mrows;
  p.batch = kLdsBytes / (4096 * p.nt);
  p.ok = true;
  return p;
}

#ifdef STATIC_WORKSPACE
__device__ float g_splitk_ws[1572864];  // 6 MiB of fp32 partials, as the design's function-local static
__device__ int g_splitk_cntr[393216];
#endif

template <class T, int NP2, int CHUNKK>
__global__ __launch_bounds__(256) void splitk_rc(const T* a, const T* b, const T* bias, T* out, float* ws, int* cntr,
                                                 int N, int K, int M, int k_rnd) {
#if !defined(__HIP_DEVICE_COMPILE__) || defined(__gfx950__)  // a gfx950 design: other targets get an empty body
  using Ty = SplitkType<T>;
  constexpr int GRPS = NP2 / 16 < 4 ? NP2 / 16 : 4, NT = NP2 / 16 / GRPS, MROWS = 64 / GRPS;
  constexpr int KFIT = 512 / CHUNKK, AROWS = NP2 / CHUNKK;
  static_assert(AROWS * kLdsRow * 2 <= kLdsBytes, "a's shard fits the LDS");
  constexpr int kBatch = kLdsBytes / (4096 * NT);
  static_assert(kBatch * 4096 * NT <= kLdsBytes, "a readback batch fits the LDS");
  __shared__ union {
    T a_tile[AROWS * kLdsRow];              // main loop: a's K-shard, CHUNKK tokens per row
    float4 readback[kLdsBytes / 16];        // readback: shards' partials, float4 y·64 + i·256 + nt·256·batch
    int last;                               // between the two: the counter's verdict for the block
  } smem;
#ifdef STATIC_WORKSPACE
  ws = g_splitk_ws;
  cntr = g_splitk_cntr;
#endif
  const int lane = threadIdx.x, y = threadIdx.y;
  const int mt = blockIdx.x, ks = blockIdx.y, m_tiles = gridDim.x;
  const int g = y / GRPS, j = y % GRPS;  // the wave's 16-row group of b and its place among the waves sharing it
  const int m_base = mt * MROWS + g * 16;
  const int k0 = ks * KFIT;

  // Stage a[., k0 .. k0 + KFIT): LDS row r holds tokens r·CHUNKK .. r·CHUNKK + CHUNKK − 1, KFIT elements each.
  // Tokens past N are clamped to N − 1 (never stored); pieces past K read the shard's first piece (b is 0 there).
  for (int r = y; r < AROWS; r += 4) {
    const int tok_raw = r * CHUNKK + lane / (64 / CHUNKK);
    const int tok = tok_raw < N ? tok_raw : N - 1;
    int k = k0 + (lane % (64 / CHUNKK)) * 8;
    if (k >= K) k = k0;
    __builtin_amdgcn_global_load_lds(const_cast<T*>(a + std::size_t(tok) * K + k), smem.a_tile + r * kLdsRow, 16, 0, 0);
  }
  asm volatile("s_waitcnt vmcnt(0)");
  __syncthreads();

  splitk_f4 acc[NT];
  for (int nt = 0; nt < NT; ++nt) acc[nt] = splitk_f4{0.0f, 0.0f, 0.0f, 0.0f};
  const int row = lane % 16, kq = 8 * (lane / 16);
  const int m_ld = m_base + row < M ? m_base + row : M - 1;
  for (int kk = 0; kk < KFIT && k0 + kk < K; kk += 32) {
    const int k = k0 + kk + kq;
    uint4 bw;
    if (k < K) {
      __builtin_memcpy(&bw, b + std::size_t(m_ld) * K + k, 16);
    } else {
      __builtin_memset(&bw, 0, 16);  // +0 in bf16 and fp16
    }
    for (int nt = 0; nt < NT; ++nt) {
      const int n = (j * NT + nt) * 16 + row;
      uint4 xa;
      __builtin_memcpy(&xa, smem.a_tile + (n / CHUNKK) * kLdsRow + (n % CHUNKK) * KFIT + kk + kq, 16);
      acc[nt] = Ty::mfma(bw, xa, acc[nt]);  // D[m][n]: lane holds m = m_base + 4·(lane/16) + q, n = lane % 16
    }
  }

  // Publish this shard's partials, then count the block on its M-tile's counter.
  auto slot = [&](int shard, int nt) {
    return reinterpret_cast<float4*>(ws) + ((std::size_t(shard) * m_tiles + mt) * NT + nt) * 256 + y * 64 + lane;
  };
  for (int nt = 0; nt < NT; ++nt) *slot(ks, nt) = make_float4(acc[nt][0], acc[nt][1], acc[nt][2], acc[nt][3]);
  __threadfence();  // release: the partials before the count
  __syncthreads();  // also: every wave is done with a_tile
  if (lane == 0 && y == 0) {
    const int before = atomicAdd(&cntr[mt], 1);
    const bool last = before + 1 == k_rnd;
    if (last) atomicExch(&cntr[mt], 0);  // the zero invariant for the next call
    smem.last = last;
  }
  __syncthreads();
  const bool last = smem.last != 0;
  __syncthreads();  // frees LDS for the readback
  if (!last) return;
  __threadfence();  // acquire: the other shards' partials after their counts

  float4 tot[NT];  // per N-tile: ((p0 + p1) + p2) + ... in ascending shard order, across batches
  for (int nt = 0; nt < NT; ++nt) tot[nt] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#ifdef ONE_PASS_READBACK
  const int batch = k_rnd;  // every shard at once: nothing bounds 4096·NT·k_rnd by the LDS
#else
  const int batch = kBatch;
#endif
  for (int b0 = 0; b0 < k_rnd; b0 += batch) {
    const int nb = k_rnd - b0 < batch ? k_rnd - b0 : batch;
    for (int i = 0; i < nb; ++i)
      for (int nt = 0; nt < NT; ++nt)
        __builtin_amdgcn_global_load_lds(slot(b0 + i, nt), smem.readback + y * 64 + i * 256 + nt * 256 * nb, 16, 0, 0);
    asm volatile("s_waitcnt vmcnt(0)");
    for (int nt = 0; nt < NT; ++nt) {
      float4 s = tot[nt];
      for (int i = 0; i < nb; ++i) {
        const float4 p = smem.readback[y * 64 + i * 256 + nt * 256 * nb + lane];
        if (b0 + i == 0) {
          s = p;
        } else {
          s.x += p.x;
          s.y += p.y;
          s.z += p.z;
          s.w += p.w;
        }
      }
      tot[nt] = s;
    }
  }
  for (int nt = 0; nt < NT; ++nt) {
    const int n = (j * NT + nt) * 16 + row;
    const float v[4] = {tot[nt].x, tot[nt].y, tot[nt].z, tot[nt].w};
    for (int q = 0; q < 4; ++q) {
      const int m = m_base + 4 * (lane / 16) + q;
      if (n < N && m < M) {
        const float bv = bias ? Ty::to_float(bias[m]) : 0.0f;
        out[std::size_t(n) * M + m] = Ty::from_float(v[q] + bv);
      }
    }
  }
#endif
}

// The launch: grid (M-tiles, shards), block (64, 4). ws holds plan.workspace_floats() floats, cntr plan.m_tiles
// zeroed ints (the kernel leaves them zero).
template <class T, int NP2, int CHUNKK>
hipError_t launch_splitk_rc_t(const SplitkPlan& p, const T* a, const T* b, const T* bias, T* out, float* ws, int* cntr,
                              int N, int K, int M, hipStream_t stream) {
  const dim3 grid(p.m_tiles, p.k_rnd), block(64, 4);
  splitk_rc<T, NP2, CHUNKK><<<grid, block, 0, stream>>>(a, b, bias, out, ws, cntr, N, K, M, p.k_rnd);
  return hipGetLastError();
}

template <class T>
hipError_t launch_splitk_rc(const SplitkPlan& p, const T* a, const T* b, const T* bias, T* out, float* ws, int* cntr,
                            int N, int K, int M, hipStream_t stream) {
  if (!p.ok) return hipErrorInvalidValue;
#define SPLITK_CASE(NP2_, CK_) \
  if (p.np2 == NP2_ && p.chunkk == CK_) return launch_splitk_rc_t<T, NP2_, CK_>(p, a, b, bias, out, ws, cntr, N, K, M, stream);
  SPLITK_CASE(16, 1)
  SPLITK_CASE(32, 1)
  SPLITK_CASE(32, 2)
  SPLITK_CASE(64, 1)
  SPLITK_CASE(64, 2)
  SPLITK_CASE(128, 1)
  SPLITK_CASE(128, 2)
#undef SPLITK_CASE
  return hipErrorInvalidValue;
}

hipError_t launch_splitk_rc_bf16(const SplitkPlan& p, const void* a, const void* b, const void* bias, void* out,
                                 float* ws, int* cntr, int N, int K, int M, hipStream_t stream) {
  using T = __hip_bfloat16;
  return launch_splitk_rc<T>(p, static_cast<const T*>(a), static_cast<const T*>(b), static_cast<const T*>(bias),
                             static_cast<T*>(out), ws, cntr, N, K, M, stream);
}
hipError_t launch_splitk_rc_fp16(const SplitkPlan& p, const void* a, const void* b, const void* bias, void* out,
                                 float* ws, int* cntr, int N, int K, int M, hipStream_t stream) {
  using T = __half;
  return launch_splitk_rc<T>(p, static_cast<const T*>(a), static_cast<const T*>(b), static_cast<const T*>(bias),
                             static_cast<T*>(out), ws, cntr, N, K, M, stream);
}

#ifndef HIPSIM_NO_HARNESS
#include "tests/hipsim/splitk_rc_harness.hpp"
#endif
