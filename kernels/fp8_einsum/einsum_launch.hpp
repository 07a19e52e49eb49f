// Host launcher of fp8_einsum 'bhr,hdr->bhd' on contiguous device tensors: maps x [B,H,R], x_sf [B,H,G'],
// w [H,D,R], w_sf [H,Dw,G'], c / d [B,H,D] (G' = G, or ceil(G/4) packed words) onto the block-scaled GEMM kernel's
// batched strides (batch = head) and launches it (refusal before launch with the plan's reason).
#pragma once
#include "kernels/fp8_einsum/einsum_plan.hpp"
#include "kernels/fp8_gemm_blockscaled/bs_gemm.hpp"

namespace dsv4::kernels::einsum {

struct EinsumBuffers {
  const void* x = nullptr;
  const void* x_sf = nullptr;
  const void* w = nullptr;
  const void* w_sf = nullptr;
  const void* c = nullptr;  // when plan.shape.has_c
  void* d = nullptr;
};

// The GEMM kernel's view of contiguous einsum buffers.
bsgemm::BsGemmBuffers gemm_buffers(const EinsumPlan& plan, const EinsumBuffers& io);

void launch_fp8_einsum(const EinsumPlan& plan, const EinsumBuffers& io, port::Stream& stream);

}  // namespace dsv4::kernels::einsum
