// Internal: the kernel TU's raw launch entry point (no admission checks; launch_merge_attn_states does them).
#pragma once
#include "kernels/merge_attn_states/merge_attn_states.hpp"

namespace dsv4::kernels::merge {

void launch_merge_kernel(const MergePlan& plan, const MergeBuffers& io, port::Stream& stream);

}  // namespace dsv4::kernels::merge
