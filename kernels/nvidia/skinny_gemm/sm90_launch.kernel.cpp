// Launch of an sm_90 skinny plan's tensor-core kernel (launch_sm90_skinny_kernel, skinny_launch_detail.hpp): the
// portable parameters plus the sm_90 ones (warps, panels, cluster reduction, the tensor maps of a and b for the
// warpgroup kernels' bulk copies), the kernel instance of the plan's layout, and the launch. launch_skinny_gemm
// (kernels/skinny_gemm/skinny_launch.cpp) admits the plan and dispatches here for plan.mma.
#include "kernels/port/hip_port.hpp"
#include "kernels/port/async_copy.hpp"
#include "kernels/nvidia/port/tensor_map.hpp"
#include "kernels/nvidia/skinny_gemm/sm90_device.hpp"
#include "kernels/skinny_gemm/skinny_launch_detail.hpp"

namespace dsv4::kernels::skinny {

void launch_sm90_skinny_kernel(const SkinnyPlan& plan, const SkinnyBuffers& io, void* workspace,
                               std::size_t declared_workspace_bytes, port::Stream& stream) {
  const SkinnyShape& s = plan.shape;
  const SkinnyKernelArgs ka = kernel_args(plan);
  if (!ka.mma) throw port::Error("skinny_gemm: a portable plan reached the sm_90 launcher [" + plan.describe() + "]");
  detail::Sm90Params p{};
  static_cast<detail::KParams&>(p) = kernel_params(plan, io, workspace);
  p.cluster_reduce = ka.cluster_blocks > 1 ? 1 : 0;
  p.warps_m = ka.mma_warps_m;
  p.warps_n = ka.mma_warps_n;
  p.panels = ka.mma_panels;
  const bool f16 = s.dtype == ElemType::f16;
  detail::Sm90KernelFn kernel = nullptr;
  if (ka.producer_warp) {  // b as the MMA's A operand: boxes of tile_m (64 or 128) rows of b and a slice's rows of a
    kernel = detail::producer_warp_kernel(f16, ka.mma_n_blocks, ka.tile_m, ka.mma_stages, ka.mma_panels);
    const int rows_a = 8 * ka.mma_n_blocks;  // a slice's rows of a
    if (ka.mma_panels > 1) {
      p.tmap_b = port::make_tensor_map_panels(io.b, s.m, s.k, s.k * 2, ka.tile_m, ka.mma_panels);
      p.tmap_a = port::make_tensor_map_panels(io.a, s.n, s.k, s.row_stride_a() * 2, rows_a, ka.mma_panels);
    } else {
      p.tmap_b = port::make_tensor_map_2d(io.b, s.m, s.k, s.k * 2, ka.tile_m);
      p.tmap_a = port::make_tensor_map_2d(io.a, s.n, s.k, s.row_stride_a() * 2, rows_a);
    }
  } else if (ka.wgmma) {
    kernel = detail::wgmma_kernel(f16, ka.mma_n_blocks, ka.mma_m_tiles / 4, ka.mma_stages);
    p.tmap_b = port::make_tensor_map_2d(io.b, s.m, s.k, s.k * 2, ka.tile_m);
    p.tmap_a = port::make_tensor_map_2d(io.a, s.n, s.k, s.row_stride_a() * 2, 8 * ka.mma_n_blocks);
  } else {
    kernel = detail::mma_kernel(f16, ka.mma_n_blocks, ka.mma_m_tiles);
  }
  detail::launch_checked(plan, kernel, launch_config(plan, io, workspace, declared_workspace_bytes, stream), p);
}

}  // namespace dsv4::kernels::skinny
