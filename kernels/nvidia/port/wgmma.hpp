// Portable warpgroup matrix multiply-accumulate from LDS, the shape of sm_90 `wgmma.mma_async` m64nNk16 with both
// operands in shared memory: D[64 x N] += A[64 x 16] · B[16 x N], bf16 or fp16 in, fp32 accumulators. Include after
// kernels/port/hip_port.hpp, from kernel TUs only. Every thread of the warpgroup (128
// consecutive threads, threadIdx.x / 128) calls it together.
//
// Operand tiles in LDS ("swizzled K-major tiles", kernels/nvidia/port/swizzle.hpp): R rows (R a multiple of 8) by 64 K
// elements, 16-byte chunk c (K 8c..8c+7) of row r at swizzle128_byte(r, c) from the tile's start, which must be
// 1024-byte aligned in the LDS window (lds_align_skip). The hardware applies the swizzle to address bits, so a
// misaligned tile reads permuted K: the sim emulation reproduces that, not a friendlier rule.
//   wgmma_m64k16<E, N>(d, a, a_elem, b, b_elem, k16, accumulate): A = rows 0..63 of the tile at a + a_elem, B = rows
//   0..N-1 of the tile at b + b_elem (B[k][n] = row n, column k), K columns 16·k16 .. 16·k16 + 15 (k16 in 0..3).
// Accumulator layout (thread w·32 + lane of the warpgroup, g = lane / 4, t = lane % 4), for j in 0..N/2-1:
//   d[j] = D[16w + g + 8·((j % 4) / 2)][8·(j / 4) + 2t + j % 2] = D[wgmma_acc_row(tid, j)][wgmma_acc_col(tid, j)]
// Completion: wgmma_fence() before the first MMA of a batch (and after the accumulators were written by other code),
// wgmma_commit() closes the batch, wgmma_wait<N>() waits until at most N batches are pending; only then may the
// accumulators be read or the operand tiles overwritten. LDS written by ordinary stores or async_copy16 must be
// published to the MMA's reads by lds_fence_for_mma() in the writing thread before the barrier that precedes the MMA.
// Backends:
//   cuda: the wgmma instructions (sm_90a features through sm_90 PTX: descriptors with the 128-byte swizzle mode).
//   sim : exact scalar emulation, deferred to the wgmma_wait that retires the batch (the latest point the hardware
//         may read the operands and write the accumulators; fences are no-ops): each thread reads its two A rows and
//         N/4 B rows from LDS through the checked accessors, at the addresses the hardware's swizzle gives, forms
//         exact fp32 products, sums them with the accumulator in float64 and rounds once. A batch never waited for
//         is dropped when the thread exits.
//   hip : not provided (no AMD kernel selects it; MFMA would be the AMD counterpart).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/nvidia/port/mma.hpp"
#include "kernels/nvidia/port/swizzle.hpp"
#if defined(DSV4_BACKEND_SIM)
#include <functional>
#endif

namespace dsv4::port {

#if defined(DSV4_BACKEND_SIM)
namespace sim::detail {  // kernels/nvidia/backend/sim/wgmma_batches.cpp
void wgmma_defer(std::function<void()> mma);
void wgmma_commit_batch();
void wgmma_retire(int pending_allowed);
}  // namespace sim::detail
#endif

#if defined(DSV4_BACKEND_CUDA) && defined(__CUDA_ARCH__)
#if !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "kernels/nvidia/port/wgmma.hpp: wgmma needs the arch-specific target sm_90a (CMAKE_CUDA_ARCHITECTURES=90a)"
#endif
}  // namespace dsv4::port
#include "kernels/nvidia/port/detail/wgmma_ptx.hpp"
namespace dsv4::port {
namespace wgmma_detail {
// Shared-memory matrix descriptor: start address >> 4 (bits 0-13), leading byte offset (unused by swizzled K-major
// layouts: 1), stride byte offset 1024 >> 4 (8-row groups), base offset 0 (aligned tiles), layout 1 = 128B swizzle.
__device__ __forceinline__ std::uint64_t descriptor(unsigned saddr) {
  return static_cast<std::uint64_t>((saddr & 0x3FFFFu) >> 4) | (std::uint64_t{1} << 16) |
         (std::uint64_t{1024 >> 4} << 32) | (std::uint64_t{1} << 62);
}
}  // namespace wgmma_detail
#endif

// The accumulator layout above: the row (0..63) and column (0..N-1) of D that accumulator j of thread `tid` holds
// (tid: the thread index in the block; its warpgroup is tid / 128).
__device__ __forceinline__ int wgmma_acc_row(int tid, int j) {
  return 16 * ((tid % 128) / 32) + (tid % 32) / 4 + 8 * ((j % 4) / 2);
}
__device__ __forceinline__ int wgmma_acc_col(int tid, int j) { return 8 * (j / 4) + 2 * (tid % 4) + j % 2; }

template <MmaElem E, int N>
__device__ __forceinline__ void wgmma_m64k16(float (&d)[N / 2], lds_ptr<std::uint16_t> a, std::ptrdiff_t a_elem,
                                             lds_ptr<std::uint16_t> b, std::ptrdiff_t b_elem, int k16,
                                             bool accumulate) {
  static_assert(N == 8 || N == 16 || N == 32 || N == 64 || N == 96 || N == 112 || N == 128 || N == 192 || N == 256,
                "wgmma_m64k16: N must be 8, 16, 32, 64, 96, 112, 128, 192 or 256 (tools/scripts/gen_wgmma_ptx.py)");
#if defined(DSV4_BACKEND_CUDA) && defined(__CUDA_ARCH__)
  const unsigned sa = static_cast<unsigned>(__cvta_generic_to_shared(a + a_elem)) + 32u * k16;
  const unsigned sb = static_cast<unsigned>(__cvta_generic_to_shared(b + b_elem)) + 32u * k16;
  wgmma_detail::WgmmaPtx<E, N>::run(d, wgmma_detail::descriptor(sa), wgmma_detail::descriptor(sb), accumulate ? 1 : 0);
#elif defined(DSV4_BACKEND_SIM)
  // Deferred to the wgmma_wait that retires the batch (kernels/nvidia/backend/sim/wgmma_batches.cpp).
  sim::detail::wgmma_defer([&d, a, a_elem, b, b_elem, k16, accumulate] {
  constexpr bool f16 = E == MmaElem::f16;
  const int tid = static_cast<int>(threadIdx.x) % 128;
  const int w = tid / 32, g = (tid % 32) / 4, t = tid % 4;
  // The hardware's address arithmetic: element (r, k) of a tile starting at `start` (window bytes) is at
  // start + (r / 8)·1024 + (r % 8)·128 + 2k, then bits 4-6 are XORed with bits 7-9.
  auto load_row = [&](lds_ptr<std::uint16_t> base, std::ptrdiff_t elem, int r, float (&out)[16]) {
    const std::int64_t own = base.byte_offset() + std::int64_t(elem) * 2;
    const std::int64_t window = sim::detail::lds_arena_offset(base.array(), own);
    for (int half = 0; half < 2; ++half) {
      const std::int64_t addr = window + 32 * k16 + (r / 8) * 1024 + (r % 8) * 128 + 16 * half;
      const std::int64_t phys = swizzle128_address(addr);
      std::uint32_t v[4];
      sim::detail::lds_access(base.array(), own + (phys - window), v, 16, sim::detail::LdsMode::read);
      for (int q = 0; q < 4; ++q) {
        out[8 * half + 2 * q] = mma_detail::lo(v[q], f16);
        out[8 * half + 2 * q + 1] = mma_detail::hi(v[q], f16);
      }
    }
  };
  float arow[2][16];
  load_row(a, a_elem, 16 * w + g, arow[0]);
  load_row(a, a_elem, 16 * w + g + 8, arow[1]);
  for (int nb = 0; nb < N / 8; ++nb) {
    float bcol[2][16];
    load_row(b, b_elem, 8 * nb + 2 * t, bcol[0]);
    load_row(b, b_elem, 8 * nb + 2 * t + 1, bcol[1]);
    for (int r = 0; r < 4; ++r) {
      float& c = d[4 * nb + r];
      double s = accumulate ? static_cast<double>(c) : 0.0;
      for (int k = 0; k < 16; ++k) s += static_cast<double>(arow[r / 2][k] * bcol[r % 2][k]);  // exact fp32 products
      c = static_cast<float>(s);
    }
  }
  });
#else
  (void)d, (void)a, (void)a_elem, (void)b, (void)b_elem, (void)k16, (void)accumulate;  // nvcc host pass; not on hip
#endif
}

__device__ __forceinline__ void wgmma_fence() {
#if defined(DSV4_BACKEND_CUDA) && defined(__CUDA_ARCH__)
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void wgmma_commit() {
#if defined(DSV4_BACKEND_CUDA) && defined(__CUDA_ARCH__)
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#elif defined(DSV4_BACKEND_SIM)
  sim::detail::wgmma_commit_batch();
#endif
}
template <int Pending>
__device__ __forceinline__ void wgmma_wait() {
#if defined(DSV4_BACKEND_CUDA) && defined(__CUDA_ARCH__)
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending) : "memory");
#elif defined(DSV4_BACKEND_SIM)
  sim::detail::wgmma_retire(Pending);
#endif
}
// Pins accumulators in place (after a wait, before a batch): the compiler may not move their reads or writes across.
template <int R>
__device__ __forceinline__ void wgmma_pin(float (&d)[R]) {
#if defined(DSV4_BACKEND_CUDA) && defined(__CUDA_ARCH__)
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
#else
  (void)d;
#endif
}
__device__ __forceinline__ void lds_fence_for_mma() {
#if defined(DSV4_BACKEND_CUDA) && defined(__CUDA_ARCH__)
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

}  // namespace dsv4::port
