// Split-K skinny GEMM kernel (wvSplitKrc protocol, portable arithmetic): one workgroup per (M-tile, K-shard).
//   1. Main loop: stage a[0:n_p2, chunk] and b[tile, chunk] into LDS (16-byte vectors, rows >= N / >= M and K
//      past the end zero-filled), each thread accumulates a 4x4 fp32 micro-tile over its k-group's share.
//   2. k-groups are reduced through LDS in ascending group order; the shard's fp32 partial tile goes to the
//      shard's own slab of the workspace.
//   3. Release: fence, barrier, one atomicAdd on the M-tile's counter. The last arriver (old == k_rnd-1) resets
//      the counter to 0, fences (acquire) and reads all slabs back through LDS in batches of
//      readback_batch_shards, summing shards in ascending order, so the result is bit-identical run to run.
//   4. Epilogue: + bias in fp32, one RNE rounding, store rows < N, columns < M.
// Plans with an arch layout (sm_90) run the tensor-core kernels of kernels/nvidia/skinny_gemm instead (the same
// protocol, phases 3-4 shared through skinny_device.hpp).
// The readback_one_pass variant stages every shard at once (plan.readback_batch_shards == k_rnd): past the LDS
// allocation its writes are dropped and its reads return 0 (CDNA), the planted bug of known-bugs #1.
#include "kernels/port/hip_port.hpp"
#include "kernels/port/grid_dependency.hpp"
#include "kernels/port/async_copy.hpp"
#include "kernels/skinny_gemm/skinny_device.hpp"
#include "kernels/skinny_gemm/skinny_launch_detail.hpp"

namespace dsv4::kernels::skinny {
namespace {

using detail::KParams;
using detail::to_f32;
using detail::finish_tile;

template <bool F16>
__device__ __forceinline__ void unpack8(const uint4& v, float* f) {
  const unsigned w[4] = {v.x, v.y, v.z, v.w};
DSV4_UNROLL
  for (int i = 0; i < 4; ++i) {
    f[2 * i] = to_f32<F16>(w[i] & 0xffffu);
    f[2 * i + 1] = to_f32<F16>(w[i] >> 16);
  }
}

constexpr int kLoadBatch = 8;  // 16-byte global loads a thread keeps in flight while staging

// Stages rows [row0, row0 + rows) x K-range [kc0, kc0 + vpr·8) of src (row stride ld) into dst (row pitch
// `pitch`), zero-filling rows >= valid_rows and K >= k. Loads are issued in batches before their LDS stores.
__device__ __forceinline__ void stage_rows(port::lds_ptr<std::uint16_t> dst, const std::uint16_t* src,
                                           std::int64_t ld, int rows, std::int64_t valid_rows, std::int64_t row0,
                                           std::int64_t kc0, std::int64_t k, int vpr, int pitch, int tid) {
  const int total = rows * vpr;
  for (int v0 = tid; v0 < total; v0 += kBlockThreads * kLoadBatch) {
    uint4 val[kLoadBatch];
    DSV4_UNROLL
    for (int j = 0; j < kLoadBatch; ++j) {
      const int v = v0 + j * kBlockThreads;
      val[j] = make_uint4(0, 0, 0, 0);
      if (v < total) {
        const int row = v / vpr, kv = v % vpr;
        const std::int64_t kk = kc0 + static_cast<std::int64_t>(kv) * kVec;
        if (row0 + row < valid_rows && kk < k)
          val[j] = port::global_load(reinterpret_cast<const uint4*>(src + (row0 + row) * ld + kk));
      }
    }
    DSV4_UNROLL
    for (int j = 0; j < kLoadBatch; ++j) {
      const int v = v0 + j * kBlockThreads;
      if (v < total) port::lds_store_as<uint4>(dst, static_cast<std::ptrdiff_t>(v / vpr) * pitch + (v % vpr) * kVec, val[j]);
    }
  }
}

template <bool F16>
__global__ void __launch_bounds__(256) skinny_gemm_kernel(KParams p) {
  DSV4_LDS_DYNAMIC(std::uint16_t, smem);
  port::wait_for_previous_grid();  // before any global access (the launch may overlap the previous kernel)
  const int tid = static_cast<int>(threadIdx.x);
  const detail::TileRef tr = detail::tile_of_block(p, static_cast<int>(blockIdx.x));  // one slice (n0 = 0) here
  const int tile = tr.m_tile;
  const int TM = p.tile_m;
  const int pitch = p.k_chunk + kRowPad;
  const int vpr = p.k_chunk / kVec;  // 16-byte vectors per staged row
  const std::int64_t m0 = static_cast<std::int64_t>(tile) * TM;

  // ---- 1. main loop ----
  auto a_s = port::lds_carve<std::uint16_t>(smem, 0, static_cast<std::size_t>(p.n_p2) * pitch, "a_stage");
  auto b_s = port::lds_carve<std::uint16_t>(smem, static_cast<std::size_t>(p.n_p2) * pitch * 2,
                                            static_cast<std::size_t>(TM) * pitch, "b_stage");
  const int slots = p.n_p2 * TM / (kMicroRows * kMicroCols);
  const int grp = tid / slots;
  const int slot = tid % slots;
  const int rq = p.n_p2 / kMicroRows, cq = TM / kMicroCols;
  const int ni = slot % rq, mi = slot / rq;
  const int vpg = vpr / p.k_groups;
  float acc[kMicroRows][kMicroCols];
DSV4_UNROLL
  for (int r = 0; r < kMicroRows; ++r)
DSV4_UNROLL
    for (int c = 0; c < kMicroCols; ++c) acc[r][c] = 0.f;

  const std::int64_t k_begin = static_cast<std::int64_t>(tr.ks) * p.chunks_per_shard * p.k_chunk;
  for (int ch = 0; ch < p.chunks_per_shard; ++ch) {
    const std::int64_t kc0 = k_begin + static_cast<std::int64_t>(ch) * p.k_chunk;
    if (kc0 >= p.k) break;  // uniform over the block
    stage_rows(a_s, p.a, p.lda, p.n_p2, p.n, 0, kc0, p.k, vpr, pitch, tid);
    stage_rows(b_s, p.b, p.k, TM, p.m, m0, kc0, p.k, vpr, pitch, tid);
    __syncthreads();
    for (int kv = grp * vpg; kv < (grp + 1) * vpg; ++kv) {
      float bf[kMicroCols][kVec];
DSV4_UNROLL
      for (int c = 0; c < kMicroCols; ++c)
        unpack8<F16>(port::lds_load_as<uint4>(b_s, static_cast<std::ptrdiff_t>(mi + c * cq) * pitch + kv * kVec),
                     bf[c]);
DSV4_UNROLL
      for (int r = 0; r < kMicroRows; ++r) {
        const int row = ni + r * rq;
        if (row >= p.n) continue;  // padded rows: no work (their LDS rows are zero anyway)
        float af[kVec];
        unpack8<F16>(port::lds_load_as<uint4>(a_s, static_cast<std::ptrdiff_t>(row) * pitch + kv * kVec), af);
DSV4_UNROLL
        for (int c = 0; c < kMicroCols; ++c)
DSV4_UNROLL
          for (int e = 0; e < kVec; ++e) acc[r][c] += af[e] * bf[c][e];
      }
    }
    __syncthreads();
  }

  port::allow_next_grid();  // the next kernel may be scheduled from here (it waits for this one's end)
  // ---- 2. k-group reduction, publish the shard's partial tile ----
  const int outs = p.n_p2 * TM;  // outputs of the tile; output o = n * TM + m_local
  float* slab = detail::slab_of(p, tr.ks, tr.index, outs);
  if (p.k_groups > 1) {
    auto red = port::lds_carve<float>(smem, 0, static_cast<std::size_t>(p.k_groups) * outs, "kgroup_reduce");
DSV4_UNROLL
    for (int r = 0; r < kMicroRows; ++r)
DSV4_UNROLL
      for (int c = 0; c < kMicroCols; ++c)
        red[static_cast<std::ptrdiff_t>(grp) * outs + (ni + r * rq) * TM + (mi + c * cq)] = acc[r][c];
    __syncthreads();
    for (int o = tid * kEpiVec; o < outs; o += kBlockThreads * kEpiVec)
      detail::store_slab8(slab, o, detail::kgroup_sum8(red, p.k_groups, outs, o));
  } else {
DSV4_UNROLL
    for (int r = 0; r < kMicroRows; ++r)
DSV4_UNROLL
      for (int c = 0; c < kMicroCols; ++c) port::global_store(slab + (ni + r * rq) * TM + (mi + c * cq), acc[r][c]);
  }

  finish_tile<F16>(p, smem, tr, tid);
}



}  // namespace

void launch_skinny_kernel(const SkinnyPlan& plan, const SkinnyBuffers& io, void* workspace,
                          std::size_t declared_workspace_bytes, port::Stream& stream) {
  if (plan.arch_layout)
    throw port::Error("skinny_gemm: a plan with an arch layout reached the portable kernel's launcher [" +
                      plan.describe() + "]");
  const detail::KParams p = kernel_params(plan, io, workspace);
  auto* kernel = plan.shape.dtype == ElemType::f16 ? &skinny_gemm_kernel<true> : &skinny_gemm_kernel<false>;
  detail::launch_checked(plan, kernel, launch_config(plan, io, workspace, declared_workspace_bytes, stream), p);
}

}  // namespace dsv4::kernels::skinny
