// Internal: the kernel TU's raw launch entry point (no admission checks; launch_topk does them).
#pragma once
#include "kernels/topk/topk_kernel.hpp"

namespace dsv4::kernels::topk {

void launch_topk_kernel(const TopkPlan& plan, const TopkBuffers& io, port::Stream& stream);

}  // namespace dsv4::kernels::topk
