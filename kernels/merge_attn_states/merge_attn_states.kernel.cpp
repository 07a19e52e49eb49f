// merge_attn_states kernel (ops.md §1): one thread per 16-byte pack of one (token, head) row. The thread loads
// both LSEs through their real strides, maps +inf to -inf (pos_inf_empty), and
//   t >= merged_tokens: output = suffix (raw 16-byte copy, or fp8 cast), lse = raw suffix lse;
//   NaN in an lse     : output NaN, lse NaN;
//   both empty (-inf) : zeros or a copy of the prefix pack, lse -inf;
//   else              : fp32 weights e^(p-m)/d, e^(s-m)/d; a zero weight skips its side (0 * garbage is not NaN);
//                       lse = log(d) + m.
// FP8 output: v * fl(1/scale), clamped to +-max (NaN passes), RNE (fp8_codec.hpp). Pack 0 writes output_lse.
// The nan_both_empty variant has no both-empty branch (known-bugs #6): exp(-inf - -inf) = NaN propagates.
#include <cmath>
#include <vector>

#include "kernels/merge_attn_states/merge_launch_detail.hpp"
#include "kernels/port/hip_port.hpp"
#include "kernels/common/fp8_codec.hpp"
#include "kernels/common/bf16_fp16_convert.hpp"
#include "kernels/common/plan_errors.hpp"

namespace dsv4::kernels::merge {
namespace {

enum class OutFormat : int { input_dtype, e4m3fn, e4m3fnuz };  // the output's element format

struct MParams {
  const uint4* prefix;
  const uint4* suffix;
  const float* prefix_lse;
  const float* suffix_lse;
  void* out;
  float* out_lse;
  long long t, h, head_stride, packs_per_head, threads;
  long long merged_tokens;  // tokens [0, merged_tokens) are merged, the rest copy the suffix
  long long prefix_lse_stride_h, prefix_lse_stride_t, suffix_lse_stride_h, suffix_lse_stride_t;  // elements
  float inv_scale, fp8_max;
  OutFormat out_format;
  int copy_prefix, pos_inf_empty, buggy;
};

__device__ __forceinline__ float pos_inf() { return fp8::bits_f32(0x7f800000u); }
__device__ __forceinline__ float qnan() { return fp8::bits_f32(0x7fc00000u); }

// E: 0 f32 (4 per pack), 1 f16, 2 bf16 (8 per pack).
template <int E>
__device__ __forceinline__ void unpack(const uint4& v, float* f) {
  const unsigned w[4] = {v.x, v.y, v.z, v.w};
  for (int i = 0; i < 4; ++i) {
    if constexpr (E == 0) {
      f[i] = fp8::bits_f32(w[i]);
    } else {
      f[2 * i] = E == 1 ? common::f16_to_f32(w[i] & 0xffffu) : common::bf16_to_f32(w[i] & 0xffffu);
      f[2 * i + 1] = E == 1 ? common::f16_to_f32(w[i] >> 16) : common::bf16_to_f32(w[i] >> 16);
    }
  }
}

template <int E>
__device__ __forceinline__ uint4 pack_same(const float* f) {
  unsigned w[4];
  for (int i = 0; i < 4; ++i) {
    if constexpr (E == 0) {
      w[i] = fp8::f32_bits(f[i]);
    } else {
      const unsigned lo = E == 1 ? common::f32_to_f16(f[2 * i]) : common::f32_to_bf16(f[2 * i]);
      const unsigned hi = E == 1 ? common::f32_to_f16(f[2 * i + 1]) : common::f32_to_bf16(f[2 * i + 1]);
      w[i] = lo | (hi << 16);
    }
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

template <int E>
__device__ __forceinline__ void store_pack(const MParams& p, long long elem_off, const float* f) {
  constexpr int N = E == 0 ? 4 : 8;
  if (p.out_format == OutFormat::input_dtype) {
    port::global_store(static_cast<uint4*>(p.out) + elem_off / N, pack_same<E>(f));
    return;
  }
  unsigned w[2] = {0u, 0u};
  for (int i = 0; i < N; ++i) {
    float y = f[i] * p.inv_scale;
    if (fabsf(y) > p.fp8_max) y = copysignf(p.fp8_max, y);
    w[i / 4] |= static_cast<unsigned>(fp8::encode_e4m3(y, p.out_format == OutFormat::e4m3fnuz, true)) << (8 * (i % 4));
  }
  if constexpr (N == 8) port::global_store(static_cast<uint2*>(p.out) + elem_off / 8, make_uint2(w[0], w[1]));
  else port::global_store(static_cast<unsigned*>(p.out) + elem_off / 4, w[0]);
}

template <int E>
__global__ void __launch_bounds__(128) merge_kernel(MParams p) {
  constexpr int N = E == 0 ? 4 : 8;
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= p.threads) return;
  const long long pk = idx % p.packs_per_head;
  const long long th = idx / p.packs_per_head;
  const long long h = th % p.h, t = th / p.h;
  const long long off = t * p.h * p.head_stride + h * p.head_stride + pk * N;  // element offset (a multiple of N)
  const float p_raw = port::global_load(p.prefix_lse + h * p.prefix_lse_stride_h + t * p.prefix_lse_stride_t);
  const float s_raw = port::global_load(p.suffix_lse + h * p.suffix_lse_stride_h + t * p.suffix_lse_stride_t);
  const uint4 sv = port::global_load(p.suffix + off / N);
  float out[N];
  float lse;
  if (t >= p.merged_tokens) {
    lse = s_raw;
    if (p.out_format == OutFormat::input_dtype) {
      port::global_store(static_cast<uint4*>(p.out) + off / N, sv);  // bit copy
    } else {
      unpack<E>(sv, out);
      store_pack<E>(p, off, out);
    }
  } else {
    const uint4 pv = port::global_load(p.prefix + off / N);
    float ps = p_raw, ss = s_raw;
    const float kInf = pos_inf();
    if (p.pos_inf_empty) {
      if (ps == kInf) ps = -kInf;
      if (ss == kInf) ss = -kInf;
    }
    if (ps != ps || ss != ss) {
      for (int i = 0; i < N; ++i) out[i] = qnan();
      lse = qnan();
      store_pack<E>(p, off, out);
    } else if (!p.buggy && ps == -kInf && ss == -kInf) {
      lse = -kInf;
      if (p.copy_prefix && p.out_format == OutFormat::input_dtype) {
        port::global_store(static_cast<uint4*>(p.out) + off / N, pv);  // bit copy, garbage included
      } else {
        if (p.copy_prefix) unpack<E>(pv, out);
        else for (int i = 0; i < N; ++i) out[i] = 0.f;
        store_pack<E>(p, off, out);
      }
    } else {
      const float m = fmaxf(ps, ss);
      const float pe = expf(ps - m), se = expf(ss - m);
      const float den = pe + se;
      const float wp = pe / den, ws = se / den;
      float a[N], b[N];
      unpack<E>(pv, a);
      unpack<E>(sv, b);
      for (int i = 0; i < N; ++i) out[i] = (wp != 0.f ? a[i] * wp : 0.f) + (ws != 0.f ? b[i] * ws : 0.f);
      lse = logf(den) + m;
      store_pack<E>(p, off, out);
    }
  }
  if (pk == 0 && p.out_lse) port::global_store(p.out_lse + h * p.t + t, lse);
}

std::size_t lse_bytes(long long h, long long t, long long sh, long long st) {
  if (h == 0 || t == 0) return 0;
  return static_cast<std::size_t>((h - 1) * sh + (t - 1) * st + 1) * 4;
}

}  // namespace

void launch_merge_kernel(const MergePlan& plan, const MergeBuffers& io, port::Stream& stream) {
  const MergeShape& s = plan.shape;
  MParams p{};
  p.prefix = static_cast<const uint4*>(io.prefix);
  p.suffix = static_cast<const uint4*>(io.suffix);
  p.prefix_lse = io.prefix_lse;
  p.suffix_lse = io.suffix_lse;
  p.out = io.output;
  p.out_lse = plan.options.output_lse ? io.output_lse : nullptr;
  p.t = s.t;
  p.h = s.h;
  p.head_stride = s.hs();
  p.packs_per_head = plan.packs_per_head;
  p.threads = plan.threads;
  p.merged_tokens = plan.merged_tokens;
  p.prefix_lse_stride_h = s.p_lse_stride_h || s.p_lse_stride_t ? s.p_lse_stride_h : s.t;
  p.prefix_lse_stride_t = s.p_lse_stride_h || s.p_lse_stride_t ? s.p_lse_stride_t : 1;
  p.suffix_lse_stride_h = s.s_lse_stride_h || s.s_lse_stride_t ? s.s_lse_stride_h : s.t;
  p.suffix_lse_stride_t = s.s_lse_stride_h || s.s_lse_stride_t ? s.s_lse_stride_t : 1;
  p.inv_scale = plan.inv_scale;
  p.fp8_max = plan.fp8_max;
  p.out_format = !plan.options.output_scale              ? OutFormat::input_dtype
                 : plan.options.fp8 == Fp8Out::e4m3fn ? OutFormat::e4m3fn
                                                      : OutFormat::e4m3fnuz;
  p.copy_prefix = plan.options.both_empty == BothEmpty::copy_prefix;
  p.pos_inf_empty = plan.options.pos_inf_empty;
  p.buggy = plan.options.variant == MergeVariant::nan_both_empty;
  std::vector<port::BufferRange> ranges = {
      port::reads(io.prefix, plan.in_bytes, "prefix_output"), port::reads(io.suffix, plan.in_bytes, "suffix_output"),
      port::reads(io.prefix_lse, lse_bytes(s.h, s.t, p.prefix_lse_stride_h, p.prefix_lse_stride_t), "prefix_lse"),
      port::reads(io.suffix_lse, lse_bytes(s.h, s.t, p.suffix_lse_stride_h, p.suffix_lse_stride_t), "suffix_lse"),
      port::writes(io.output, plan.out_bytes, "output")};
  if (p.out_lse) ranges.push_back(port::writes(p.out_lse, static_cast<std::size_t>(s.h * s.t) * 4, "output_lse"));
  void (*kernel)(MParams) = s.dtype == ElemType::f32 ? &merge_kernel<0>
                            : s.dtype == ElemType::f16 ? &merge_kernel<1> : &merge_kernel<2>;
  const char* name = p.buggy ? "merge_attn_states<nan_both_empty>" : "merge_attn_states";
  port::LaunchConfig cfg{port::Dim3(static_cast<unsigned>(plan.grid)), port::Dim3(static_cast<unsigned>(plan.block)),
                         0, &stream, name, std::move(ranges)};
  with_plan_in_errors(plan.describe(), [&] { port::launch(kernel, cfg, p); });
}

}  // namespace dsv4::kernels::merge
