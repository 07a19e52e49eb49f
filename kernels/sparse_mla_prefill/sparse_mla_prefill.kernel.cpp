// sparse_mla_prefill kernel (ops.md §2, current FlashMLA semantics): one workgroup of 256 threads per (query token,
// head group of plan.heads heads). Per token:
//   0. q rows of the group -> LDS (heads past h_q zero-filled); softmax stats m = -inf, l = 0.
//   1. for each tile of tile_k index slots j < topk_length (slots past it are never read):
//      a. slot validity: 0 <= idx < s_kv; invalid slots are marked -1 and their kv rows are zero-filled in LDS,
//         never dereferenced (no 0 * NaN from rows nobody selected, known-bugs #10);
//      b. valid rows gathered into LDS (16-byte vectors); S = sm_scale * q.k in fp32 (8 partial sums), -inf for
//         invalid slots and padded heads;
//      c. online softmax, one wave per head (wave reductions over warpSize lanes): m' = max(m, max S),
//         alpha = e^(m - m'), P = e^(S - m'), l = l*alpha + sum P; a head whose max is still -inf keeps P = 0;
//      d. each thread owns an 8-column slice of d_v for heads h, h + head_slots, ...: acc = acc*alpha + P·V (fp32).
//   2. epilogue: l == 0 (no valid slot): out 0, lse +inf, max_logits -inf. Else lse = ln l + m, max_logits = m,
//      out = acc / l * 1/(1 + e^(sink - lse)) (sink +inf gives 0, -inf nothing), rounded once to bf16 (RNE).
// Variants (bug zoo): clamp_invalid loads clamped rows for invalid slots (P = 0 still), drop_sink ignores the sink,
// log2_lse writes release-1408756 lse/max_logits (log2 units, lonely lse -inf).
#include "kernels/port/hip_port.hpp"
#include "kernels/common/unroll.hpp"
#include "kernels/common/plan_errors.hpp"

#include <cmath>
#include <cstring>

#include "kernels/common/bf16_fp16_convert.hpp"
#include "kernels/sparse_mla_prefill/sparse_prefill_launch_detail.hpp"

namespace dsv4::kernels::sparse_prefill {
namespace {

struct PParams {
  const std::uint16_t* q;
  const std::uint16_t* kv;
  const int* idx;
  const float* sink;
  const int* topk_len;
  std::uint16_t* out;
  float* max_logits;
  float* lse;
  long long q_ss, q_sh, kv_s;
  int h_q, d_qk, d_v, s_kv, topk;
  int heads, tile_k, pitch, col_groups, head_slots, heads_per_thread;
  unsigned off_q, off_kv, off_sc, off_ix, off_st;
  float sm_scale;
  int variant;  // 0 fixed, 1 clamp_invalid, 2 drop_sink, 3 log2_lse
};

__device__ __forceinline__ float f32_of_bits(unsigned u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
__device__ __forceinline__ float pos_inf() { return f32_of_bits(0x7f800000u); }
__device__ __forceinline__ float neg_inf() { return f32_of_bits(0xff800000u); }

__device__ __forceinline__ void unpack8(const uint4& v, float* f) {
  const unsigned w[4] = {v.x, v.y, v.z, v.w};
DSV4_UNROLL
  for (int i = 0; i < 4; ++i) {
    f[2 * i] = common::bf16_to_f32(w[i] & 0xffffu);
    f[2 * i + 1] = common::bf16_to_f32(w[i] >> 16);
  }
}

__device__ __forceinline__ uint4 pack8(const float* f) {
  unsigned w[4];
DSV4_UNROLL
  for (int i = 0; i < 4; ++i)
    w[i] = static_cast<unsigned>(common::f32_to_bf16(f[2 * i])) |
           (static_cast<unsigned>(common::f32_to_bf16(f[2 * i + 1])) << 16);
  return make_uint4(w[0], w[1], w[2], w[3]);
}

// Slot code in the LDS index array: >= 0 a valid kv row; -1 nothing to load; <= -2 (clamp_invalid only) an
// invalid slot whose clamped row -(code + 2) is loaded anyway.
__global__ void __launch_bounds__(256) sparse_mla_prefill_kernel(PParams p) {
  DSV4_LDS_DYNAMIC(std::uint16_t, smem);
  const int tid = static_cast<int>(threadIdx.x);
  const long long token = static_cast<long long>(blockIdx.x);
  const int h0 = static_cast<int>(blockIdx.y) * p.heads;
  const int H = p.heads, TK = p.tile_k, pitch = p.pitch;
  auto q_s = port::lds_carve<std::uint16_t>(smem, p.off_q, static_cast<std::size_t>(H) * pitch, "q_stage");
  auto kv_s = port::lds_carve<std::uint16_t>(smem, p.off_kv, static_cast<std::size_t>(TK) * pitch, "kv_tile");
  auto sc = port::lds_carve<float>(smem, p.off_sc, static_cast<std::size_t>(H) * TK, "scores");
  auto ix = port::lds_carve<int>(smem, p.off_ix, static_cast<std::size_t>(TK), "row_indices");
  auto st_m = port::lds_carve<float>(smem, p.off_st, static_cast<std::size_t>(H), "softmax_max");
  auto st_l = port::lds_carve<float>(smem, p.off_st + 4u * H, static_cast<std::size_t>(H), "softmax_sum");
  auto st_a = port::lds_carve<float>(smem, p.off_st + 8u * H, static_cast<std::size_t>(H), "softmax_rescale");

  // ---- 0. stage q, init stats ----
  const int vpr = p.d_qk / kVec;  // 16-byte vectors per row
  for (int v = tid; v < H * vpr; v += kBlockThreads) {
    const int h = v / vpr, c = v % vpr;
    uint4 val = make_uint4(0, 0, 0, 0);
    if (h0 + h < p.h_q)
      val = port::global_load(reinterpret_cast<const uint4*>(p.q + token * p.q_ss + (h0 + h) * p.q_sh) + c);
    port::lds_store_as<uint4>(q_s, static_cast<std::ptrdiff_t>(h) * pitch + c * kVec, val);
  }
  if (tid < H) {
    st_m[tid] = neg_inf();
    st_l[tid] = 0.f;
  }
  int len = p.topk;
  if (p.topk_len) {
    const int v = port::global_load(p.topk_len + token);
    len = v < 0 ? 0 : (v > p.topk ? p.topk : v);
  }
  __syncthreads();  // q stage and stats visible (also when len == 0 and no tile barrier follows)

  // P·V ownership: column slice cg (8 columns) of heads hg, hg + head_slots, ...
  const int cg = tid % p.col_groups, hg = tid / p.col_groups;
  const bool pv_thread = hg < p.head_slots;
  float acc[kMaxHeadsPerThread][kVec];
DSV4_UNROLL
  for (int i = 0; i < kMaxHeadsPerThread; ++i)
DSV4_UNROLL
    for (int e = 0; e < kVec; ++e) acc[i][e] = 0.f;

  const int wave = tid / warpSize, lane = tid % warpSize, n_waves = kBlockThreads / warpSize;
  const bool clamp = p.variant == 1;
  for (int j0 = 0; j0 < len; j0 += TK) {
    // ---- a. slot validity ----
    if (tid < TK) {
      const int j = j0 + tid;
      int code = -1;
      if (j < len) {
        const int r = port::global_load(p.idx + token * p.topk + j);
        if (r >= 0 && r < p.s_kv) code = r;
        else if (clamp && p.s_kv > 0) code = -2 - (r < 0 ? 0 : p.s_kv - 1);
      }
      ix[tid] = code;
    }
    __syncthreads();
    // ---- b. gather rows, scores ----
    for (int v = tid; v < TK * vpr; v += kBlockThreads) {
      const int row = v / vpr, c = v % vpr;
      const int code = ix[row];
      const int r = code >= 0 ? code : (code <= -2 ? -(code + 2) : -1);
      uint4 val = make_uint4(0, 0, 0, 0);
      if (r >= 0) val = port::global_load(reinterpret_cast<const uint4*>(p.kv + r * p.kv_s) + c);
      port::lds_store_as<uint4>(kv_s, static_cast<std::ptrdiff_t>(row) * pitch + c * kVec, val);
    }
    __syncthreads();
    for (int pr = tid; pr < H * TK; pr += kBlockThreads) {
      const int h = pr / TK, j = pr % TK;
      float s = neg_inf();
      if (ix[j] >= 0 && h0 + h < p.h_q) {
        float part[kVec];
DSV4_UNROLL
        for (int e = 0; e < kVec; ++e) part[e] = 0.f;
        for (int c = 0; c < vpr; ++c) {
          float qf[kVec], kf[kVec];
          unpack8(port::lds_load_as<uint4>(q_s, static_cast<std::ptrdiff_t>(h) * pitch + c * kVec), qf);
          unpack8(port::lds_load_as<uint4>(kv_s, static_cast<std::ptrdiff_t>(j) * pitch + c * kVec), kf);
DSV4_UNROLL
          for (int e = 0; e < kVec; ++e) part[e] = fmaf(qf[e], kf[e], part[e]);
        }
        const float dot = ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
        s = dot * p.sm_scale;
      }
      sc[pr] = s;
    }
    __syncthreads();
    // ---- c. online softmax: one wave per head ----
    for (int h = wave; h < H; h += n_waves) {
      float mt = neg_inf();
      for (int j = lane; j < TK; j += warpSize) {
        const float s = sc[h * TK + j];
        mt = fmaxf(mt, s);
      }
      for (int off = warpSize / 2; off > 0; off /= 2) mt = fmaxf(mt, __shfl_xor(mt, off));
      float m_old = 0.f, l_old = 0.f;
      if (lane == 0) {
        m_old = st_m[h];
        l_old = st_l[h];
      }
      m_old = __shfl(m_old, 0);
      const float m_new = fmaxf(m_old, mt);
      const bool empty = m_new == neg_inf();  // nothing valid yet: keep P = 0 (no e^(-inf - -inf))
      const float alpha = empty ? 1.f : expf(m_old - m_new);
      float sum = 0.f;
      for (int j = lane; j < TK; j += warpSize) {
        const float s = sc[h * TK + j];
        const float pj = empty ? 0.f : expf(s - m_new);
        sc[h * TK + j] = pj;
        sum += pj;
      }
      for (int off = warpSize / 2; off > 0; off /= 2) sum += __shfl_xor(sum, off);
      if (lane == 0) {
        st_m[h] = m_new;
        st_l[h] = l_old * alpha + sum;
        st_a[h] = alpha;
      }
    }
    __syncthreads();
    // ---- d. P·V ----
    if (pv_thread) {
DSV4_UNROLL
      for (int i = 0; i < kMaxHeadsPerThread; ++i) {  // compile-time bound: acc stays in registers
        const int h = hg + i * p.head_slots;
        if (i >= p.heads_per_thread || h >= H) continue;
        const float a = st_a[h];
DSV4_UNROLL
        for (int e = 0; e < kVec; ++e) acc[i][e] *= a;
      }
      for (int j = 0; j < TK; ++j) {
        const int code = ix[j];
        if (code == -1 || (!clamp && code < 0)) continue;  // invalid slot: P = 0 and nothing was loaded
        float vf[kVec];
        unpack8(port::lds_load_as<uint4>(kv_s, static_cast<std::ptrdiff_t>(j) * pitch + cg * kVec), vf);
DSV4_UNROLL
        for (int i = 0; i < kMaxHeadsPerThread; ++i) {
          const int h = hg + i * p.head_slots;
          if (i >= p.heads_per_thread || h >= H) continue;
          const float pj = sc[h * TK + j];
DSV4_UNROLL
          for (int e = 0; e < kVec; ++e) acc[i][e] = fmaf(pj, vf[e], acc[i][e]);
        }
      }
    }
    __syncthreads();
  }

  // ---- 2. epilogue ----
  const float kLog2e = 1.4426950408889634f;
  if (pv_thread) {
DSV4_UNROLL
    for (int i = 0; i < kMaxHeadsPerThread; ++i) {
      const int h = hg + i * p.head_slots;
      if (i >= p.heads_per_thread || h >= H || h0 + h >= p.h_q) continue;
      const float l = st_l[h];
      float f[kVec];
      if (l == 0.f) {
DSV4_UNROLL
        for (int e = 0; e < kVec; ++e) f[e] = 0.f;
      } else {
        float scale = 1.f / l;
        if (p.sink && p.variant != 2) {
          const float lse = logf(l) + st_m[h];
          scale *= 1.f / (1.f + expf(port::global_load(p.sink + h0 + h) - lse));
        }
DSV4_UNROLL
        for (int e = 0; e < kVec; ++e) f[e] = acc[i][e] * scale;
      }
      port::global_store(
          reinterpret_cast<uint4*>(p.out + (token * p.h_q + h0 + h) * static_cast<long long>(p.d_v)) + cg,
          pack8(f));
    }
  }
  if (tid < H && h0 + tid < p.h_q) {
    const float l = st_l[tid], m = st_m[tid];
    float lse, ml;
    if (p.variant == 3) {
      lse = l == 0.f ? neg_inf() : log2f(l) + m * kLog2e;
      ml = l == 0.f ? neg_inf() : m * kLog2e;
    } else {
      lse = l == 0.f ? pos_inf() : logf(l) + m;
      ml = l == 0.f ? neg_inf() : m;
    }
    port::global_store(p.lse + token * p.h_q + h0 + tid, lse);
    port::global_store(p.max_logits + token * p.h_q + h0 + tid, ml);
  }
}

}  // namespace

void launch_sparse_prefill_kernel(const PrefillPlan& plan, const PrefillBuffers& io, const PrefillArgs& args,
                                  port::Stream& stream) {
  const PrefillShape& s = plan.shape;
  PParams p{};
  p.q = static_cast<const std::uint16_t*>(io.q);
  p.kv = static_cast<const std::uint16_t*>(io.kv);
  p.idx = io.indices;
  p.sink = io.attn_sink;
  p.topk_len = io.topk_length;
  p.out = static_cast<std::uint16_t*>(io.out);
  p.max_logits = io.max_logits;
  p.lse = io.lse;
  p.q_ss = s.qs();
  p.q_sh = s.qh();
  p.kv_s = s.kvs();
  p.h_q = static_cast<int>(s.h_q);
  p.d_qk = static_cast<int>(s.d_qk);
  p.d_v = static_cast<int>(s.d_v);
  p.s_kv = static_cast<int>(s.s_kv);
  p.topk = static_cast<int>(s.topk);
  p.heads = plan.heads;
  p.tile_k = plan.tile_k;
  p.pitch = plan.pitch;
  p.col_groups = plan.col_groups;
  p.head_slots = plan.head_slots;
  p.heads_per_thread = plan.heads_per_thread;
  const auto regions = plan.lds_regions();
  p.off_q = static_cast<unsigned>(regions[0].offset);
  p.off_kv = static_cast<unsigned>(regions[1].offset);
  p.off_sc = static_cast<unsigned>(regions[2].offset);
  p.off_ix = static_cast<unsigned>(regions[3].offset);
  p.off_st = static_cast<unsigned>(regions[4].offset);
  p.sm_scale = args.sm_scale;
  p.variant = static_cast<int>(plan.options.variant);

  const std::size_t q_bytes = (static_cast<std::size_t>(s.s_q - 1) * s.qs() +
                               static_cast<std::size_t>(s.h_q - 1) * s.qh() + s.d_qk) * 2;
  const std::size_t kv_bytes = s.s_kv > 0 ? (static_cast<std::size_t>(s.s_kv - 1) * s.kvs() + s.d_qk) * 2 : 0;
  std::vector<port::BufferRange> ranges = {
      port::reads(io.q, q_bytes, "q"),
      port::reads(io.indices, static_cast<std::size_t>(s.s_q * s.topk) * 4, "indices"),
      port::writes(io.out, static_cast<std::size_t>(s.s_q * s.h_q * s.d_v) * 2, "out"),
      port::writes(io.max_logits, static_cast<std::size_t>(s.s_q * s.h_q) * 4, "max_logits"),
      port::writes(io.lse, static_cast<std::size_t>(s.s_q * s.h_q) * 4, "lse")};
  if (kv_bytes) ranges.push_back(port::reads(io.kv, kv_bytes, "kv"));
  if (io.attn_sink) ranges.push_back(port::reads(io.attn_sink, static_cast<std::size_t>(s.h_q) * 4, "attn_sink"));
  if (io.topk_length)
    ranges.push_back(port::reads(io.topk_length, static_cast<std::size_t>(s.s_q) * 4, "topk_length"));
  port::LaunchConfig cfg{port::Dim3(static_cast<unsigned>(plan.grid_x), static_cast<unsigned>(plan.grid_y)),
                         port::Dim3(static_cast<unsigned>(plan.block)), plan.lds_bytes, &stream,
                         "sparse_mla_prefill", std::move(ranges)};
  with_plan_in_errors(plan.describe(), [&] { port::launch(&sparse_mla_prefill_kernel, cfg, p); });
}

}  // namespace dsv4::kernels::sparse_prefill
