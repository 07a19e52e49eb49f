// fp8_einsum launcher: contiguous einsum tensors as batched GEMM strides; see einsum_launch.hpp.
#include "kernels/fp8_einsum/einsum_launch.hpp"

#include "reference/registry/op_descriptor.hpp"

namespace dsv4::kernels::einsum {

bsgemm::BsGemmBuffers gemm_buffers(const EinsumPlan& plan, const EinsumBuffers& io) {
  const EinsumShape& s = plan.shape;
  const std::int64_t G = plan.gemm.k_blocks;
  auto cols = [&](bsgemm::ScaleKind k) { return k == bsgemm::ScaleKind::packed_ue8m0 ? (G + 3) / 4 : G; };
  const std::int64_t gx = cols(s.x_scale), gw = cols(s.w_scale);
  const std::int64_t w_rows = plan.gemm.shape.w_row_block == 1 ? s.d : (s.d + 127) / 128;
  bsgemm::BsGemmBuffers b;
  b.x = {io.x, s.r, s.h * s.r};
  b.w = {io.w, s.d * s.r, s.r};
  b.x_sf = {io.x_sf, gx, s.h * gx, 1};
  b.w_sf = {io.w_sf, w_rows * gw, gw, 1};
  b.c = {io.c, s.d, s.h * s.d, 1};
  b.d = {io.d, s.d, s.h * s.d, 1};
  return b;
}

void launch_fp8_einsum(const EinsumPlan& plan, const EinsumBuffers& io, port::Stream& stream) {
  if (!plan.ok) throw InputError("fp8_einsum refused before launch: " + plan.reason + " [" + plan.describe() + "]");
  bsgemm::launch_fp8_gemm_blockscaled(plan.gemm, gemm_buffers(plan, io), stream);
}

}  // namespace dsv4::kernels::einsum
