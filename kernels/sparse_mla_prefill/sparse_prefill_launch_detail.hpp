// Internal: the kernel TU's raw launch entry point (no admission checks; launch_sparse_mla_prefill does them).
#pragma once
#include "kernels/sparse_mla_prefill/sparse_mla_prefill.hpp"

namespace dsv4::kernels::sparse_prefill {

void launch_sparse_prefill_kernel(const PrefillPlan& plan, const PrefillBuffers& io, const PrefillArgs& args,
                                  port::Stream& stream);

}  // namespace dsv4::kernels::sparse_prefill
