// Host launcher of the skinny GEMM: admission (refuse before launch, naming the limit), kernel arguments and the
// launch configuration from the plan, caller-owned workspace initialisation, the pool / static-workspace routes, and
// the dispatch to the portable kernel or to the plan's arch layout (skinny_arch_layout.hpp: sm_90 plans).
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/skinny_gemm/skinny_arch_layout.hpp"
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
  if (plan.n_slices > 1 && !plan.arch_layout)
    throw port::Error("skinny_gemm: output-row slices are implemented by arch layouts only, not the portable kernel [" +
                      plan.describe() + "]");
  a.tm_shift = exact_log2(plan.tile_m, "tile_m");
  a.readback_stage_shift = exact_log2(plan.rows_per_n_tile * plan.tile_m, "readback N-tile (rows_per_n_tile * tile_m)");
  a.readback_batch_shards = plan.readback_batch_shards;
  a.readback_pass_outputs = plan.readback_pass_outputs;
  a.counter_offset = plan.counter_offset;
  a.partial_offset = plan.workspace_need_bytes - plan.partial_bytes;
  a.partial_bytes = plan.partial_bytes;
  a.lds_bytes = plan.lds_alloc_bytes;
  a.grid = plan.grid;
  a.block = plan.block;
  a.overlap_previous = plan.overlap_previous;
  return a;
}

detail::KParams kernel_params(const SkinnyPlan& plan, const SkinnyBuffers& io, void* workspace) {
  const SkinnyShape& s = plan.shape;
  const SkinnyKernelArgs ka = kernel_args(plan);
  detail::KParams p{};
  p.a = static_cast<const std::uint16_t*>(io.a);
  p.b = static_cast<const std::uint16_t*>(io.b);
  p.bias = static_cast<const std::uint16_t*>(io.bias);
  p.out = static_cast<std::uint16_t*>(io.out);
  p.counters = reinterpret_cast<int*>(static_cast<unsigned char*>(workspace) + ka.counter_offset);
  p.partials = reinterpret_cast<float*>(static_cast<unsigned char*>(workspace) + ka.partial_offset);
  p.n = static_cast<int>(s.n);
  p.m = static_cast<int>(s.m);
  p.k = static_cast<int>(s.k);
  p.lda = static_cast<int>(s.row_stride_a());
  p.bias_kind = s.bias == BiasShape::none ? 0 : (s.bias == BiasShape::nm ? 2 : 1);
  p.n_p2 = ka.n_p2;
  p.tile_m = ka.tile_m;
  p.k_groups = ka.k_groups;
  p.k_chunk = ka.k_chunk;
  p.chunks_per_shard = ka.chunks_per_shard;
  p.k_rnd = static_cast<int>(ka.k_rnd);
  p.tiles_m = static_cast<int>(ka.tiles_m);
  p.n_slices = ka.n_slices;
  p.slice_rows = ka.slice_rows;
  p.batch_shards = ka.readback_batch_shards;
  p.pass_outs = ka.readback_pass_outputs;
  p.lds_floats = static_cast<int>(ka.lds_bytes / 4);
  p.tm_shift = ka.tm_shift;
  p.stage_shift = ka.readback_stage_shift;
  return p;
}

port::LaunchConfig launch_config(const SkinnyPlan& plan, const SkinnyBuffers& io, void* workspace,
                                 std::size_t declared_workspace_bytes, port::Stream& stream) {
  const SkinnyShape& s = plan.shape;
  const SkinnyKernelArgs ka = kernel_args(plan);
  const std::size_t elem = 2;
  const std::size_t a_bytes = (static_cast<std::size_t>(s.n - 1) * s.row_stride_a() + s.k) * elem;
  const std::size_t bias_elems =
      s.bias == BiasShape::none ? 0 : (s.bias == BiasShape::nm ? static_cast<std::size_t>(s.n * s.m) : s.m);
  std::vector<port::BufferRange> ranges = {
      port::reads(io.a, a_bytes, "a"), port::reads(io.b, static_cast<std::size_t>(s.m * s.k) * elem, "b"),
      port::writes(io.out, static_cast<std::size_t>(s.n * s.m) * elem, "out")};
  if (declared_workspace_bytes > 0) ranges.push_back(port::reads_writes(workspace, declared_workspace_bytes, "workspace"));
  if (bias_elems) ranges.push_back(port::reads(io.bias, bias_elems * elem, "bias"));
  return port::LaunchConfig{port::Dim3(static_cast<unsigned>(ka.grid)), port::Dim3(static_cast<unsigned>(ka.block)),
                            ka.lds_bytes, &stream, s.dtype == ElemType::f16 ? "skinny_gemm<fp16>" : "skinny_gemm<bf16>",
                            std::move(ranges), ka.overlap_previous, /*cluster_blocks=*/1u};
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
  if (plan.arch_layout) plan.arch_layout->launch(plan, io, workspace, plan.workspace_bytes, stream);
  else launch_skinny_kernel(plan, io, workspace, plan.workspace_bytes, stream);
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
