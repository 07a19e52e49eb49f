// Sparse MLA decode kernels over FP8 KV caches (ops.md §3; design and plan in smla_plan.hpp).
//   split kernel, one workgroup per (split, token, head group), 256 threads:
//     q rows of the group -> LDS (bf16 codes). Per key tile of KT positions of the split's range:
//       1. tile indices: position -> (cache, slot); invalid (index -1, position >= *_topk_length, or a slot outside
//          the cache) -> masked, and its row is never read: the LDS row is zero-filled instead;
//       2. gather + dequantize: 8 elements per thread step (8 fp8 codes with their tile's scale, or 8 bf16 RoPE
//          values) -> bf16(fp8)·bf16(scale) rounded to bf16, into the LDS key tile;
//       3. logits: one (head, key) pair per thread step, fp32 dot over d_qk in fixed order, × scale; masked -> -inf;
//       4. online softmax, one thread per head: running max m (NaN-propagating), alpha = e^(m_old - m_new),
//          p = e^(s - m_new) with masked p = 0 exactly, running sum l;
//       5. PV: each thread owns DPT = 2·HG consecutive output columns of one head, acc = acc·alpha + Σ p·V.
//     The split's partial: out = acc / l and lse = m + ln l, or only lse = -inf for an empty split (l == 0).
//   combine kernel, one block of 128 threads per (token, head), 4 columns per thread: merges the splits in fixed order
//     by LSE, skipping -inf splits without reading their partials; all splits -inf (lonely) -> out 0, lse +inf; any
//     NaN lse -> NaN; sink folds into out as 1 / (1 + e^(sink - lse)); out rounded once to bf16, lse sink-free.
// Variants (bug zoo): gather_invalid_rows gathers slot 0 for index -1 (masked logit, 0·NaN in PV, known-bugs #10);
// combine_no_inf_guard merges every split unguarded (NaN for lonely queries and 0·garbage partials);
// e8m0_shift23 decodes scale bytes as bits << 23 (known-bugs #13).
#include <cmath>
#include <vector>

#include "kernels/port/hip_port.hpp"
#include "kernels/common/unroll.hpp"
#include "kernels/common/plan_errors.hpp"
#include "kernels/sparse_mla_decode/smla_dequant.hpp"
#include "kernels/sparse_mla_decode/smla_launch_detail.hpp"

namespace dsv4::kernels::smla {
namespace {

struct SParams {
  const std::uint16_t* q;
  const std::uint8_t* cache[2];
  const std::int32_t* idx[2];
  const std::int32_t* len[2];
  long long block_stride[2];
  long long num_slots[2];
  int block_size[2];
  int topk[2];
  float* ws_out;
  float* ws_lse;
  long long chunk, total;
  int s_q, h_q, d_qk, hg, kt, tph, num_splits;
  int off_kv, off_p, off_stats, off_idx;  // LDS byte offsets (q at 0)
  int v32, fnuz, variant;
  float scale;
};

struct CParams {
  const float* ws_out;
  const float* ws_lse;
  const float* sink;
  std::uint16_t* out;
  float* lse;
  int h_q, num_splits, buggy;
};

__device__ __forceinline__ float neg_inf() { return fp8::bits_f32(0xff800000u); }
__device__ __forceinline__ float qnan() { return fp8::bits_f32(0x7fc00000u); }
__device__ __forceinline__ float lo_bf16(unsigned w) { return fp8::bits_f32(w << 16); }
__device__ __forceinline__ float hi_bf16(unsigned w) { return fp8::bits_f32(w & 0xffff0000u); }

// a + Σ_i x_i·y_i over the 8 bf16 pairs of two 16-byte packs, in fixed order.
__device__ __forceinline__ float dot8(const uint4& x, const uint4& y, float a) {
  const unsigned xs[4] = {x.x, x.y, x.z, x.w}, ys[4] = {y.x, y.y, y.z, y.w};
  DSV4_UNROLL
  for (int i = 0; i < 4; ++i) {
    a += lo_bf16(xs[i]) * lo_bf16(ys[i]);
    a += hi_bf16(xs[i]) * hi_bf16(ys[i]);
  }
  return a;
}

// max that propagates NaN (the reference's row with a NaN logit is NaN).
__device__ __forceinline__ float nan_max(float a, float b) { return (a != a || b != b) ? qnan() : fmaxf(a, b); }

// 8 fp8 codes (little-endian in two words) -> 8 bf16 codes of bf16(fp8)·scale_bf16.
__device__ __forceinline__ uint4 dequant8(const uint2& codes, bool fnuz, float scale_bf16) {
  const unsigned ws[2] = {codes.x, codes.y};
  unsigned o[4];
  DSV4_UNROLL
  for (int i = 0; i < 4; ++i) {
    const unsigned w = ws[i / 2] >> (16 * (i % 2));
    o[i] = dequant_bf16(w & 0xffu, fnuz, scale_bf16) | (dequant_bf16((w >> 8) & 0xffu, fnuz, scale_bf16) << 16);
  }
  return make_uint4(o[0], o[1], o[2], o[3]);
}

template <int DPT>
__global__ void __launch_bounds__(256) smla_split_kernel(SParams p) {
  DSV4_LDS_DYNAMIC(std::uint8_t, lds);
  const auto sq = port::lds_carve<std::uint16_t>(lds, 0, static_cast<std::size_t>(p.hg) * p.d_qk, "q");
  const auto skv = port::lds_carve<std::uint16_t>(lds, p.off_kv, static_cast<std::size_t>(p.kt) * p.d_qk, "keys");
  const auto sp = port::lds_carve<float>(lds, p.off_p, static_cast<std::size_t>(p.hg) * p.kt, "p");
  const auto sst = port::lds_carve<float>(lds, p.off_stats, static_cast<std::size_t>(p.hg) * 3, "stats");
  const auto sidx = port::lds_carve<int>(lds, p.off_idx, static_cast<std::size_t>(p.kt) * 2, "tile_idx");
  const int tid = static_cast<int>(threadIdx.x);
  const int split = static_cast<int>(blockIdx.x);
  const long long tok = blockIdx.y;
  const long long bi = tok / p.s_q;
  const int h0 = static_cast<int>(blockIdx.z) * p.hg;
  const int qvec = p.d_qk / 8;
  const float kNegInf = neg_inf();

  for (int v = tid; v < p.hg * qvec; v += kSplitThreads) {
    const int hh = v / qvec, c = v % qvec;
    uint4 val = make_uint4(0u, 0u, 0u, 0u);
    if (h0 + hh < p.h_q)
      val = port::global_load(reinterpret_cast<const uint4*>(p.q + (tok * p.h_q + h0 + hh) * p.d_qk) + c);
    port::lds_store_as<uint4>(sq, static_cast<std::ptrdiff_t>(hh) * p.d_qk + c * 8, val);
  }
  if (tid < p.hg) {
    sst[3 * tid] = kNegInf;
    sst[3 * tid + 1] = 0.f;
    sst[3 * tid + 2] = 1.f;
  }
  long long len[2];
  for (int w = 0; w < 2; ++w) {
    len[w] = p.len[w] ? static_cast<long long>(port::global_load(p.len[w] + bi)) : p.topk[w];
    len[w] = len[w] < 0 ? 0 : (len[w] > p.topk[w] ? p.topk[w] : len[w]);
  }
  const long long pos_begin = split * p.chunk;
  const long long pos_end = pos_begin + p.chunk < p.total ? pos_begin + p.chunk : p.total;
  const int my_h = tid / p.tph;
  const int d0 = (tid % p.tph) * DPT;
  const bool my_active = h0 + my_h < p.h_q;
  float acc[DPT];
  DSV4_UNROLL
  for (int i = 0; i < DPT; ++i) acc[i] = 0.f;
  const int nope_chunks = p.v32 ? 64 : 56;
  const int cpr = p.d_qk / 8;
  __syncthreads();

  for (long long t0 = pos_begin; t0 < pos_end; t0 += p.kt) {
    // 1. Tile indices: src 0/1 = valid row of the main/extra cache, -1 = masked (never read), 2/3 = the
    // gather_invalid_rows bug (masked logit, row gathered from slot 0).
    if (tid < p.kt) {
      const long long pos = t0 + tid;
      int src = -1, slot = 0;
      if (pos < pos_end) {
        const int w = pos < p.topk[0] ? 0 : 1;
        const long long j = w ? pos - p.topk[0] : pos;
        if (j < len[w]) {
          const int v = port::global_load(p.idx[w] + tok * p.topk[w] + j);
          if (v >= 0 && v < p.num_slots[w]) {
            src = w;
            slot = v;
          } else if (v == -1 && p.variant == static_cast<int>(Variant::gather_invalid_rows) && p.num_slots[w] > 0) {
            src = w + 2;
          }
        }
      }
      sidx[2 * tid] = slot;
      sidx[2 * tid + 1] = src;
    }
    __syncthreads();
    // 2. Gather and dequantize into the key tile (masked rows zero-filled, their cache bytes never touched).
    for (int v = tid; v < p.kt * cpr; v += kSplitThreads) {
      const int r = v / cpr, c = v % cpr;
      const int src = sidx[2 * r + 1];
      uint4 val = make_uint4(0u, 0u, 0u, 0u);
      if (src >= 0) {
        const int w = src & 1;
        const long long slot = sidx[2 * r];
        const long long blk = slot / p.block_size[w], t = slot % p.block_size[w];
        const std::uint8_t* block = p.cache[w] + blk * p.block_stride[w];
        const std::uint8_t* token = block + t * (p.v32 ? 656 : 576);
        if (c < nope_chunks) {
          const uint2 codes = port::global_load(reinterpret_cast<const uint2*>(token) + c);
          float sc;
          if (p.v32) {
            sc = port::global_load(reinterpret_cast<const float*>(token + 512) + c / 16);  // 128-wide tiles
          } else {
            const std::uint8_t byte = port::global_load(block + p.block_size[w] * 576LL + t * 8 + c / 8);  // 64-wide
            sc = decode_e8m0(byte, p.variant == static_cast<int>(Variant::e8m0_shift23));
          }
          val = dequant8(codes, p.fnuz != 0, round_bf16(sc));
        } else {
          val = port::global_load(reinterpret_cast<const uint4*>(token + (p.v32 ? 528 : 448)) + (c - nope_chunks));
        }
      }
      port::lds_store_as<uint4>(skv, static_cast<std::ptrdiff_t>(r) * p.d_qk + c * 8, val);
    }
    __syncthreads();
    // 3. Logits.
    for (int pr = tid; pr < p.hg * p.kt; pr += kSplitThreads) {
      const int hh = pr / p.kt, j = pr % p.kt;
      const int src = sidx[2 * j + 1];
      float s = kNegInf;
      if ((src == 0 || src == 1) && h0 + hh < p.h_q) {
        float a = 0.f;
        for (int c = 0; c < cpr; ++c)
          a = dot8(port::lds_load_as<uint4>(sq, static_cast<std::ptrdiff_t>(hh) * p.d_qk + c * 8),
                   port::lds_load_as<uint4>(skv, static_cast<std::ptrdiff_t>(j) * p.d_qk + c * 8), a);
        s = a * p.scale;
      }
      sp[pr] = s;
    }
    __syncthreads();
    // 4. Online softmax, one thread per head.
    if (tid < p.hg) {
      const float m_old = sst[3 * tid], l_old = sst[3 * tid + 1];
      float mx = m_old;
      for (int j = 0; j < p.kt; ++j) mx = nan_max(mx, sp[tid * p.kt + j]);
      const float alpha = mx == kNegInf ? 1.f : expf(m_old - mx);
      float sum = 0.f;
      for (int j = 0; j < p.kt; ++j) {
        const float s = sp[tid * p.kt + j];
        const float pj = s == kNegInf ? 0.f : expf(s - mx);
        sp[tid * p.kt + j] = pj;
        sum += pj;
      }
      sst[3 * tid] = mx;
      sst[3 * tid + 1] = l_old * alpha + sum;
      sst[3 * tid + 2] = alpha;
    }
    __syncthreads();
    // 5. PV.
    if (my_active) {
      const float alpha = sst[3 * my_h + 2];
      DSV4_UNROLL
      for (int i = 0; i < DPT; ++i) acc[i] *= alpha;
      for (int j = 0; j < p.kt; ++j) {
        const float pj = sp[my_h * p.kt + j];
        DSV4_UNROLL
        for (int c = 0; c < DPT / 8; ++c) {
          const uint4 v = port::lds_load_as<uint4>(skv, static_cast<std::ptrdiff_t>(j) * p.d_qk + d0 + c * 8);
          const unsigned ws[4] = {v.x, v.y, v.z, v.w};
          DSV4_UNROLL
          for (int i = 0; i < 4; ++i) {
            acc[c * 8 + 2 * i] += pj * lo_bf16(ws[i]);
            acc[c * 8 + 2 * i + 1] += pj * hi_bf16(ws[i]);
          }
        }
      }
    }
    __syncthreads();
  }

  if (my_active) {
    const float m = sst[3 * my_h], l = sst[3 * my_h + 1];
    const long long part = (tok * p.num_splits + split) * p.h_q + h0 + my_h;
    if (l != 0.f) {  // an empty split (no valid position) writes only its -inf lse
      const float inv = 1.f / l;
      float4* dst = reinterpret_cast<float4*>(p.ws_out + part * kDv + d0);
      DSV4_UNROLL
      for (int c = 0; c < DPT / 4; ++c)
        port::global_store(dst + c, make_float4(acc[4 * c] * inv, acc[4 * c + 1] * inv, acc[4 * c + 2] * inv,
                                                acc[4 * c + 3] * inv));
    }
    if (d0 == 0) port::global_store(p.ws_lse + part, l == 0.f ? kNegInf : m + logf(l));
  }
}

__global__ void __launch_bounds__(128) smla_combine_kernel(CParams p) {
  const long long tok = blockIdx.x;
  const int h = static_cast<int>(blockIdx.y);
  const int d = static_cast<int>(threadIdx.x) * 4;
  const long long base = tok * p.num_splits * p.h_q + h;  // partial of split s at base + s·h_q
  const float kNegInf = neg_inf();
  float mx = kNegInf;
  bool nan = false;
  for (int s = 0; s < p.num_splits; ++s) {
    const float l = port::global_load(p.ws_lse + base + static_cast<long long>(s) * p.h_q);
    if (l != l) nan = true;
    else mx = fmaxf(mx, l);
  }
  float o[4] = {0.f, 0.f, 0.f, 0.f};
  float lse;
  if (!p.buggy && nan) {
    for (float& x : o) x = qnan();
    lse = qnan();
  } else if (!p.buggy && mx == kNegInf) {  // lonely query: every split empty
    lse = -kNegInf;
  } else {
    float sum = 0.f;
    for (int s = 0; s < p.num_splits; ++s) {
      const float l = port::global_load(p.ws_lse + base + static_cast<long long>(s) * p.h_q);
      if (p.buggy || l != kNegInf) sum += expf(l - mx);
    }
    lse = mx + logf(sum);
    for (int s = 0; s < p.num_splits; ++s) {
      const long long part = base + static_cast<long long>(s) * p.h_q;
      const float l = port::global_load(p.ws_lse + part);
      if (!p.buggy && l == kNegInf) continue;  // empty split: its partial was never written
      const float w = expf(l - lse);
      const float4 v = port::global_load(reinterpret_cast<const float4*>(p.ws_out + part * kDv + d));
      o[0] += w * v.x;
      o[1] += w * v.y;
      o[2] += w * v.z;
      o[3] += w * v.w;
    }
    if (p.sink) {
      const float f = 1.f / (1.f + expf(port::global_load(p.sink + h) - lse));
      for (float& x : o) x *= f;
    }
  }
  const long long row = tok * p.h_q + h;
  const unsigned w0 = common::f32_to_bf16(o[0]) | (static_cast<unsigned>(common::f32_to_bf16(o[1])) << 16);
  const unsigned w1 = common::f32_to_bf16(o[2]) | (static_cast<unsigned>(common::f32_to_bf16(o[3])) << 16);
  port::global_store(reinterpret_cast<uint2*>(p.out + row * kDv + d), make_uint2(w0, w1));
  if (threadIdx.x == 0) port::global_store(p.lse + row, lse);
}

}  // namespace

void launch_smla_kernels(const SmlaPlan& plan, const SmlaBuffers& io, void* workspace, port::Stream& stream) {
  const SmlaShape& s = plan.shape;
  const bool extra = s.extra_topk > 0;
  SParams p{};
  p.q = io.q;
  p.cache[0] = io.k_cache;
  p.cache[1] = extra ? io.extra_k_cache : nullptr;
  p.idx[0] = io.indices;
  p.idx[1] = extra ? io.extra_indices : nullptr;
  p.len[0] = s.has_topk_length ? io.topk_length : nullptr;
  p.len[1] = extra && s.has_extra_topk_length ? io.extra_topk_length : nullptr;
  p.block_stride[0] = plan.main_block_stride;
  p.block_stride[1] = plan.extra_block_stride;
  p.num_slots[0] = s.cache.num_blocks * s.cache.block_size;
  p.num_slots[1] = extra ? s.extra_cache.num_blocks * s.extra_cache.block_size : 0;
  p.block_size[0] = static_cast<int>(s.cache.block_size);
  p.block_size[1] = extra ? static_cast<int>(s.extra_cache.block_size) : 1;
  p.topk[0] = static_cast<int>(s.topk);
  p.topk[1] = static_cast<int>(s.extra_topk);
  p.ws_out = static_cast<float*>(workspace);
  p.ws_lse = reinterpret_cast<float*>(static_cast<char*>(workspace) + plan.lse_offset);
  p.chunk = plan.chunk;
  p.total = plan.total_positions;
  p.s_q = static_cast<int>(s.s_q);
  p.h_q = static_cast<int>(s.h_q);
  p.d_qk = plan.d_qk;
  p.hg = plan.heads_per_group;
  p.kt = plan.key_tile;
  p.tph = plan.threads_per_head;
  p.num_splits = plan.num_splits;
  p.off_kv = static_cast<int>(plan.lds_q);
  p.off_p = static_cast<int>(plan.lds_q + plan.lds_kv);
  p.off_stats = static_cast<int>(plan.lds_q + plan.lds_kv + plan.lds_p);
  p.off_idx = static_cast<int>(plan.lds_q + plan.lds_kv + plan.lds_p + plan.lds_stats);
  p.v32 = s.layout == Layout::v32;
  p.fnuz = s.fp8 == Fp8Kind::e4m3fnuz;
  p.variant = static_cast<int>(plan.options.variant);
  p.scale = plan.scale;

  const std::size_t tokens = static_cast<std::size_t>(s.tokens());
  std::vector<port::BufferRange> r1 = {port::reads(io.q, plan.q_bytes, "q"),
                                       port::writes(workspace, plan.workspace_bytes, "workspace")};
  if (s.topk > 0) {
    r1.push_back(port::reads(io.indices, tokens * s.topk * 4, "indices"));
    if (io.k_cache) r1.push_back(port::reads(io.k_cache, cache_bytes(plan, false), "k_cache"));
  }
  if (p.len[0]) r1.push_back(port::reads(p.len[0], s.b * 4, "topk_length"));
  if (extra) {
    r1.push_back(port::reads(io.extra_indices, tokens * s.extra_topk * 4, "extra_indices_in_kvcache"));
    if (io.extra_k_cache) r1.push_back(port::reads(io.extra_k_cache, cache_bytes(plan, true), "extra_k_cache"));
    if (p.len[1]) r1.push_back(port::reads(p.len[1], s.b * 4, "extra_topk_length"));
  }
  void (*split)(SParams) = plan.d_per_thread == 8    ? &smla_split_kernel<8>
                           : plan.d_per_thread == 32 ? &smla_split_kernel<32>
                                                     : &smla_split_kernel<64>;
  const port::LaunchConfig c1{port::Dim3(static_cast<unsigned>(plan.split_grid_x),
                                         static_cast<unsigned>(plan.split_grid_y),
                                         static_cast<unsigned>(plan.split_grid_z)),
                              port::Dim3(kSplitThreads), plan.lds_split_bytes, &stream,
                              plan.options.variant == Variant::fixed ? "sparse_mla_decode_split"
                                                                     : "sparse_mla_decode_split<variant>",
                              std::move(r1)};

  CParams cp{};
  cp.ws_out = p.ws_out;
  cp.ws_lse = p.ws_lse;
  cp.sink = s.has_sink ? io.attn_sink : nullptr;
  cp.out = io.out;
  cp.lse = io.lse;
  cp.h_q = p.h_q;
  cp.num_splits = plan.num_splits;
  cp.buggy = plan.options.variant == Variant::combine_no_inf_guard;
  std::vector<port::BufferRange> r2 = {port::reads(workspace, plan.workspace_bytes, "workspace"),
                                       port::writes(io.out, plan.out_bytes, "out"),
                                       port::writes(io.lse, plan.lse_bytes, "lse")};
  if (cp.sink) r2.push_back(port::reads(cp.sink, s.h_q * 4, "attn_sink"));
  const port::LaunchConfig c2{port::Dim3(static_cast<unsigned>(plan.combine_grid_x),
                                         static_cast<unsigned>(plan.combine_grid_y)),
                              port::Dim3(kCombineThreads), 0, &stream,
                              cp.buggy ? "sparse_mla_decode_combine<no_inf_guard>" : "sparse_mla_decode_combine",
                              std::move(r2)};
  with_plan_in_errors(plan.describe(), [&] {
    port::launch(split, c1, p);
    port::launch(&smla_combine_kernel, c2, cp);
  });
}

}  // namespace dsv4::kernels::smla
