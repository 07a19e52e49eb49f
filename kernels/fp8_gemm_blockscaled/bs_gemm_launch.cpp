// Host launcher of the block-scaled FP8 GEMM: admission (refuse before launch with the plan's reason), then the
// raw launch in the kernel TU.
#include "kernels/fp8_gemm_blockscaled/bs_gemm_launch_detail.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::kernels::bsgemm {

std::size_t span_elems(std::int64_t batch, std::int64_t bstride, std::int64_t rows, std::int64_t rstride,
                       std::int64_t cols, std::int64_t cstride) {
  if (batch <= 0 || rows <= 0 || cols <= 0) return 0;
  return static_cast<std::size_t>((batch - 1) * bstride + (rows - 1) * rstride + (cols - 1) * cstride + 1);
}

void launch_fp8_gemm_blockscaled(const BsGemmPlan& plan, const BsGemmBuffers& io, port::Stream& stream) {
  if (!plan.ok)
    throw InputError("fp8_gemm_blockscaled refused before launch: " + plan.reason + " [" + plan.describe() + "]");
  const BsGemmShape& s = plan.shape;
  if (s.batch == 0 || s.m == 0 || s.n == 0) return;
  if (!io.d.ptr || (s.k > 0 && (!io.x.ptr || !io.w.ptr || !io.x_sf.ptr || !io.w_sf.ptr)) || (s.has_c && !io.c.ptr))
    throw InputError("fp8_gemm_blockscaled: null device pointer among x, w, x_sf, w_sf, c, d");
  launch_bs_gemm_kernel(plan, io, stream);
}

}  // namespace dsv4::kernels::bsgemm
