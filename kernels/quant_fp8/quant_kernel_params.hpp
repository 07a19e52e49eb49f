// Shared by the FP8 quantization kernel TUs (quant_fp8, per_block_quant_fp8, inv_rope_fp8_quant): the resolved
// recipe of a host plan as the kernels' plain int/float parameters, and the fp32 load of a bf16/f16/f32 input
// element. The parameter structs stay each kernel's own (their layouts are the kernels' argument layouts); this
// header only fills the fields they share by name. Include only after kernels/port/hip_port.hpp.
#pragma once
#include <cstdint>

#include "kernels/quant_fp8/quant_plan.hpp"
#include "kernels/common/bf16_fp16_convert.hpp"

namespace dsv4::kernels::quant {

// The input element code the kernels switch on: 0 bf16, 1 f16, 2 f32.
inline int input_type_code(InputType t) { return t == InputType::bf16 ? 0 : (t == InputType::f16 ? 1 : 2); }

// Element i of the input p.*Src (a const void*), typed by p.dtype (0 bf16, 1 f16, 2 f32), as fp32. The fields are
// read through p exactly where the kernels always read them (the generated device code is unchanged).
template <auto Src, class Params>
__device__ __forceinline__ float load_input(const Params& p, long long i) {
  if (p.dtype == 2) return port::global_load(static_cast<const float*>(p.*Src) + i);
  const std::uint16_t h = port::global_load(static_cast<const std::uint16_t*>(p.*Src) + i);
  return p.dtype == 1 ? common::f16_to_f32(h) : common::bf16_to_f32(h);
}

// The plan's resolved recipe (quant::QuantPlan's fields, which BlockQuantPlan and InvRopePlan copy) into a kernel
// parameter struct with: int rule; float floor, em; int divide, clamp, saturate, fnuz.
template <class Params, class Plan>
void set_recipe_params(Params& p, const Plan& plan) {
  p.rule = static_cast<int>(plan.rule);
  p.floor = plan.amax_floor;
  p.em = plan.elem_max;
  p.divide = plan.divide;
  p.clamp = plan.clamp;
  p.saturate = plan.saturate;
  p.fnuz = plan.fp8 == Fp8::e4m3fnuz;
}

}  // namespace dsv4::kernels::quant
