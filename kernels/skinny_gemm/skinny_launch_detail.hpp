// Internal: the portable kernel TU's raw launch entry point (no admission checks; launch_skinny_gemm does them) and what
// they share: the parameters and the launch configuration a plan gives (skinny_launch.cpp).
#pragma once
#include <cstddef>
#include <string>

#include "kernels/port/runtime.hpp"
#include "kernels/skinny_gemm/skinny_gemm.hpp"
#include "kernels/skinny_gemm/skinny_params.hpp"
#include "kernels/skinny_gemm/skinny_plan.hpp"

namespace dsv4::kernels::skinny {

// Launches the portable kernel of `plan` (skinny_gemm.kernel.cpp); `declared_workspace_bytes` is what the launch
// declares it touches.
void launch_skinny_kernel(const SkinnyPlan& plan, const SkinnyBuffers& io, void* workspace,
                          std::size_t declared_workspace_bytes, port::Stream& stream);

// The portable kernel parameters of a plan (every kernel's: an arch layout's parameters extend them).
detail::KParams kernel_params(const SkinnyPlan& plan, const SkinnyBuffers& io, void* workspace);
// The launch of a plan: grid, block, LDS, stream, the byte ranges of a, b, out, bias and the declared workspace,
// and programmatic dependent launch (no clusters: an arch layout that has them sets LaunchConfig::cluster_blocks).
port::LaunchConfig launch_config(const SkinnyPlan& plan, const SkinnyBuffers& io, void* workspace,
                                 std::size_t declared_workspace_bytes, port::Stream& stream);

}  // namespace dsv4::kernels::skinny
