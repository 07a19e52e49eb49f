// Internal: the kernel TU's raw launch entry point (no admission checks; launch_per_block_quant_fp8 does them).
#pragma once
#include "kernels/per_block_quant_fp8/per_block_quant_fp8.hpp"

namespace dsv4::kernels::block_quant {

void launch_block_quant_kernel(const BlockQuantPlan& plan, const BlockQuantBuffers& io, port::Stream& stream);

}  // namespace dsv4::kernels::block_quant
