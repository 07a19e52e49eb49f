// Tensor-core kernel of the split-K skinny GEMM (plan.mma, sm_90): one workgroup per (M-tile, K-shard), the same
// protocol as the portable kernel (skinny_gemm.kernel.cpp) with a different phase 1:
//   1. The tile's rows of b and the (padded) rows of a are staged in LDS by asynchronous 16-byte copies into a
//      ring of `stages` slots, each slot `panels` panels of 32 K elements (rows of 64 bytes, zero-filled past M, N
//      and the shard's K). Step i waits for its own copies, one barrier, then issues step i + stages - 1 into the
//      slot step i - 1 used, then computes: warp (wm, wn, grp) multiplies its mma_m_tiles x 16 rows of b by its
//      mma_n_blocks x 8 rows of a on the panels grp, grp + k_groups, ... with m16n8k16 MMAs (kernels/port/mma.hpp;
//      b is the MMA's A operand, a its B operand, the accumulator the transposed output tile).
//      Fragments: lane (g, t) loads one 16-byte vector per row at K offset 8t of the panel, the same permutation of
//      K for both operands (words x, y feed the first MMA, z, w the second), so each load is its fragments; a warp's
//      32 loads of 16 bytes cover 512 contiguous LDS bytes (no bank conflicts).
//   2. k-groups reduced in ascending order through LDS (or stored directly when there is one); the partial tile
//      goes to the shard's slab. 3-4: finish_tile (skinny_device.hpp).
// Sums are in a fixed order per plan: bit-identical run to run. Per-warp branches (8-row blocks of a past N) are
// uniform over each 64-lane pair of warps too: warps along N only exist with warps_m >= 2 (the plan's LDS bound).
#include "kernels/port/hip_port.hpp"
#include "kernels/port/async_copy.hpp"
#include "kernels/port/mma.hpp"
#include "kernels/skinny_gemm/skinny_device.hpp"
#include "kernels/skinny_gemm/skinny_plan.hpp"

namespace dsv4::kernels::skinny::detail {

#if !defined(DSV4_BACKEND_HIP)  // no AMD plan selects the MMA path (no MFMA wrapper yet)
namespace {

template <bool F16, int NBW, int MT>
__global__ void __launch_bounds__(256, kMmaBlocksPerSm) skinny_gemm_mma_kernel(KParams p) {
  constexpr int S = mma_stages(NBW);
  constexpr port::MmaElem E = F16 ? port::MmaElem::f16 : port::MmaElem::bf16;
  constexpr int PK = kMmaPanelK;
  DSV4_LDS_DYNAMIC(std::uint16_t, smem);
  const int tid = static_cast<int>(threadIdx.x);
  const int tile = static_cast<int>(blockIdx.x) % p.tiles_m;
  const int ks = static_cast<int>(blockIdx.x) / p.tiles_m;
  const int TM = p.tile_m;
  const int rows = TM + 8 * NBW * p.warps_n;  // staged rows per panel: b rows, then a rows
  const int P = p.panels, KG = p.k_groups;
  const int warp = tid / 32, lane = tid % 32;
  const int g = lane / 4, t = lane % 4;
  const int wm = warp % p.warps_m, wn = (warp / p.warps_m) % p.warps_n, grp = warp / (p.warps_m * p.warps_n);
  const std::int64_t m0 = static_cast<std::int64_t>(tile) * TM;
  const int panel_elems = rows * PK;
  const int stage_elems = P * panel_elems;
  auto ring = port::lds_carve<std::uint16_t>(smem, 0, static_cast<std::size_t>(S) * stage_elems, "mma_stage_ring");

  const std::int64_t k_begin = static_cast<std::int64_t>(ks) * p.chunks_per_shard * p.k_chunk;
  const std::int64_t shard_end = k_begin + static_cast<std::int64_t>(p.chunks_per_shard) * p.k_chunk;
  const std::int64_t k_end = shard_end < p.k ? shard_end : p.k;
  const int step_k = P * PK;
  const int nsteps = static_cast<int>((k_end - k_begin + step_k - 1) / step_k);
  const int copies = P * rows * (PK / 8);  // 16-byte copies per stage

  auto issue = [&](int step) {
    if (step < nsteps) {
      const std::int64_t kb = k_begin + static_cast<std::int64_t>(step) * step_k;
      const std::ptrdiff_t slot0 = static_cast<std::ptrdiff_t>(step % S) * stage_elems;
      for (int c = tid; c < copies; c += kBlockThreads) {
        const int j = c % (PK / 8);
        const int r = (c / (PK / 8)) % rows;
        const int q = c / ((PK / 8) * rows);
        const std::int64_t kk = kb + q * PK + j * 8;
        const std::uint16_t* src = p.b;
        bool valid = false;
        if (r < TM) {
          const std::int64_t m = m0 + r;
          valid = m < p.m && kk < k_end;
          if (valid) src = p.b + m * p.k + kk;
        } else {
          const int n = r - TM;
          valid = n < p.n && kk < k_end;
          if (valid) src = p.a + static_cast<std::int64_t>(n) * p.lda + kk;
        }
        port::async_copy16(ring, slot0 + static_cast<std::ptrdiff_t>(q) * panel_elems + r * PK + j * 8, src, valid);
      }
    }
    port::async_commit();  // every step commits one group (possibly empty): the wait count stays uniform
  };

  float acc[MT][NBW][4];
SKINNY_UNROLL
  for (int mt = 0; mt < MT; ++mt)
SKINNY_UNROLL
    for (int nb = 0; nb < NBW; ++nb)
SKINNY_UNROLL
      for (int i = 0; i < 4; ++i) acc[mt][nb][i] = 0.f;

  // ---- 1. pipelined main loop ----
  for (int s = 0; s < S - 1; ++s) issue(s);
  for (int it = 0; it < nsteps; ++it) {
    port::async_wait<S - 2>();  // this thread's copies of step it have landed
    __syncthreads();            // ... and everyone's; everyone is also done with step it - 1's slot
    issue(it + S - 1);
    const std::ptrdiff_t slot0 = static_cast<std::ptrdiff_t>(it % S) * stage_elems;
    for (int q = grp; q < P; q += KG) {
      const std::ptrdiff_t base = slot0 + static_cast<std::ptrdiff_t>(q) * panel_elems;
      uint4 fa[MT][2];
SKINNY_UNROLL
      for (int mt = 0; mt < MT; ++mt) {
        const int r = (wm * MT + mt) * 16 + g;
        fa[mt][0] = port::lds_load_as<uint4>(ring, base + r * PK + 8 * t);
        fa[mt][1] = port::lds_load_as<uint4>(ring, base + (r + 8) * PK + 8 * t);
      }
      uint4 fb[NBW];
SKINNY_UNROLL
      for (int nb = 0; nb < NBW; ++nb) {
        const int n0 = (wn * NBW + nb) * 8;
        if (n0 >= p.n) break;  // warp-uniform: blocks of a past N compute nothing
        fb[nb] = port::lds_load_as<uint4>(ring, base + (TM + n0 + g) * PK + 8 * t);
      }
SKINNY_UNROLL
      for (int nb = 0; nb < NBW; ++nb) {
        if ((wn * NBW + nb) * 8 >= p.n) break;
        const std::uint32_t fb0[2] = {fb[nb].x, fb[nb].y};
        const std::uint32_t fb1[2] = {fb[nb].z, fb[nb].w};
SKINNY_UNROLL
        for (int mt = 0; mt < MT; ++mt) {
          const std::uint32_t fa0[4] = {fa[mt][0].x, fa[mt][1].x, fa[mt][0].y, fa[mt][1].y};
          const std::uint32_t fa1[4] = {fa[mt][0].z, fa[mt][1].z, fa[mt][0].w, fa[mt][1].w};
          port::mma_m16n8k16<E>(acc[mt][nb], fa0, fb0);
          port::mma_m16n8k16<E>(acc[mt][nb], fa1, fb1);
        }
      }
    }
  }
  port::async_wait<0>();  // only empty groups can remain; the ring is reused below
  __syncthreads();

  // ---- 2. k-group reduction (ascending group order), publish the shard's partial tile ----
  const int outs = p.n_p2 * TM;  // output o = n * TM + m_local; rows n >= N are zero
  const int np = 8 * NBW * p.warps_n;
  float* slab = p.partials + (static_cast<std::int64_t>(ks) * p.tiles_m + tile) * outs;
  auto put = [&](auto&& store) {
SKINNY_UNROLL
    for (int mt = 0; mt < MT; ++mt)
SKINNY_UNROLL
      for (int nb = 0; nb < NBW; ++nb) {
        const int ml = (wm * MT + mt) * 16 + g;
        const int n = (wn * NBW + nb) * 8 + 2 * t;
        store(n * TM + ml, acc[mt][nb][0]);
        store((n + 1) * TM + ml, acc[mt][nb][1]);
        store(n * TM + ml + 8, acc[mt][nb][2]);
        store((n + 1) * TM + ml + 8, acc[mt][nb][3]);
      }
  };
  if (KG == 1) {
    put([&](int o, float v) { port::global_store(slab + o, v); });
    for (int o = np * TM + tid; o < outs; o += kBlockThreads) port::global_store(slab + o, 0.f);
  } else {
    auto red = port::lds_carve<float>(smem, 0, static_cast<std::size_t>(KG) * outs, "kgroup_reduce");
    put([&](int o, float v) { red[static_cast<std::ptrdiff_t>(grp) * outs + o] = v; });
    __syncthreads();
    for (int o = tid; o < outs; o += kBlockThreads) {
      float s = 0.f;
      if (o / TM < np) {
        s = red[o];
        for (int q = 1; q < KG; ++q) s += red[static_cast<std::ptrdiff_t>(q) * outs + o];
      }
      port::global_store(slab + o, s);
    }
  }
  finish_tile<F16>(p, smem, tile, tid);
}

template <bool F16>
KernelFn pick(int n_blocks, int m_tiles) {
  if (n_blocks == 1 && m_tiles == 1) return &skinny_gemm_mma_kernel<F16, 1, 1>;
  if (n_blocks == 2 && m_tiles == 1) return &skinny_gemm_mma_kernel<F16, 2, 1>;
  if (n_blocks == 4 && m_tiles == 1) return &skinny_gemm_mma_kernel<F16, 4, 1>;
  if (n_blocks == 8 && m_tiles == 2) return &skinny_gemm_mma_kernel<F16, 8, 2>;
  return nullptr;
}

}  // namespace

KernelFn mma_kernel(bool f16, int n_blocks, int m_tiles) {
  const KernelFn k = f16 ? pick<true>(n_blocks, m_tiles) : pick<false>(n_blocks, m_tiles);
  if (!k)
    throw port::Error("skinny_gemm: no tensor-core kernel is instantiated for the warp tile " +
                      std::to_string(16 * m_tiles) + "x" + std::to_string(8 * n_blocks));
  return k;
}
#endif  // !DSV4_BACKEND_HIP

}  // namespace dsv4::kernels::skinny::detail
