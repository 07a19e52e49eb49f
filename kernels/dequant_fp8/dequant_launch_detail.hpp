// Internal: the kernel TU's raw launch entry point (no admission checks; launch_dequant_fp8 does them).
#pragma once
#include "kernels/dequant_fp8/dequant_fp8.hpp"

namespace dsv4::kernels::dequant {

void launch_dequant_kernel(const DequantPlan& plan, const DequantBuffers& io, port::Stream& stream);

}  // namespace dsv4::kernels::dequant
