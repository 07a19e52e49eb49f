// FP8 dequantization kernel: one thread per element, grid-stride. The element's scale is found by granularity
// (row r -> scale row r or r / gs) and layout, decoded exactly (fp32 as is; UE8M0 by fp8::ue8m0_to_f32:
// 0x00 = 2^-127, 0xFF = NaN), the code by fp8::e4m3_to_f32 (fnuz 0x80 = NaN), and the product formed in float64
// (exact) and rounded once: fp32 by the RNE conversion; bf16 by round-to-odd to fp32, then RNE to bf16 (exact
// single rounding, since fp32 keeps >= 2 more bits than bf16 across bf16's whole range).
// The shift23 variant decodes UE8M0 as fp32 bits byte << 23 (known-bugs #13).
#include <cmath>

#include "kernels/dequant_fp8/dequant_launch_detail.hpp"
#include "kernels/port/hip_port.hpp"
#include "kernels/common/fp8_codec.hpp"
#include "kernels/common/bf16_fp16_convert.hpp"
#include "kernels/common/plan_errors.hpp"

namespace dsv4::kernels::dequant {
namespace {

struct DParams {
  const std::uint8_t* xq;
  const void* scales;
  void* y;
  long long m, k, gs, groups, ld, elements;
  int scale_type;  // 0 f32, 1 e8m0 byte, 2 packed
  int block_gran, mn_major, fnuz, out_f32, shift23;
};

// double -> bf16 bits, one RNE rounding (round-to-odd onto fp32 first).
__device__ __forceinline__ std::uint16_t f64_to_bf16(double v) {
  float f = static_cast<float>(v);
  if (v == v && static_cast<double>(f) != v) {
    std::uint32_t u = fp8::f32_bits(f);
    if (fabs(static_cast<double>(f)) > fabs(v)) u -= 1u;  // truncate toward zero (Inf -> max finite)
    f = fp8::bits_f32(u | 1u);                              // sticky bit: round to odd
  }
  return common::f32_to_bf16(f);
}

__device__ __forceinline__ float ue8m0(std::uint32_t b, bool shift23) {
  return shift23 ? fp8::bits_f32((b & 0xFFu) << 23) : fp8::ue8m0_to_f32(b);
}

__global__ void __launch_bounds__(kDequantBlockThreads) dequant_fp8_kernel(DParams p) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.elements; i += stride) {
    const long long r = i / p.k, c = i % p.k;
    const long long sr = p.block_gran ? r / p.gs : r;
    const long long g = c / p.gs;
    float s;
    if (p.scale_type == 2) {
      const auto w = static_cast<std::uint32_t>(port::global_load(static_cast<const int*>(p.scales) + (g / 4) * p.ld + sr));
      s = ue8m0(w >> (8 * (g % 4)), p.shift23 != 0);
    } else {
      const long long off = p.mn_major ? g * p.ld + sr : sr * p.ld + g;
      if (p.scale_type == 1) s = ue8m0(port::global_load(static_cast<const std::uint8_t*>(p.scales) + off), p.shift23 != 0);
      else s = port::global_load(static_cast<const float*>(p.scales) + off);
    }
    const float x = fp8::e4m3_to_f32(port::global_load(p.xq + i), p.fnuz != 0);
    const double v = static_cast<double>(x) * static_cast<double>(s);
    if (p.out_f32) port::global_store(static_cast<float*>(p.y) + i, static_cast<float>(v));
    else port::global_store(static_cast<std::uint16_t*>(p.y) + i, f64_to_bf16(v));
  }
}

}  // namespace

void launch_dequant_kernel(const DequantPlan& plan, const DequantBuffers& io, port::Stream& stream) {
  DParams p{};
  p.xq = static_cast<const std::uint8_t*>(io.x_q);
  p.scales = io.scales;
  p.y = io.y;
  p.m = plan.shape.m;
  p.k = plan.shape.k;
  p.gs = plan.options.group_size;
  p.groups = plan.groups;
  p.ld = plan.scale_ld;
  p.elements = plan.elements;
  p.scale_type = static_cast<int>(plan.options.scale_type);
  p.block_gran = plan.options.granularity == Granularity::block;
  p.mn_major = plan.options.layout == ScaleLayout::mn_major;
  p.fnuz = plan.fp8 == Fp8::e4m3fnuz;
  p.out_f32 = plan.options.out == OutType::f32;
  p.shift23 = plan.options.variant == DequantVariant::shift23;
  port::LaunchConfig cfg{port::Dim3(static_cast<unsigned>(plan.grid)), port::Dim3(static_cast<unsigned>(plan.block)),
                         0, &stream, p.shift23 ? "dequant_fp8<shift23>" : "dequant_fp8",
                         {port::reads(io.x_q, static_cast<std::size_t>(plan.elements), "x_q"),
                          port::reads(io.scales, plan.scale_bytes, "scales"), port::writes(io.y, plan.out_bytes, "y")}};
  with_plan_in_errors(plan.describe(), [&] { port::launch(dequant_fp8_kernel, cfg, p); });
}

}  // namespace dsv4::kernels::dequant
