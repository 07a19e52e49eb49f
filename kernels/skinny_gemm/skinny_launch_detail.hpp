// Internal: the kernel TU's raw launch entry point (no admission checks; launch_skinny_gemm does them).
#pragma once
#include <cstddef>

#include "kernels/port/runtime.hpp"
#include "kernels/skinny_gemm/skinny_gemm.hpp"
#include "kernels/skinny_gemm/skinny_plan.hpp"

namespace dsv4::kernels::skinny {

// Launches the kernel of `plan` on `stream`; `declared_workspace_bytes` is what the launch declares it touches.
void launch_skinny_kernel(const SkinnyPlan& plan, const SkinnyBuffers& io, void* workspace,
                          std::size_t declared_workspace_bytes, port::Stream& stream);

}  // namespace dsv4::kernels::skinny
