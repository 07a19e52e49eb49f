// Device code of the lightning-indexer kernels (ops.md §4; plans in indexer_plan.hpp). One block per (output row,
// tile of kKeysPerBlock columns), one thread per column:
//   1. the block decodes its query row q[H, D] (fp8 codes, 16 per 16-byte load) into fp32 LDS and its H weights
//      into LDS, then barriers (blocks whose tile holds no valid key skip this: they only write −inf if asked);
//   2. each thread holding a valid key decodes the key row (D codes) into registers and computes, in fp32,
//        logit = sf · Σ_h relu(Σ_d q[h,d]·k[d]) · w[h]
//      (fp8 products are exact in fp32; relu(NaN) = 0 exactly as the reference's `v > 0 ? v : 0`; sf is applied
//      after the head sum, equal to the reference's per-dot scale because sf >= 0).
// Non-paged: column c holds key j = c (full width) or j = ks + c (compressed); valid iff ks <= j < ke. Invalid
// columns get −inf when clean_logits, else are not written. Paged: column k of row (b, t) is valid iff
// k < context_lens[b, t]; its key is slot k % block_kv of cache block block_table[b, k / block_kv]; nothing else
// of the cache or the block table is read, invalid columns are never written.
// Bug-zoo variants: ke_off_by_one (keys j < ke − 1) and mask_broadcast_heads (known-bugs #8: head h is kept only
// where k < context_lens[b, h mod next_n]).
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/port/hip_port.hpp"
#include "kernels/common/plan_errors.hpp"
#include "kernels/indexer_logits/indexer_fp8.hpp"
#include "kernels/indexer_logits/indexer_launch_detail.hpp"

namespace dsv4::kernels::indexer {
namespace {

struct IParams {
  const std::uint8_t* q;
  const std::uint8_t* kv;
  const float* kv_sf;
  const float* weights;
  const std::int32_t* ks;
  const std::int32_t* ke;
  float* out;
  long long s_kv, width, row_stride;
  int h, fnuz, clean, compressed, off_by_one;
};

struct PParams {
  const std::uint8_t* q;
  const std::uint8_t* cache;
  const float* weights;
  const std::int32_t* ctx;
  const std::int32_t* bt;
  float* out;
  long long width, row_stride, next_n, block_kv, num_blocks, max_blocks, block_bytes;
  int h, fnuz, broadcast_bug;
};

__device__ __forceinline__ float neg_inf() { return fp8::bits_f32(0xff800000u); }
__device__ __forceinline__ float qnan() { return fp8::bits_f32(0x7fc00000u); }

__device__ __forceinline__ void decode16(const uint4& v, bool fnuz, float* f) {
  fp8::decode_e4m3_x4(v.x, fnuz, f);
  fp8::decode_e4m3_x4(v.y, fnuz, f + 4);
  fp8::decode_e4m3_x4(v.z, fnuz, f + 8);
  fp8::decode_e4m3_x4(v.w, fnuz, f + 12);
}

// Step 1: query row `row` (H·D codes at q + row·H·D, 16-byte aligned because D % 16 == 0) into qs as fp32,
// weights[row, 0..H) into ws; every thread of the block takes part; ends with a barrier.
__device__ __forceinline__ void stage_query(const std::uint8_t* q, const float* weights, long long row, int H, int D,
                                            bool fnuz, port::lds_ptr<float> qs, port::lds_ptr<float> ws) {
  const uint4* src = reinterpret_cast<const uint4*>(q + row * H * D);
  const int packs = H * D / 16;
  for (int i = static_cast<int>(threadIdx.x); i < packs; i += static_cast<int>(blockDim.x)) {
    float f[16];
    decode16(port::global_load(src + i), fnuz, f);
    for (int c = 0; c < 4; ++c)
      port::lds_store_as<float4>(qs, 16 * i + 4 * c, make_float4(f[4 * c], f[4 * c + 1], f[4 * c + 2], f[4 * c + 3]));
  }
  for (int h = static_cast<int>(threadIdx.x); h < H; h += static_cast<int>(blockDim.x))
    ws[h] = port::global_load(weights + row * H + h);
  __syncthreads();
}

template <int D>
__device__ __forceinline__ void load_key(const std::uint8_t* row, bool fnuz, float* k) {
  const uint4* src = reinterpret_cast<const uint4*>(row);
  for (int i = 0; i < D / 16; ++i) decode16(port::global_load(src + i), fnuz, k + 16 * i);
}

// Heads kept by the mask_broadcast_heads variant: h is dropped where key >= ctx_row[h % next_n]. Null = keep all.
struct HeadMask {
  const std::int32_t* ctx_row = nullptr;
  long long next_n = 1, key = 0;
};

// Σ_h relu(q_h·k)·w_h in fp32 (without the key scale).
template <int D>
__device__ __forceinline__ float head_sum(port::lds_ptr<float> qs, port::lds_ptr<float> ws, int H, const float* k,
                                          const HeadMask& m) {
  float acc = 0.f;
  for (int h = 0; h < H; ++h) {
    if (m.ctx_row && m.key >= port::global_load(m.ctx_row + h % m.next_n)) continue;
    float dot = 0.f;
    for (int d = 0; d < D; d += 4) {
      const float4 qv = port::lds_load_as<float4>(qs, h * D + d);
      dot = fmaf(qv.x, k[d], dot);
      dot = fmaf(qv.y, k[d + 1], dot);
      dot = fmaf(qv.z, k[d + 2], dot);
      dot = fmaf(qv.w, k[d + 3], dot);
    }
    const float r = dot > 0.f ? dot : 0.f;
    acc = fmaf(r, ws[h], acc);
  }
  return acc;
}

template <int D>
__global__ void __launch_bounds__(kKeysPerBlock) indexer_logits_kernel(IParams p) {
  DSV4_LDS_DYNAMIC(float, smem);
  const long long row = blockIdx.x;
  const long long col0 = static_cast<long long>(blockIdx.y) * kKeysPerBlock;
  const long long col = col0 + threadIdx.x;
  long long ks = port::global_load(p.ks + row), ke = port::global_load(p.ke + row);
  ks = ks < 0 ? 0 : ks;
  ke = ke > p.s_kv ? p.s_kv : ke;
  if (p.off_by_one) ke -= 1;
  if (ke < ks) ke = ks;
  // Valid columns [lo, hi) of this row.
  const long long lo = p.compressed ? 0 : ks;
  const long long hi = p.compressed ? ke - ks : ke;
  const long long tile_end = col0 + kKeysPerBlock < p.width ? col0 + kKeysPerBlock : p.width;
  float* out = p.out + row * p.row_stride;
  if ((lo > col0 ? lo : col0) >= (hi < tile_end ? hi : tile_end)) {  // no valid key in the tile: uniform exit
    if (p.clean && col < p.width) port::global_store(out + col, neg_inf());
    return;
  }
  auto qs = port::lds_carve<float>(smem, 0, static_cast<std::size_t>(p.h) * D, "q");
  auto ws = port::lds_carve<float>(smem, static_cast<std::size_t>(p.h) * D * 4, static_cast<std::size_t>(p.h), "weights");
  stage_query(p.q, p.weights, row, p.h, D, p.fnuz != 0, qs, ws);
  if (col >= p.width) return;
  if (col < lo || col >= hi) {
    if (p.clean) port::global_store(out + col, neg_inf());
    return;
  }
  const long long j = p.compressed ? ks + col : col;
  float k[D];
  load_key<D>(p.kv + j * D, p.fnuz != 0, k);
  const float sf = port::global_load(p.kv_sf + j);
  port::global_store(out + col, head_sum<D>(qs, ws, p.h, k, HeadMask{}) * sf);
}

template <int D>
__global__ void __launch_bounds__(kKeysPerBlock) indexer_logits_paged_kernel(PParams p) {
  DSV4_LDS_DYNAMIC(float, smem);
  const long long r = blockIdx.x;
  const long long b = r / p.next_n;
  const long long col0 = static_cast<long long>(blockIdx.y) * kKeysPerBlock;
  long long len = port::global_load(p.ctx + r);  // context_lens[b, t] at b·next_n + t = r
  const long long cap = p.max_blocks * p.block_kv < p.width ? p.max_blocks * p.block_kv : p.width;
  len = len < 0 ? 0 : (len > cap ? cap : len);
  if (col0 >= len) return;  // uniform: nothing of this tile is valid (and nothing is written)
  auto qs = port::lds_carve<float>(smem, 0, static_cast<std::size_t>(p.h) * D, "q");
  auto ws = port::lds_carve<float>(smem, static_cast<std::size_t>(p.h) * D * 4, static_cast<std::size_t>(p.h), "weights");
  stage_query(p.q, p.weights, r, p.h, D, p.fnuz != 0, qs, ws);
  const long long k = col0 + threadIdx.x;
  if (k >= len) return;
  float* out = p.out + r * p.row_stride;
  const long long blk = port::global_load(p.bt + b * p.max_blocks + k / p.block_kv);
  if (blk < 0 || blk >= p.num_blocks) {  // a block id outside the cache: NaN, never a wild read
    port::global_store(out + k, qnan());
    return;
  }
  const std::uint8_t* base = p.cache + blk * p.block_bytes;
  const long long slot = k % p.block_kv;
  float key[D];
  load_key<D>(base + slot * D, p.fnuz != 0, key);
  const float sf = port::global_load(reinterpret_cast<const float*>(base + p.block_kv * D) + slot);
  HeadMask m;
  if (p.broadcast_bug) m = HeadMask{p.ctx + b * p.next_n, p.next_n, k};
  port::global_store(out + k, head_sum<D>(qs, ws, p.h, key, m) * sf);
}

template <class Params>
void do_launch(void (*kernel)(Params), const CommonPlan& plan, const char* name, std::vector<port::BufferRange> ranges,
               port::Stream& stream, const Params& params, const std::string& text) {
  port::LaunchConfig cfg{port::Dim3(plan.grid[0], plan.grid[1], plan.grid[2]),
                         port::Dim3(static_cast<unsigned>(plan.block)), plan.lds_bytes, &stream, name, std::move(ranges)};
  with_plan_in_errors(text, [&] { port::launch(kernel, cfg, params); });
}

}  // namespace

void launch_indexer_kernel(const IndexerPlan& plan, const IndexerBuffers& io, port::Stream& stream) {
  const IndexerShape& s = plan.shape;
  IParams p{};
  p.q = io.q;
  p.kv = io.kv;
  p.kv_sf = io.kv_sf;
  p.weights = io.weights;
  p.ks = io.ks;
  p.ke = io.ke;
  p.out = io.logits;
  p.s_kv = s.s_kv;
  p.width = plan.width;
  p.row_stride = plan.row_stride;
  p.h = static_cast<int>(plan.h);
  p.fnuz = plan.fp8 == Fp8::e4m3fnuz;
  p.clean = s.clean_logits;
  p.compressed = s.max_seqlen_k > 0;
  p.off_by_one = plan.variant == IndexerVariant::ke_off_by_one;
  const auto S = static_cast<std::size_t>(s.s), H = static_cast<std::size_t>(plan.h), D = static_cast<std::size_t>(plan.d);
  std::vector<port::BufferRange> ranges = {
      port::reads(io.q, S * H * D, "q"), port::reads(io.kv, static_cast<std::size_t>(s.s_kv) * D, "kv"),
      port::reads(io.kv_sf, static_cast<std::size_t>(s.s_kv) * 4, "kv_sf"), port::reads(io.weights, S * H * 4, "weights"),
      port::reads(io.ks, S * 4, "cu_seq_len_k_start"), port::reads(io.ke, S * 4, "cu_seq_len_k_end"),
      port::writes(io.logits, plan.out_bytes, "logits")};
  void (*kernel)(IParams) = plan.d == 32   ? &indexer_logits_kernel<32>
                            : plan.d == 64 ? &indexer_logits_kernel<64>
                                           : &indexer_logits_kernel<128>;
  do_launch(kernel, plan, p.off_by_one ? "indexer_logits<ke_off_by_one>" : "indexer_logits", std::move(ranges), stream,
            p, plan.describe());
}

void launch_paged_kernel(const PagedPlan& plan, const PagedBuffers& io, port::Stream& stream) {
  const PagedShape& s = plan.shape;
  PParams p{};
  p.q = io.q;
  p.cache = io.kv_cache;
  p.weights = io.weights;
  p.ctx = io.context_lens;
  p.bt = io.block_table;
  p.out = io.logits;
  p.width = plan.width;
  p.row_stride = plan.row_stride;
  p.next_n = s.next_n;
  p.block_kv = s.block_kv;
  p.num_blocks = s.num_blocks;
  p.max_blocks = s.max_blocks;
  p.block_bytes = static_cast<long long>(plan.block_bytes);
  p.h = static_cast<int>(plan.h);
  p.fnuz = plan.fp8 == Fp8::e4m3fnuz;
  p.broadcast_bug = plan.variant == IndexerVariant::mask_broadcast_heads;
  const auto R = static_cast<std::size_t>(plan.rows), H = static_cast<std::size_t>(plan.h), D = static_cast<std::size_t>(plan.d);
  std::vector<port::BufferRange> ranges = {
      port::reads(io.q, R * H * D, "q"), port::reads(io.kv_cache, plan.cache_bytes, "kv_cache"),
      port::reads(io.weights, R * H * 4, "weights"), port::reads(io.context_lens, R * 4, "context_lens"),
      port::reads(io.block_table, static_cast<std::size_t>(s.b * s.max_blocks) * 4, "block_table"),
      port::writes(io.logits, plan.out_bytes, "logits")};
  void (*kernel)(PParams) = plan.d == 32   ? &indexer_logits_paged_kernel<32>
                            : plan.d == 64 ? &indexer_logits_paged_kernel<64>
                                           : &indexer_logits_paged_kernel<128>;
  do_launch(kernel, plan, p.broadcast_bug ? "indexer_logits_paged<mask_broadcast_heads>" : "indexer_logits_paged",
            std::move(ranges), stream, p, plan.describe());
}

}  // namespace dsv4::kernels::indexer
