// Launch of an sm_90 skinny plan's tensor-core kernel (Sm90Layout::launch, the plan's arch layout): the sm_90 rules
// a launch checks (slices and clusters on the warpgroup kernels only), the portable parameters plus the sm_90 ones
// (warps, panels, cluster reduction, the tensor maps of a and b for the warpgroup kernels' bulk copies), the kernel
// instance of the plan's layout, and the launch. launch_skinny_gemm (kernels/skinny_gemm/skinny_launch.cpp) admits
// the plan and dispatches here for plans whose arch layout is an Sm90Layout.
#include "kernels/port/hip_port.hpp"
#include "kernels/port/async_copy.hpp"
#include "kernels/nvidia/port/tensor_map.hpp"
#include "kernels/nvidia/skinny_gemm/sm90_device.hpp"
#include "kernels/skinny_gemm/skinny_launch_detail.hpp"

namespace dsv4::kernels::skinny {

void Sm90Layout::launch(const SkinnyPlan& plan, const SkinnyBuffers& io, void* workspace,
                        std::size_t declared_workspace_bytes, port::Stream& stream) const {
  const SkinnyShape& s = plan.shape;
  const SkinnyKernelArgs ka = kernel_args(plan);
  const Sm90Layout& l = *this;
  if (plan.arch_layout.get() != this)
    throw port::Error("skinny_gemm: an sm_90 layout launched for a plan it is not the layout of [" + plan.describe() + "]");
  if (plan.n_slices > 1 && !l.wgmma && !l.producer_warp)
    throw port::Error("skinny_gemm: output-row slices are implemented by the warpgroup kernels only [" +
                      plan.describe() + "]");
  if (l.cluster_reduce && !(l.wgmma || l.producer_warp))
    throw port::Error("skinny_gemm: a cluster reduction needs a warpgroup kernel [" + plan.describe() + "]");
  if (l.cluster_blocks != (l.cluster_reduce ? plan.k_rnd : 1))
    throw port::Error("skinny_gemm: a cluster reduction launches one cluster per tile's k_rnd shards [" +
                      plan.describe() + "]");
  detail::Sm90Params p{};
  static_cast<detail::KParams&>(p) = kernel_params(plan, io, workspace);
  p.cluster_reduce = l.cluster_blocks > 1 ? 1 : 0;
  p.warps_m = l.mma_warps_m;
  p.warps_n = l.mma_warps_n;
  p.panels = l.mma_panels;
  const bool f16 = s.dtype == ElemType::f16;
  detail::Sm90KernelFn kernel = nullptr;
  if (l.producer_warp) {  // b as the MMA's A operand: boxes of tile_m (64 or 128) rows of b and a slice's rows of a
    kernel = detail::producer_warp_kernel(f16, l.mma_n_blocks, ka.tile_m, l.mma_stages, l.mma_panels);
    const int rows_a = 8 * l.mma_n_blocks;  // a slice's rows of a
    if (l.mma_panels > 1) {
      p.tmap_b = port::make_tensor_map_panels(io.b, s.m, s.k, s.k * 2, ka.tile_m, l.mma_panels);
      p.tmap_a = port::make_tensor_map_panels(io.a, s.n, s.k, s.row_stride_a() * 2, rows_a, l.mma_panels);
    } else {
      p.tmap_b = port::make_tensor_map_2d(io.b, s.m, s.k, s.k * 2, ka.tile_m);
      p.tmap_a = port::make_tensor_map_2d(io.a, s.n, s.k, s.row_stride_a() * 2, rows_a);
    }
  } else if (l.wgmma) {
    kernel = detail::wgmma_kernel(f16, l.mma_n_blocks, l.mma_m_tiles / 4, l.mma_stages);
    p.tmap_b = port::make_tensor_map_2d(io.b, s.m, s.k, s.k * 2, ka.tile_m);
    p.tmap_a = port::make_tensor_map_2d(io.a, s.n, s.k, s.row_stride_a() * 2, 8 * l.mma_n_blocks);
  } else {
    kernel = detail::mma_kernel(f16, l.mma_n_blocks, l.mma_m_tiles);
  }
  port::LaunchConfig cfg = launch_config(plan, io, workspace, declared_workspace_bytes, stream);
  cfg.cluster_blocks = static_cast<unsigned>(l.cluster_blocks);
  detail::launch_checked(plan, kernel, cfg, p);
}

}  // namespace dsv4::kernels::skinny
