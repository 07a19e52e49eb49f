// Fused inverse RoPE + FP8 quantization kernel (ops.md §7.2): one wave per (t, h) head, grid-stride over T·H.
// For each group of the head: lane l rotates dims l, l + W, ... (a rope dim loads its pair partner too; the
// rotation is a·c + b·s / b·c − a·s in float64 from exact products, rounded once to fp32), NaN-propagating amax by
// a butterfly over all warpSize lanes, the recipe's scale (kernels/quant_fp8/fp8_scale_rule.hpp), then a second
// pass recomputes the rotation and stores the e4m3 codes (kernels/common/fp8_codec.hpp) at [g, t, off + d].
// Lane 0 stores the fp32 scale per group (mn_major) or one word of 4 UE8M0 bytes per head (packed_ue8m0); the
// item of the last token also zeroes the align(T,4) padding rows of its scale columns.
// The forward_rotation variant applies the forward rotation (the bug zoo's sign mix-up).
#include <cmath>

#include "kernels/inv_rope_fp8_quant/inv_rope_launch_detail.hpp"
#include "kernels/port/hip_port.hpp"
#include "kernels/common/fp8_codec.hpp"
#include "kernels/common/plan_errors.hpp"
#include "kernels/quant_fp8/fp8_scale_rule.hpp"
#include "kernels/quant_fp8/quant_kernel_params.hpp"
#include "kernels/common/bf16_fp16_convert.hpp"

namespace dsv4::kernels::inv_rope {
namespace {

struct IParams {
  const std::uint16_t* o;
  const void* pos;
  const float* cs;
  std::uint8_t* out;
  void* scales;
  long long t, h, hd, max_pos, hpg, d, gph, gs, scale_cols, tal, items;
  int rope_dim, neox, pos_i32, packed, rule, forward;
  float floor, em;
  int divide, clamp, saturate, fnuz;
};

__device__ __forceinline__ long long load_pos(const IParams& p, long long t) {
  if (p.pos_i32) return port::global_load(static_cast<const int*>(p.pos) + t);
  return port::global_load(static_cast<const long long*>(p.pos) + t);
}

// Dim d of head (t, h) after the inverse rotation, as fp32 (dims before the rope range are copied).
__device__ __forceinline__ float rotated(const IParams& p, long long base, int d, long long pos) {
  const float x = common::bf16_to_f32(port::global_load(p.o + base + d));
  const int r0 = static_cast<int>(p.hd) - p.rope_dim;
  if (d < r0) return x;
  if (pos < 0 || pos >= p.max_pos) return fp8::bits_f32(0x7fc00000u);
  const int j = d - r0, half = p.rope_dim / 2;
  bool is_a;
  int i, partner;
  if (p.neox) {
    is_a = j < half;
    i = is_a ? j : j - half;
    partner = r0 + (is_a ? j + half : j - half);
  } else {
    is_a = (j & 1) == 0;
    i = j >> 1;
    partner = r0 + (j ^ 1);
  }
  const float y = common::bf16_to_f32(port::global_load(p.o + base + partner));
  const double a = is_a ? x : y, b = is_a ? y : x;
  const double c = port::global_load(p.cs + pos * p.rope_dim + i);
  const double s = port::global_load(p.cs + pos * p.rope_dim + half + i);
  double r;
  if (!p.forward) r = is_a ? a * c + b * s : b * c - a * s;
  else r = is_a ? a * c - b * s : a * s + b * c;
  return static_cast<float>(r);
}

__global__ void __launch_bounds__(kInvRopeBlockThreads) inv_rope_fp8_quant_kernel(IParams p) {
  const int lane = static_cast<int>(threadIdx.x) % warpSize;
  const int wave = static_cast<int>(threadIdx.x) / warpSize;
  const int wpb = static_cast<int>(blockDim.x) / warpSize;
  const long long stride = static_cast<long long>(gridDim.x) * wpb;
  for (long long item = static_cast<long long>(blockIdx.x) * wpb + wave; item < p.items; item += stride) {
    const long long t = item / p.h, h = item % p.h;
    const long long g = h / p.hpg, hl = h % p.hpg;
    const long long base = item * p.hd;                        // o[t, h, 0]
    const long long obase = (g * p.t + t) * p.d + hl * p.hd;   // out[g, t, hl·hd]
    const long long pos = load_pos(p, t);
    std::uint32_t word = 0;
    for (long long j = 0; j < p.gph; ++j) {
      const long long d0 = j * p.gs;
      float amax = 0.f;
      for (long long d = d0 + lane; d < d0 + p.gs; d += warpSize)
        amax = fp8::fmax_nan(amax, fabsf(rotated(p, base, static_cast<int>(d), pos)));
      for (int off = warpSize / 2; off > 0; off >>= 1) amax = fp8::fmax_nan(amax, __shfl_xor(amax, off));
      const fp8::Scale sc = fp8::compute_scale(static_cast<ScaleRule>(p.rule), amax, p.floor, p.em);
      const float inv = 1.0f / sc.s;
      for (long long d = d0 + lane; d < d0 + p.gs; d += warpSize)
        port::global_store(p.out + obase + d,
                           fp8::quantize_elem(rotated(p, base, static_cast<int>(d), pos), sc, inv, p.em, p.divide != 0,
                                              p.clamp != 0, p.fnuz != 0, p.saturate != 0));
      if (p.packed) {
        word |= sc.byte << (8 * j);
      } else if (lane == 0) {
        const long long col = g * p.scale_cols + hl * p.gph + j;
        float* s = static_cast<float*>(p.scales);
        port::global_store(s + col * p.tal + t, sc.s);
        if (t == p.t - 1)
          for (long long r = p.t; r < p.tal; ++r) port::global_store(s + col * p.tal + r, 0.f);
      }
    }
    if (p.packed && lane == 0) {
      const long long col = g * p.scale_cols + hl;
      int* s = static_cast<int*>(p.scales);
      port::global_store(s + col * p.tal + t, static_cast<int>(word));
      if (t == p.t - 1)
        for (long long r = p.t; r < p.tal; ++r) port::global_store(s + col * p.tal + r, 0);
    }
  }
}

}  // namespace

void launch_inv_rope_kernel(const InvRopePlan& plan, const InvRopeBuffers& io, port::Stream& stream) {
  IParams p{};
  p.o = static_cast<const std::uint16_t*>(io.o);
  p.pos = io.positions;
  p.cs = io.cos_sin;
  p.out = static_cast<std::uint8_t*>(io.o_fp8);
  p.scales = io.scales;
  p.t = plan.shape.t;
  p.h = plan.shape.h;
  p.hd = plan.shape.head_dim;
  p.max_pos = plan.shape.max_pos;
  p.hpg = plan.heads_per_group;
  p.d = plan.d;
  p.gph = plan.groups_per_head;
  p.gs = plan.options.group_size;
  p.scale_cols = plan.scale_cols;
  p.tal = plan.t_aligned;
  p.items = plan.items;
  p.rope_dim = static_cast<int>(plan.options.rope_dim);
  p.neox = plan.options.pairing == Pairing::neox;
  p.pos_i32 = plan.shape.positions_i32;
  p.packed = plan.options.layout == ScaleLayout::packed_ue8m0;
  p.forward = plan.options.variant == InvRopeVariant::forward_rotation;
  quant::set_recipe_params(p, plan);
  const auto T = static_cast<std::size_t>(plan.shape.t);
  port::LaunchConfig cfg{
      port::Dim3(static_cast<unsigned>(plan.grid)), port::Dim3(static_cast<unsigned>(plan.block)), 0, &stream,
      p.forward ? "inv_rope_fp8_quant<forward_rotation>" : "inv_rope_fp8_quant",
      {port::reads(io.o, plan.out_bytes * 2, "o"), port::reads(io.positions, T * (p.pos_i32 ? 4 : 8), "positions"),
       port::reads(io.cos_sin, static_cast<std::size_t>(plan.shape.max_pos * plan.options.rope_dim) * 4, "cos_sin_cache"),
       port::writes(io.o_fp8, plan.out_bytes, "o_fp8"), port::writes(io.scales, plan.scale_bytes, "o_scale")}};
  with_plan_in_errors(plan.describe(), [&] { port::launch(inv_rope_fp8_quant_kernel, cfg, p); });
}

}  // namespace dsv4::kernels::inv_rope
