// Per-token-group FP8 quantization kernel: one wave per work item (one group, or the four groups of one packed
// UE8M0 word), grid-stride over items. Per group: lane l reads elements l, l+W, ... (W = warpSize at run time),
// amax by a butterfly __shfl_xor reduction over all W lanes (NaN propagates), the recipe's scale in fp32 exactly
// as reference/formats/recipes.cpp, then x/s or x*fl(1/s), optional clamp, and the e4m3 cast (fp8_codec.hpp).
// The wave32_reduction variant starts the butterfly at 16 (a wave-32 assumption) and broadcasts lane 0's amax:
// on wave 64 the scale only covers lanes 0..31.
#include <cmath>

#include "kernels/port/hip_port.hpp"
#include "kernels/common/fp8_codec.hpp"
#include "kernels/common/plan_errors.hpp"
#include "kernels/quant_fp8/fp8_scale_rule.hpp"
#include "kernels/quant_fp8/quant_kernel_params.hpp"
#include "kernels/quant_fp8/quant_launch_detail.hpp"

namespace dsv4::kernels::quant {
namespace {

struct QParams {
  const void* x;
  std::uint8_t* xq;
  void* scales;
  long long m, k, group, groups, items_per_row, items, ld;
  int dtype;      // 0 bf16, 1 f16, 2 f32
  int layout;     // 0 row_major, 1 mn_major, 2 packed
  int gpi;        // groups per item
  int rule;       // ScaleRule
  float floor, em;
  int divide, clamp, saturate, fnuz, buggy;
};

__device__ __forceinline__ float load_x(const QParams& p, long long i) { return load_input<&QParams::x>(p, i); }

using fp8::fmax_nan;

// amax over the wave: butterfly over all lanes (fixed), or from offset 16 only (the wave-32 assumption).
__device__ __forceinline__ float wave_amax(float v, bool buggy) {
  const int start = buggy ? 16 : warpSize / 2;
  for (int off = start; off > 0; off >>= 1) v = fmax_nan(v, __shfl_xor(v, off));
  return buggy ? __shfl(v, 0) : v;
}

__global__ void __launch_bounds__(256) quant_fp8_kernel(QParams p) {
  const int lane = static_cast<int>(threadIdx.x) % warpSize;
  const int wave = static_cast<int>(threadIdx.x) / warpSize;
  const int wpb = static_cast<int>(blockDim.x) / warpSize;
  const long long stride = static_cast<long long>(gridDim.x) * wpb;
  for (long long item = static_cast<long long>(blockIdx.x) * wpb + wave; item < p.items; item += stride) {
    const long long m = item / p.items_per_row;
    const long long c = item % p.items_per_row;
    std::uint32_t word = 0;
    for (int j = 0; j < p.gpi; ++j) {
      const long long g = c * p.gpi + j;
      if (g >= p.groups) break;  // uniform over the wave
      const long long k0 = g * p.group;
      const long long k1 = (k0 + p.group < p.k) ? k0 + p.group : p.k;
      float amax = 0.f;
      for (long long kk = k0 + lane; kk < k1; kk += warpSize) amax = fmax_nan(amax, fabsf(load_x(p, m * p.k + kk)));
      amax = wave_amax(amax, p.buggy != 0);
      const fp8::Scale sc = fp8::compute_scale(static_cast<ScaleRule>(p.rule), amax, p.floor, p.em);
      const float inv = 1.0f / sc.s;
      for (long long kk = k0 + lane; kk < k1; kk += warpSize) {
        const float xv = load_x(p, m * p.k + kk);
        float y = p.divide ? xv / sc.s : xv * inv;
        if (p.clamp && fabsf(y) > p.em) y = copysignf(p.em, y);
        port::global_store(p.xq + m * p.k + kk, fp8::encode_e4m3(y, p.fnuz != 0, p.saturate != 0));
      }
      if (lane == 0) {
        if (p.layout == 0) port::global_store(static_cast<float*>(p.scales) + m * p.groups + g, sc.s);
        else if (p.layout == 1) port::global_store(static_cast<float*>(p.scales) + g * p.ld + m, sc.s);
        else word |= sc.byte << (8 * j);
      }
    }
    if (lane == 0) {
      if (p.layout == 2) port::global_store(static_cast<int*>(p.scales) + c * p.ld + m, static_cast<int>(word));
      if (p.layout != 0 && m == p.m - 1) {  // the last row's item also zeroes the padding rows of its column(s)
        for (long long r = p.m; r < p.ld; ++r) {
          if (p.layout == 1) port::global_store(static_cast<float*>(p.scales) + c * p.ld + r, 0.f);
          else port::global_store(static_cast<int*>(p.scales) + c * p.ld + r, 0);
        }
      }
    }
  }
}

}  // namespace

void launch_quant_kernel(const QuantPlan& plan, const QuantBuffers& io, port::Stream& stream) {
  QParams p{};
  p.x = io.x;
  p.xq = static_cast<std::uint8_t*>(io.x_q);
  p.scales = io.scales;
  p.m = plan.shape.m;
  p.k = plan.shape.k;
  p.group = plan.options.group_size;
  p.groups = plan.groups;
  p.items_per_row = plan.items_per_row;
  p.items = plan.items;
  p.ld = plan.scale_ld;
  p.dtype = input_type_code(plan.shape.dtype);
  p.layout = static_cast<int>(plan.options.layout);
  p.gpi = plan.groups_per_item;
  set_recipe_params(p, plan);
  p.buggy = plan.options.variant == QuantVariant::wave32_reduction;
  const std::size_t esz = plan.shape.dtype == InputType::f32 ? 4 : 2;
  const auto mk = static_cast<std::size_t>(plan.shape.m * plan.shape.k);
  port::LaunchConfig cfg{port::Dim3(static_cast<unsigned>(plan.grid)), port::Dim3(static_cast<unsigned>(plan.block)),
                         0, &stream, p.buggy ? "per_token_group_quant_fp8<wave32_reduction>" : "per_token_group_quant_fp8",
                         {port::reads(io.x, mk * esz, "x"), port::writes(io.x_q, mk, "x_q"),
                          port::writes(io.scales, plan.scale_bytes, "x_s")}};
  with_plan_in_errors(plan.describe(), [&] { port::launch(quant_fp8_kernel, cfg, p); });
}

}  // namespace dsv4::kernels::quant
