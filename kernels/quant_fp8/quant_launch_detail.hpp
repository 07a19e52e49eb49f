// Internal: the kernel TU's raw launch entry point (no admission checks; launch_per_token_group_quant_fp8 does them).
#pragma once
#include "kernels/quant_fp8/quant_fp8.hpp"

namespace dsv4::kernels::quant {

void launch_quant_kernel(const QuantPlan& plan, const QuantBuffers& io, port::Stream& stream);

}  // namespace dsv4::kernels::quant
