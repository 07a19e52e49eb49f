// Internal: the kernel TU's raw launch entry point (no admission; launch_fp8_gemm_blockscaled does it).
#pragma once
#include "kernels/fp8_gemm_blockscaled/bs_gemm.hpp"

namespace dsv4::kernels::bsgemm {

void launch_bs_gemm_kernel(const BsGemmPlan& plan, const BsGemmBuffers& io, port::Stream& stream);

}  // namespace dsv4::kernels::bsgemm
