// Host launcher of the skinny GEMM: admission (refuse before launch, naming the limit), kernel arguments from the
// plan, caller-owned workspace initialisation, and the pool / static-workspace routes.
#include <cstdint>
#include <string>

#include "kernels/skinny_gemm/skinny_gemm.hpp"
#include "kernels/skinny_gemm/skinny_launch_detail.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::kernels::skinny {

namespace {
// log2 of a plan's power-of-two extent (the epilogues shift instead of dividing).
int exact_log2(int v, const char* what) {
  int l = 0;
  while ((1 << l) < v) ++l;
  if (v < 1 || (1 << l) != v)
    throw port::Error(std::string("skinny_gemm: ") + what + " = " + std::to_string(v) + " is not a power of two");
  return l;
}
}  // namespace

SkinnyKernelArgs kernel_args(const SkinnyPlan& plan) {
  SkinnyKernelArgs a;
  a.k_rnd = plan.k_rnd;
  a.k_shard = plan.k_shard;
  a.tiles_m = plan.tiles_m;
  a.k_chunk = plan.k_chunk;
  a.chunks_per_shard = plan.chunks_per_shard;
  a.tile_m = plan.tile_m;
  a.n_p2 = plan.n_p2;
  a.k_groups = plan.k_groups;
  a.rows_per_n_tile = plan.rows_per_n_tile;
  a.n_slices = plan.n_slices;
  a.slice_rows = plan.slice_rows;
  if (plan.n_slices > 1 && !plan.wgmma && !plan.producer_warp)
    throw port::Error("skinny_gemm: output-row slices are implemented by the warpgroup kernels only [" + plan.describe() + "]");
  a.tm_shift = exact_log2(plan.tile_m, "tile_m");
  a.readback_stage_shift = exact_log2(plan.rows_per_n_tile * plan.tile_m, "readback N-tile (rows_per_n_tile * tile_m)");
  a.readback_batch_shards = plan.readback_batch_shards;
  a.readback_pass_outputs = plan.readback_pass_outputs;
  a.mma = plan.mma;
  a.wgmma = plan.wgmma;
  a.producer_warp = plan.producer_warp;
  a.mma_warps_m = plan.mma_warps_m;
  a.mma_warps_n = plan.mma_warps_n;
  a.mma_m_tiles = plan.mma_m_tiles;
  a.mma_n_blocks = plan.mma_n_blocks;
  a.mma_stages = plan.mma_stages;
  a.mma_panels = plan.mma_panels;
  a.counter_offset = plan.counter_offset;
  a.partial_offset = plan.workspace_need_bytes - plan.partial_bytes;
  a.partial_bytes = plan.partial_bytes;
  a.lds_bytes = plan.lds_alloc_bytes;
  a.grid = plan.grid;
  a.block = plan.block;
  a.overlap_previous = plan.overlap_previous;
  a.cluster_blocks = plan.cluster_blocks;
  if (plan.cluster_reduce && (!(plan.wgmma || plan.producer_warp) || plan.cluster_blocks != plan.k_rnd))
    throw port::Error("skinny_gemm: a cluster reduction needs a warpgroup kernel and one cluster per tile's k_rnd "
                      "shards [" + plan.describe() + "]");
  return a;
}

void initialize_workspace(const SkinnyPlan& plan, port::DeviceBuffer& workspace, port::Stream& stream) {
  if (plan.workspace_bytes == 0) return;  // a cluster-reduced plan: nothing outside the cluster's LDS
  if (workspace.bytes() < plan.workspace_bytes)
    throw InputError("skinny_gemm initialize_workspace: workspace of " + std::to_string(workspace.bytes()) +
                     " B is smaller than the plan's " + std::to_string(plan.workspace_bytes) + " B");
  workspace.memset_async(0, stream, plan.counter_offset, kCounterRegionBytes);  // the whole region: any shape may reuse it
}

namespace {
void admit(const SkinnyPlan& plan, std::size_t workspace_bytes) {
  if (!plan.ok) throw InputError("skinny_gemm refused before launch: " + plan.reason + " [" + plan.describe() + "]");
  if (plan.options.variant != SkinnyVariant::readback_one_pass && plan.lds_readback > plan.lds_alloc_bytes)
    throw InputError("skinny_gemm refused: readback staging " + std::to_string(plan.lds_readback) +
                     " B exceeds the LDS allocation [" + plan.describe() + "]");
  if (workspace_bytes < plan.workspace_bytes)
    throw InputError("skinny_gemm refused before launch: workspace of " + std::to_string(workspace_bytes) +
                     " B is smaller than the plan's " + std::to_string(plan.workspace_bytes) + " B [" +
                     plan.describe() + "]");
}
}  // namespace

void launch_skinny_gemm(const SkinnyPlan& plan, const SkinnyBuffers& io, void* workspace, std::size_t workspace_bytes,
                        port::Stream& stream) {
  admit(plan, workspace_bytes);
  // A plan that needs no workspace (cluster reduction) may be given none.
  if (!io.a || !io.b || !io.out || (plan.shape.bias != BiasShape::none && !io.bias) ||
      (!workspace && plan.workspace_bytes > 0))
    throw InputError("skinny_gemm: null device pointer among a, b, out, bias (shape has bias " +
                     std::string(bias_name(plan.shape.bias)) + ") or workspace (the plan needs " +
                     std::to_string(plan.workspace_bytes) + " B)");
  if (reinterpret_cast<std::uintptr_t>(workspace) % 16 != 0)
    throw InputError("skinny_gemm: workspace pointer is not 16-byte aligned (the split-K slabs are read and written "
                     "16 bytes at a time) [" + plan.describe() + "]");
  // The launch declares the predicate's workspace size: with the optimistic predicate the kernel writes past it.
  launch_skinny_kernel(plan, io, workspace, plan.workspace_bytes, stream);
}

port::DeviceBuffer& static_shared_workspace() {
  static port::DeviceBuffer ws = [] {
    port::DeviceBuffer b(std::size_t{8} << 20);
    b.memset(0);
    return b;
  }();
  return ws;
}

void run_skinny_gemm(const SkinnyPlan& plan, const SkinnyBuffers& io, SkinnyWorkspacePool& pool,
                     port::Stream& stream) {
  if (plan.options.variant == SkinnyVariant::static_shared_workspace) {
    port::DeviceBuffer& ws = static_shared_workspace();
    launch_skinny_gemm(plan, io, ws.data(), ws.bytes(), stream);
    return;
  }
  admit(plan, plan.workspace_bytes);
  const SkinnyWorkspacePool::Lease l = pool.acquire(stream, plan.workspace_bytes);
  launch_skinny_gemm(plan, io, l.ptr, l.bytes, stream);
}

}  // namespace dsv4::kernels::skinny
