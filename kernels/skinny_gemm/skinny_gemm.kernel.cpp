// Split-K skinny GEMM kernel (wvSplitKrc protocol, portable arithmetic): one workgroup per (M-tile, K-shard).
//   1. Main loop: stage a[0:n_p2, chunk] and b[tile, chunk] into LDS (16-byte vectors, rows >= N / >= M and K
//      past the end zero-filled), each thread accumulates a 4x4 fp32 micro-tile over its k-group's share.
//   2. k-groups are reduced through LDS in ascending group order; the shard's fp32 partial tile goes to the
//      shard's own slab of the workspace.
//   3. Release: fence, barrier, one atomicAdd on the M-tile's counter. The last arriver (old == k_rnd-1) resets
//      the counter to 0, fences (acquire) and reads all slabs back through LDS in batches of
//      readback_batch_shards, summing shards in ascending order, so the result is bit-identical run to run.
//   4. Epilogue: + bias in fp32, one RNE rounding, store rows < N, columns < M.
// On sm_90 plans (plan.mma) phase 1 is the tensor-core main loop of skinny_gemm_mma_kernel instead (b streamed
// from global memory straight into m16n8k16 fragments); phases 2-4 are the same protocol.
// The readback_one_pass variant stages every shard at once (plan.readback_batch_shards == k_rnd): past the LDS
// allocation its writes are dropped and its reads return 0 (CDNA), the planted bug of known-bugs #1.
#include "kernels/port/hip_port.hpp"
#include "kernels/port/mma.hpp"
#include "kernels/skinny_gemm/skinny_convert.hpp"
#include "kernels/skinny_gemm/skinny_launch_detail.hpp"

#if defined(DSV4_BACKEND_SIM)
#define SKINNY_UNROLL
#else
#define SKINNY_UNROLL _Pragma("unroll")
#endif

namespace dsv4::kernels::skinny {
namespace {

struct KParams {
  const std::uint16_t* a;
  const std::uint16_t* b;
  const std::uint16_t* bias;
  std::uint16_t* out;
  int* counters;
  float* partials;
  int n, m, k, lda;
  int bias_kind;  // 0 none, 1 [M] or [1,M], 2 [N,M]
  int n_p2, tile_m, k_groups, k_chunk, chunks_per_shard, k_rnd, tiles_m, rows_per_n_tile, batch_shards;
  int warps_m;     // MMA path: warps along M
  int lds_floats;  // readback staging array length (the whole allocation)
};

template <bool F16>
__device__ __forceinline__ float to_f32(std::uint32_t h) {
  if constexpr (F16) return f16_to_f32(h);
  else return bf16_to_f32(h);
}
template <bool F16>
__device__ __forceinline__ std::uint16_t from_f32(float f) {
  if constexpr (F16) return f32_to_f16(f);
  else return f32_to_bf16(f);
}

template <bool F16>
__device__ __forceinline__ void unpack8(const uint4& v, float* f) {
  const unsigned w[4] = {v.x, v.y, v.z, v.w};
SKINNY_UNROLL
  for (int i = 0; i < 4; ++i) {
    f[2 * i] = to_f32<F16>(w[i] & 0xffffu);
    f[2 * i + 1] = to_f32<F16>(w[i] >> 16);
  }
}

constexpr int kMaxOwned = 16;  // outputs per thread in the reduction phases: n_p2·tile_m / 256 <= 16
constexpr int kLoadBatch = 8;  // 16-byte global loads a thread keeps in flight while staging

// Stages rows [row0, row0 + rows) x K-range [kc0, kc0 + vpr·8) of src (row stride ld) into dst (row pitch
// `pitch`), zero-filling rows >= valid_rows and K >= k. Loads are issued in batches before their LDS stores.
__device__ __forceinline__ void stage_rows(port::lds_ptr<std::uint16_t> dst, const std::uint16_t* src,
                                           std::int64_t ld, int rows, std::int64_t valid_rows, std::int64_t row0,
                                           std::int64_t kc0, std::int64_t k, int vpr, int pitch, int tid) {
  const int total = rows * vpr;
  for (int v0 = tid; v0 < total; v0 += kBlockThreads * kLoadBatch) {
    uint4 val[kLoadBatch];
    SKINNY_UNROLL
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
    SKINNY_UNROLL
    for (int j = 0; j < kLoadBatch; ++j) {
      const int v = v0 + j * kBlockThreads;
      if (v < total) port::lds_store_as<uint4>(dst, static_cast<std::ptrdiff_t>(v / vpr) * pitch + (v % vpr) * kVec, val[j]);
    }
  }
}

// Phases 3 and 4, shared by both main loops: the workgroup's partial tile is in its slab. Release, count, and the
// last arriver reads every shard back in fixed order, adds the bias and stores the tile.
template <bool F16>
__device__ __forceinline__ void finish_tile(const KParams& p, port::lds_ptr<std::uint16_t> smem, int tile, int tid) {
  const int TM = p.tile_m;
  const int outs = p.n_p2 * TM;
  const std::int64_t m0 = static_cast<std::int64_t>(tile) * TM;
  // ---- 3. release, count, last arriver acquires ----
  __threadfence();  // release: this thread's partials are visible device-wide before the count
  __syncthreads();
  auto flag = port::lds_carve<int>(smem, 0, 1, "last_arriver_flag");
  if (tid == 0) {
    const int old = atomicAdd(p.counters + tile, 1);
    const int last = (old == p.k_rnd - 1) ? 1 : 0;
    if (last) atomicExch(p.counters + tile, 0);  // restore the zero invariant for the next launch
    flag[0] = last;
  }
  __syncthreads();
  const int last = flag[0];
  __syncthreads();  // everyone has read the flag before the readback reuses LDS
  if (!last) return;
  __threadfence();  // acquire: every other shard's partials are visible from here on

  // ---- readback in batches through LDS, fixed shard order ----
  auto stg = port::lds_carve<float>(smem, 0, static_cast<std::size_t>(p.lds_floats), "readback_stage");
  const int per = outs / kBlockThreads;  // outputs owned per thread (outs is a multiple of 256)
  const int RT = p.rows_per_n_tile;
  float sum[kMaxOwned];
SKINNY_UNROLL
  for (int j = 0; j < kMaxOwned; ++j) sum[j] = 0.f;
  for (int b0 = 0; b0 < p.k_rnd; b0 += p.batch_shards) {
    const int bs = (p.k_rnd - b0 < p.batch_shards) ? p.k_rnd - b0 : p.batch_shards;
    // Staging layout (floats): ((nt * batch_shards + ks_local) * RT + n_local) * TM + m_local.
    const int v4_per_shard = outs / 4;
    for (int v = tid; v < bs * v4_per_shard; v += kBlockThreads) {
      const int ksl = v / v4_per_shard;
      const int o = (v % v4_per_shard) * 4;
      const int n = o / TM, ml = o % TM;
      const std::ptrdiff_t dst =
          (static_cast<std::ptrdiff_t>(n / RT) * p.batch_shards + ksl) * RT * TM + (n % RT) * TM + ml;
      const float* src = p.partials + (static_cast<std::int64_t>(b0 + ksl) * p.tiles_m + tile) * outs + o;
      port::global_to_lds(stg, dst, reinterpret_cast<const float4*>(src));
    }
    __syncthreads();
SKINNY_UNROLL
    for (int j = 0; j < kMaxOwned; ++j) {
      if (j >= per) break;
      const int o = tid + j * kBlockThreads;
      const int n = o / TM, ml = o % TM;
      const std::ptrdiff_t base = static_cast<std::ptrdiff_t>(n / RT) * p.batch_shards * RT * TM + (n % RT) * TM + ml;
      for (int ksl = 0; ksl < bs; ++ksl) sum[j] += stg[base + static_cast<std::ptrdiff_t>(ksl) * RT * TM];
    }
    __syncthreads();
  }

  // ---- 4. epilogue ----
SKINNY_UNROLL
  for (int j = 0; j < kMaxOwned; ++j) {
    if (j >= per) break;
    const int o = tid + j * kBlockThreads;
    const int n = o / TM;
    const std::int64_t m = m0 + o % TM;
    if (n >= p.n || m >= p.m) continue;
    float v = sum[j];
    if (p.bias_kind == 1) v += to_f32<F16>(p.bias[m]);
    else if (p.bias_kind == 2) v += to_f32<F16>(p.bias[static_cast<std::int64_t>(n) * p.m + m]);
    port::global_store(p.out + static_cast<std::int64_t>(n) * p.m + m, from_f32<F16>(v));
  }
}

template <bool F16>
__global__ void __launch_bounds__(256) skinny_gemm_kernel(KParams p) {
  DSV4_LDS_DYNAMIC(std::uint16_t, smem);
  const int tid = static_cast<int>(threadIdx.x);
  const int tile = static_cast<int>(blockIdx.x) % p.tiles_m;
  const int ks = static_cast<int>(blockIdx.x) / p.tiles_m;
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
SKINNY_UNROLL
  for (int r = 0; r < kMicroRows; ++r)
SKINNY_UNROLL
    for (int c = 0; c < kMicroCols; ++c) acc[r][c] = 0.f;

  const std::int64_t k_begin = static_cast<std::int64_t>(ks) * p.chunks_per_shard * p.k_chunk;
  for (int ch = 0; ch < p.chunks_per_shard; ++ch) {
    const std::int64_t kc0 = k_begin + static_cast<std::int64_t>(ch) * p.k_chunk;
    if (kc0 >= p.k) break;  // uniform over the block
    stage_rows(a_s, p.a, p.lda, p.n_p2, p.n, 0, kc0, p.k, vpr, pitch, tid);
    stage_rows(b_s, p.b, p.k, TM, p.m, m0, kc0, p.k, vpr, pitch, tid);
    __syncthreads();
    for (int kv = grp * vpg; kv < (grp + 1) * vpg; ++kv) {
      float bf[kMicroCols][kVec];
SKINNY_UNROLL
      for (int c = 0; c < kMicroCols; ++c)
        unpack8<F16>(port::lds_load_as<uint4>(b_s, static_cast<std::ptrdiff_t>(mi + c * cq) * pitch + kv * kVec),
                     bf[c]);
SKINNY_UNROLL
      for (int r = 0; r < kMicroRows; ++r) {
        const int row = ni + r * rq;
        if (row >= p.n) continue;  // padded rows: no work (their LDS rows are zero anyway)
        float af[kVec];
        unpack8<F16>(port::lds_load_as<uint4>(a_s, static_cast<std::ptrdiff_t>(row) * pitch + kv * kVec), af);
SKINNY_UNROLL
        for (int c = 0; c < kMicroCols; ++c)
SKINNY_UNROLL
          for (int e = 0; e < kVec; ++e) acc[r][c] += af[e] * bf[c][e];
      }
    }
    __syncthreads();
  }

  // ---- 2. k-group reduction, publish the shard's partial tile ----
  const int outs = p.n_p2 * TM;  // outputs of the tile; output o = n * TM + m_local
  float* slab = p.partials + (static_cast<std::int64_t>(ks) * p.tiles_m + tile) * outs;
  if (p.k_groups > 1) {
    auto red = port::lds_carve<float>(smem, 0, static_cast<std::size_t>(p.k_groups) * outs, "kgroup_reduce");
SKINNY_UNROLL
    for (int r = 0; r < kMicroRows; ++r)
SKINNY_UNROLL
      for (int c = 0; c < kMicroCols; ++c)
        red[static_cast<std::ptrdiff_t>(grp) * outs + (ni + r * rq) * TM + (mi + c * cq)] = acc[r][c];
    __syncthreads();
    for (int o = tid; o < outs; o += kBlockThreads) {
      float s = red[o];
      for (int g = 1; g < p.k_groups; ++g) s += red[static_cast<std::ptrdiff_t>(g) * outs + o];
      port::global_store(slab + o, s);
    }
  } else {
SKINNY_UNROLL
    for (int r = 0; r < kMicroRows; ++r)
SKINNY_UNROLL
      for (int c = 0; c < kMicroCols; ++c) port::global_store(slab + (ni + r * rq) * TM + (mi + c * cq), acc[r][c]);
  }

  finish_tile<F16>(p, smem, tile, tid);
}


#if !defined(DSV4_BACKEND_HIP)  // no AMD plan selects the MMA path; its emulated MMAs would spill to scratch there
// Tensor-core main loop (plan.mma, sm_90): warp w computes rows [16·(w % warps_m), +16) of the tile against
// NB 8-row blocks of a over its k-group's share of the shard, with m16n8k16 MMAs (kernels/port/mma.hpp). The MMA's
// A operand is b (M rows), its B operand is a (N rows), D is the transposed output tile. Within each 32-element K
// block lane (g, t) loads one 16-byte vector per row at k + 8t straight from global memory: the same permutation
// of K inside the block for both operands (words 0,1 feed the first MMA, words 2,3 the second), so each lane's
// loads are the fragments and nothing is staged in LDS. The k-group takes K blocks grp, grp + k_groups, ... and
// keeps U of them in flight. Sums are in a fixed order per plan: bit-identical run to run.
template <bool F16, int NB>
__global__ void __launch_bounds__(256, mma_blocks_per_sm(NB)) skinny_gemm_mma_kernel(KParams p) {
  constexpr int U = mma_step(NB);  // 32-element K blocks per pipeline step (2·U 16-byte b loads per lane)
  constexpr port::MmaElem E = F16 ? port::MmaElem::f16 : port::MmaElem::bf16;
  DSV4_LDS_DYNAMIC(std::uint16_t, smem);
  const int tid = static_cast<int>(threadIdx.x);
  const int tile = static_cast<int>(blockIdx.x) % p.tiles_m;
  const int ks = static_cast<int>(blockIdx.x) / p.tiles_m;
  const int TM = p.tile_m;
  const int warp = tid / 32, lane = tid % 32;
  const int wm = warp % p.warps_m, grp = warp / p.warps_m;
  const int kg = p.k_groups;
  const int g = lane / 4, t = lane % 4;
  const std::int64_t m0 = static_cast<std::int64_t>(tile) * TM;
  const std::int64_t r0 = m0 + wm * 16 + g, r1 = r0 + 8;
  const bool v0 = r0 < p.m, v1 = r1 < p.m;
  const std::uint16_t* b0 = p.b + (v0 ? r0 : 0) * static_cast<std::int64_t>(p.k);
  const std::uint16_t* b1 = p.b + (v1 ? r1 : 0) * static_cast<std::int64_t>(p.k);

  float acc[NB][4];
SKINNY_UNROLL
  for (int nb = 0; nb < NB; ++nb)
SKINNY_UNROLL
    for (int i = 0; i < 4; ++i) acc[nb][i] = 0.f;

  const std::int64_t k_begin = static_cast<std::int64_t>(ks) * p.chunks_per_shard * p.k_chunk;
  const std::int64_t shard_end = k_begin + static_cast<std::int64_t>(p.chunks_per_shard) * p.k_chunk;
  const std::int64_t k_end = shard_end < p.k ? shard_end : p.k;
  const int nblk = static_cast<int>((k_end - k_begin + 31) / 32);  // 32-element K blocks of the shard
  const uint4 zero = make_uint4(0, 0, 0, 0);
  // Software pipeline: the b vectors of the next step are in flight while this step's MMAs run; every load of a
  // step is issued before its first MMA (predicated, no branch between them), so a step waits for one latency.
  uint4 bc0[U], bc1[U];
  auto load_b = [&](int jb, uint4 (&d0)[U], uint4 (&d1)[U]) {
SKINNY_UNROLL
    for (int u = 0; u < U; ++u) {
      const int j = jb + kg * u;
      const std::int64_t kk = k_begin + 32 * static_cast<std::int64_t>(j) + 8 * t;
      const bool ok = j < nblk && kk < k_end;
      d0[u] = (ok && v0) ? port::global_load(reinterpret_cast<const uint4*>(b0 + kk)) : zero;
      d1[u] = (ok && v1) ? port::global_load(reinterpret_cast<const uint4*>(b1 + kk)) : zero;
    }
  };
  load_b(grp, bc0, bc1);
  for (int j0 = grp; j0 < nblk; j0 += kg * U) {
    uint4 av[U][NB];
SKINNY_UNROLL
    for (int u = 0; u < U; ++u) {
      const int j = j0 + kg * u;
      const std::int64_t kk = k_begin + 32 * static_cast<std::int64_t>(j) + 8 * t;
      const bool ok = j < nblk && kk < k_end;
SKINNY_UNROLL
      for (int nb = 0; nb < NB; ++nb) {
        const int n = nb * 8 + g;
        av[u][nb] = (ok && n < p.n)
                        ? port::global_load(reinterpret_cast<const uint4*>(p.a + static_cast<std::int64_t>(n) * p.lda + kk))
                        : zero;
      }
    }
    uint4 bn0[U], bn1[U];
    load_b(j0 + kg * U, bn0, bn1);  // next step (predicated off past the shard)
SKINNY_UNROLL
    for (int u = 0; u < U; ++u) {
      if (j0 + kg * u >= nblk) break;  // uniform over the warp
      const std::uint32_t fa0[4] = {bc0[u].x, bc1[u].x, bc0[u].y, bc1[u].y};
      const std::uint32_t fa1[4] = {bc0[u].z, bc1[u].z, bc0[u].w, bc1[u].w};
SKINNY_UNROLL
      for (int nb = 0; nb < NB; ++nb) {
        if (nb * 8 >= p.n) break;  // uniform: 8-row blocks of a past N compute nothing
        const std::uint32_t fb0[2] = {av[u][nb].x, av[u][nb].y};
        const std::uint32_t fb1[2] = {av[u][nb].z, av[u][nb].w};
        port::mma_m16n8k16<E>(acc[nb], fa0, fb0);
        port::mma_m16n8k16<E>(acc[nb], fa1, fb1);
      }
    }
SKINNY_UNROLL
    for (int u = 0; u < U; ++u) {
      bc0[u] = bn0[u];
      bc1[u] = bn1[u];
    }
  }

  // ---- 2. k-group reduction (ascending group order), publish the shard's partial tile ----
  const int outs = p.n_p2 * TM;  // output o = n * TM + m_local; rows n >= 8·NB are zero
  float* slab = p.partials + (static_cast<std::int64_t>(ks) * p.tiles_m + tile) * outs;
  auto red = port::lds_carve<float>(smem, 0, static_cast<std::size_t>(kg) * outs, "kgroup_reduce");
  const int ml = wm * 16 + g;
SKINNY_UNROLL
  for (int nb = 0; nb < NB; ++nb) {
    const std::ptrdiff_t base = static_cast<std::ptrdiff_t>(grp) * outs + (nb * 8 + 2 * t) * TM + ml;
    red[base] = acc[nb][0];
    red[base + TM] = acc[nb][1];
    red[base + 8] = acc[nb][2];
    red[base + TM + 8] = acc[nb][3];
  }
  __syncthreads();
  for (int o = tid; o < outs; o += kBlockThreads) {
    float s = 0.f;
    if (o / TM < 8 * NB) {
      s = red[o];
      for (int q = 1; q < kg; ++q) s += red[static_cast<std::ptrdiff_t>(q) * outs + o];
    }
    port::global_store(slab + o, s);
  }
  finish_tile<F16>(p, smem, tile, tid);
}

template <bool F16>
auto pick_mma_kernel(int n_blocks) {
  switch (n_blocks) {
    case 1: return &skinny_gemm_mma_kernel<F16, 1>;
    case 2: return &skinny_gemm_mma_kernel<F16, 2>;
    case 4: return &skinny_gemm_mma_kernel<F16, 4>;
    case 8: return &skinny_gemm_mma_kernel<F16, 8>;
    default: return &skinny_gemm_mma_kernel<F16, 16>;
  }
}

#endif  // !DSV4_BACKEND_HIP

}  // namespace

void launch_skinny_kernel(const SkinnyPlan& plan, const SkinnyBuffers& io, void* workspace,
                          std::size_t declared_workspace_bytes, port::Stream& stream) {
  const SkinnyShape& s = plan.shape;
  KParams p{};
  p.a = static_cast<const std::uint16_t*>(io.a);
  p.b = static_cast<const std::uint16_t*>(io.b);
  p.bias = static_cast<const std::uint16_t*>(io.bias);
  p.out = static_cast<std::uint16_t*>(io.out);
  const SkinnyKernelArgs ka = kernel_args(plan);
  p.counters = reinterpret_cast<int*>(static_cast<unsigned char*>(workspace) + ka.counter_offset);
  p.partials = reinterpret_cast<float*>(static_cast<unsigned char*>(workspace) + ka.partial_offset);
  p.n = static_cast<int>(s.n);
  p.m = static_cast<int>(s.m);
  p.k = static_cast<int>(s.k);
  p.lda = static_cast<int>(s.row_stride_a());
  p.bias_kind = s.bias == BiasShape::none ? 0 : (s.bias == BiasShape::nm ? 2 : 1);
  p.n_p2 = ka.n_p2;
  p.tile_m = ka.tile_m;
  p.k_groups = ka.k_groups;
  p.k_chunk = ka.k_chunk;
  p.chunks_per_shard = ka.chunks_per_shard;
  p.k_rnd = static_cast<int>(ka.k_rnd);
  p.tiles_m = static_cast<int>(ka.tiles_m);
  p.rows_per_n_tile = ka.rows_per_n_tile;
  p.batch_shards = ka.readback_batch_shards;
  p.warps_m = ka.mma_warps_m;
  p.lds_floats = static_cast<int>(ka.lds_bytes / 4);

  const std::size_t elem = 2;
  const std::size_t a_bytes = (static_cast<std::size_t>(s.n - 1) * s.row_stride_a() + s.k) * elem;
  const std::size_t bias_elems =
      s.bias == BiasShape::none ? 0 : (s.bias == BiasShape::nm ? static_cast<std::size_t>(s.n * s.m) : s.m);
  std::vector<port::BufferRange> ranges = {
      port::reads(io.a, a_bytes, "a"), port::reads(io.b, static_cast<std::size_t>(s.m * s.k) * elem, "b"),
      port::writes(io.out, static_cast<std::size_t>(s.n * s.m) * elem, "out"),
      port::reads_writes(workspace, declared_workspace_bytes, "workspace")};
  if (bias_elems) ranges.push_back(port::reads(io.bias, bias_elems * elem, "bias"));
  const bool f16 = s.dtype == ElemType::f16;
  auto* kernel = f16 ? &skinny_gemm_kernel<true> : &skinny_gemm_kernel<false>;
#if defined(DSV4_BACKEND_HIP)
  if (ka.mma)
    throw port::Error("skinny_gemm: the MMA main loop (sm_90 plans) is not built for the hip backend [" +
                      plan.describe() + "]");
#else
  if (ka.mma) kernel = f16 ? pick_mma_kernel<true>(ka.mma_n_blocks) : pick_mma_kernel<false>(ka.mma_n_blocks);
#endif
  port::LaunchConfig cfg{port::Dim3(static_cast<unsigned>(ka.grid)), port::Dim3(static_cast<unsigned>(ka.block)),
                         ka.lds_bytes, &stream, f16 ? "skinny_gemm<fp16>" : "skinny_gemm<bf16>", std::move(ranges)};
  try {
    port::launch(kernel, cfg, p);
  } catch (const port::Error& e) {
    throw port::Error(std::string(e.what()) + " [" + plan.describe() + "]");
  }
}

}  // namespace dsv4::kernels::skinny
