// Tensor-core kernel of the split-K skinny GEMM (plan.mma, sm_90): one workgroup per (M-tile, K-shard), the same
// protocol as the portable kernel (skinny_gemm.kernel.cpp) with a different phase 1:
//   1. The tile's rows of b and the (padded) rows of a are staged in LDS by asynchronous 16-byte copies into a
//      ring of `stages` slots, each slot `panels` panels of 32 K elements (rows of 64 bytes plus one padding row
//      per panel, zero-filled past M, N and the shard's K; consecutive threads copy consecutive K of a row).
//      Step i waits for its own copies, one barrier, then issues step i + stages - 1 into the slot step i - 1
//      used, then computes: warp (wm, wn, grp) multiplies its mma_m_tiles x 16 rows of b by its
//      mma_n_blocks x 8 rows of a on the panels grp, grp + k_groups, ... with m16n8k16 MMAs (kernels/nvidia/port/mma.hpp;
//      b is the MMA's A operand, a its B operand, the accumulator the transposed output tile).
//      Fragments: lane (g, t) loads one 16-byte vector per row at K offset 8t of the panel, the same permutation of
//      K for both operands (words x, y feed the first MMA, z, w the second), so each load is its fragments; a warp's
//      32 loads of 16 bytes cover 512 contiguous LDS bytes (no bank conflicts).
//   2-4. publish_tile (sm90_device.hpp): k-groups reduced in ascending order, the shard's partial to its slab
//      and the split-K protocol, or, with one shard, the tile straight to the output.
// Sums are in a fixed order per plan: bit-identical run to run. The MMA loop has no data-dependent branch (8-row
// blocks of a past N multiply zeros), so every MMA runs converged on 32-lane groups and on 64-lane sim waves.
#include "kernels/port/hip_port.hpp"
#include "kernels/port/grid_dependency.hpp"
#include "kernels/port/async_copy.hpp"
#include "kernels/nvidia/port/mma.hpp"
#include "kernels/nvidia/skinny_gemm/sm90_device.hpp"

namespace dsv4::kernels::skinny::detail {

#if !defined(DSV4_BACKEND_HIP)  // no AMD plan selects the MMA path (no MFMA wrapper yet)
namespace {

template <bool F16, int NBW, int MT>
__global__ void __launch_bounds__(256, mma_blocks_per_sm(NBW, MT)) skinny_gemm_mma_kernel(Sm90Params p) {
  constexpr int S = mma_stages(NBW);
  constexpr port::MmaElem E = F16 ? port::MmaElem::f16 : port::MmaElem::bf16;
  constexpr int PK = kMmaPanelK;
  DSV4_LDS_DYNAMIC(std::uint16_t, smem);
  port::wait_for_previous_grid();  // before any global access (the launch may overlap the previous kernel)
  const int tid = static_cast<int>(threadIdx.x);
  const TileRef tr = sm90_tile_of_block(p, static_cast<int>(blockIdx.x));  // one slice (n0 = 0) on this path
  const int tile = tr.m_tile, ks = tr.ks;
  const int TM = p.tile_m;
  const int rows = TM + 8 * NBW * p.warps_n;  // staged rows per panel: b rows, then a rows
  const int P = p.panels, KG = p.k_groups;
  const int warp = tid / 32, lane = tid % 32;
  const int g = lane / 4, t = lane % 4;
  const int wm = warp % p.warps_m, wn = (warp / p.warps_m) % p.warps_n, grp = warp / (p.warps_m * p.warps_n);
  const std::int64_t m0 = static_cast<std::int64_t>(tile) * TM;
  const int panel_elems = (rows + 1) * PK;  // one row of padding: a warp's copies into two panels miss each other's banks
  const int stage_elems = P * panel_elems;
  auto ring = port::lds_carve<std::uint16_t>(smem, 0, static_cast<std::size_t>(S) * stage_elems, "mma_stage_ring");

  const std::int64_t k_begin = static_cast<std::int64_t>(ks) * p.chunks_per_shard * p.k_chunk;
  const std::int64_t shard_end = k_begin + static_cast<std::int64_t>(p.chunks_per_shard) * p.k_chunk;
  const std::int64_t k_end = shard_end < p.k ? shard_end : p.k;
  const int step_k = P * PK;
  const int nsteps = static_cast<int>((k_end - k_begin + step_k - 1) / step_k);
  // Copy roles, fixed for the whole loop: panels are a power of two, so a row's P·4 16-byte pieces divide the 256
  // threads; thread tid always copies piece tid % (P·4) (panel q, 16-byte column j) of rows r0, r0 + rstep, ...
  // (consecutive threads copy consecutive K of a row). Only the step's K offset changes from step to step.
  const int pieces = P * (PK / 8);
  const int piece = tid & (pieces - 1);
  const int koff = (piece / (PK / 8)) * PK + (piece % (PK / 8)) * 8;
  const int lds_piece = (piece / (PK / 8)) * panel_elems + (piece % (PK / 8)) * 8;
  const int r0 = tid / pieces, rstep = kBlockThreads / pieces;
  // Its b rows r0, r0 + rstep, ... < TM come first, then its a rows; each run advances by a fixed stride and is
  // valid for a prefix (rows < M, rows < N), so a copy costs a compare, a select and two adds.
  auto count_below = [&](int first, int limit) { return first >= limit ? 0 : (limit - first + rstep - 1) / rstep; };
  const int nb_copies = count_below(r0, TM);
  const int ra = r0 + nb_copies * rstep;  // this thread's first a row (>= TM)
  const int na_copies = count_below(ra, rows);
  const std::int64_t m_left = static_cast<std::int64_t>(p.m) - m0;  // valid b rows of the tile
  const int nb_valid = count_below(r0, static_cast<int>(m_left < TM ? m_left : TM));
  const int na_valid = count_below(ra - TM, p.n);
  const std::uint16_t* b_first = p.b + (m0 + r0) * p.k + k_begin + koff;
  const std::uint16_t* a_first = p.a + static_cast<std::int64_t>(ra - TM) * p.lda + k_begin + koff;
  const std::int64_t b_stride = static_cast<std::int64_t>(rstep) * p.k;
  const std::int64_t a_stride = static_cast<std::int64_t>(rstep) * p.lda;

  auto issue = [&](int step) {
    if (step < nsteps) {
      const int kstep = step * step_k;
      const bool k_ok = k_begin + kstep + koff < k_end;
      std::ptrdiff_t dst = static_cast<std::ptrdiff_t>(step % S) * stage_elems + lds_piece + r0 * PK;
      const std::uint16_t* src = b_first + kstep;
      for (int i = 0; i < nb_copies; ++i, src += b_stride, dst += rstep * PK) {
        const bool valid = k_ok && i < nb_valid;
        port::async_copy16(ring, dst, valid ? src : p.b, valid);
      }
      src = a_first + kstep;
      for (int i = 0; i < na_copies; ++i, src += a_stride, dst += rstep * PK) {
        const bool valid = k_ok && i < na_valid;
        port::async_copy16(ring, dst, valid ? src : p.b, valid);
      }
    }
    port::async_commit();  // every step commits one group (possibly empty): the wait count stays uniform
  };

  // Small warp tiles keep two accumulator sets (one per MMA half) so that consecutive MMAs are independent;
  // they are added once at the end (a fixed order).
  constexpr int H = MT * NBW <= 4 ? 2 : 1;
  float acc[H][MT][NBW][4];
DSV4_UNROLL
  for (int h = 0; h < H; ++h)
DSV4_UNROLL
    for (int mt = 0; mt < MT; ++mt)
DSV4_UNROLL
      for (int nb = 0; nb < NBW; ++nb)
DSV4_UNROLL
        for (int i = 0; i < 4; ++i) acc[h][mt][nb][i] = 0.f;

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
DSV4_UNROLL
      for (int mt = 0; mt < MT; ++mt) {
        const int r = (wm * MT + mt) * 16 + g;
        fa[mt][0] = port::lds_load_as<uint4>(ring, base + r * PK + 8 * t);
        fa[mt][1] = port::lds_load_as<uint4>(ring, base + (r + 8) * PK + 8 * t);
      }
      uint4 fb[NBW];
DSV4_UNROLL
      for (int nb = 0; nb < NBW; ++nb)  // rows of a past N are zeros in LDS: no branch in the MMA loop
        fb[nb] = port::lds_load_as<uint4>(ring, base + (TM + (wn * NBW + nb) * 8 + g) * PK + 8 * t);
      // Half 0 (words x, y) of every (mt, nb) first, then half 1 (z, w): no MMA waits for the one before it.
DSV4_UNROLL
      for (int half = 0; half < 2; ++half)
DSV4_UNROLL
        for (int nb = 0; nb < NBW; ++nb) {
          const std::uint32_t fbh[2] = {half ? fb[nb].z : fb[nb].x, half ? fb[nb].w : fb[nb].y};
DSV4_UNROLL
          for (int mt = 0; mt < MT; ++mt) {
            const std::uint32_t fah[4] = {half ? fa[mt][0].z : fa[mt][0].x, half ? fa[mt][1].z : fa[mt][1].x,
                                          half ? fa[mt][0].w : fa[mt][0].y, half ? fa[mt][1].w : fa[mt][1].y};
            port::mma_m16n8k16<E>(acc[half % H][mt][nb], fah, fbh);
          }
        }
    }
  }
  port::async_wait<0>();  // only empty groups can remain; the ring is reused below
  __syncthreads();
  if constexpr (H == 2) {
DSV4_UNROLL
    for (int mt = 0; mt < MT; ++mt)
DSV4_UNROLL
      for (int nb = 0; nb < NBW; ++nb)
DSV4_UNROLL
        for (int i = 0; i < 4; ++i) acc[0][mt][nb][i] += acc[1][mt][nb][i];
  }

  port::allow_next_grid();  // the next kernel may be scheduled from here (it waits for this one's end)
  // ---- 2. k-group reduction (ascending group order), publish the shard's partial tile; 3-4 ----
  publish_tile<F16>(p, smem, tr, tid, grp, 8 * NBW * p.warps_n, [&](auto&& store) {
DSV4_UNROLL
    for (int mt = 0; mt < MT; ++mt)
DSV4_UNROLL
      for (int nb = 0; nb < NBW; ++nb) {
        const int ml = (wm * MT + mt) * 16 + g;
        const int n = (wn * NBW + nb) * 8 + 2 * t;
        store(n * TM + ml, acc[0][mt][nb][0]);
        store((n + 1) * TM + ml, acc[0][mt][nb][1]);
        store(n * TM + ml + 8, acc[0][mt][nb][2]);
        store((n + 1) * TM + ml + 8, acc[0][mt][nb][3]);
      }
  });
}

template <bool F16>
Sm90KernelFn pick(int n_blocks, int m_tiles) {
  if (n_blocks == 1 && m_tiles == 1) return &skinny_gemm_mma_kernel<F16, 1, 1>;
  if (n_blocks == 2 && m_tiles == 1) return &skinny_gemm_mma_kernel<F16, 2, 1>;
  if (n_blocks == 4 && m_tiles == 1) return &skinny_gemm_mma_kernel<F16, 4, 1>;
  if (n_blocks == 4 && m_tiles == 2) return &skinny_gemm_mma_kernel<F16, 4, 2>;
  if (n_blocks == 8 && m_tiles == 2) return &skinny_gemm_mma_kernel<F16, 8, 2>;
  if (n_blocks == 8 && m_tiles == 4) return &skinny_gemm_mma_kernel<F16, 8, 4>;
  return nullptr;
}

}  // namespace

Sm90KernelFn mma_kernel(bool f16, int n_blocks, int m_tiles) {
  const Sm90KernelFn k = f16 ? pick<true>(n_blocks, m_tiles) : pick<false>(n_blocks, m_tiles);
  if (!k)
    throw port::Error("skinny_gemm: no tensor-core kernel is instantiated for the warp tile " +
                      std::to_string(16 * m_tiles) + "x" + std::to_string(8 * n_blocks));
  return k;
}
#endif  // !DSV4_BACKEND_HIP

}  // namespace dsv4::kernels::skinny::detail
