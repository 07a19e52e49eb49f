// Internal: the kernel TU's raw launch entry point (no admission checks; launch_inv_rope_fp8_quant does them).
#pragma once
#include "kernels/inv_rope_fp8_quant/inv_rope_fp8_quant.hpp"

namespace dsv4::kernels::inv_rope {

void launch_inv_rope_kernel(const InvRopePlan& plan, const InvRopeBuffers& io, port::Stream& stream);

}  // namespace dsv4::kernels::inv_rope
