// Kernel-registry entry of skinny_gemm: converts a validated OpCase (a may have row stride Kap >= K) into a plan
// and device buffers, launches `repeats` times through a caller-owned workspace, copies the output back into the
// caller's (poisoned) tensor, and returns the plan as JSON (grid, LDS per phase, workspace, shards, tile map).
// Variants: default, readback_one_pass, optimistic_workspace_predicate, static_shared_workspace (bug zoo). On sim,
// RunOptions::arch selects the emulated profile and a nonzero seed a random schedule.
#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "kernels/kernel_registry.hpp"
#include "kernels/runner_support.hpp"
#include "kernels/skinny_gemm/skinny_arch_layout.hpp"
#include "kernels/skinny_gemm/skinny_gemm.hpp"

namespace dsv4::kernels {

namespace {

using namespace skinny;
constexpr const char* kOp = "skinny_gemm";

std::optional<SkinnyVariant> parse_variant(const std::string& v) {
  if (v == "default" || v == "fixed") return SkinnyVariant::fixed;
  if (v == "readback_one_pass") return SkinnyVariant::readback_one_pass;
  if (v == "optimistic_workspace_predicate") return SkinnyVariant::optimistic_workspace_predicate;
  if (v == "static_shared_workspace") return SkinnyVariant::static_shared_workspace;
  return std::nullopt;
}

std::vector<std::uint16_t> codes_2d(const Tensor& t, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                                    std::uint16_t pad) {
  std::vector<std::uint16_t> v(static_cast<std::size_t>(std::max<std::int64_t>(1, rows * ld)), pad);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c)
      v[r * ld + c] = static_cast<std::uint16_t>(t.dim() == 1 ? t.code({c}) : t.code({r, c}));
  return v;
}

Json run_skinny(const OpCase& c, Outputs& outs, const RunOptions& o) {
  const Tensor& a = c.in("a");
  const Tensor& b = c.in("b");
  const Tensor* bias = c.inputs.count("bias") ? &c.inputs.at("bias") : nullptr;
  Tensor& out = outs.at("out");
  SkinnyShape s;
  s.n = a.size(0);
  s.k = a.size(1);
  s.m = b.size(0);
  s.lda = (a.stride(1) == 1 && a.stride(0) >= s.k && a.stride(0) % 8 == 0) ? a.stride(0) : s.k;
  s.dtype = a.dtype() == DType::F16 ? ElemType::f16 : ElemType::bf16;
  if (bias) s.bias = bias->dim() == 1 ? BiasShape::m : (bias->size(0) == 1 ? BiasShape::one_m : BiasShape::nm);
  SkinnyOptions opt;
  const auto v = parse_variant(o.variant);
  if (!v) throw unknown_variant(kOp, o.variant);
  opt.variant = *v;
  const port::ArchProfile& arch = run_arch(kOp, o);
  const SimRunScope sim_run(arch, o);
  const SkinnyPlan plan = make_plan(s, arch, opt);
  require_plan(kOp, plan);
  const std::uint16_t nan = s.dtype == ElemType::f16 ? 0x7e00 : 0x7fc0;
  const auto ha = codes_2d(a, s.n, s.k, s.row_stride_a(), nan);
  const auto hb = codes_2d(b, s.m, s.k, s.k, nan);
  port::DeviceBuffer da = port::DeviceBuffer::from_host<std::uint16_t>(ha);
  port::DeviceBuffer db = port::DeviceBuffer::from_host<std::uint16_t>(hb);
  port::DeviceBuffer dbias;
  if (bias) {
    const std::int64_t br = bias->dim() == 1 ? 1 : bias->size(0);
    dbias = port::DeviceBuffer::from_host<std::uint16_t>(codes_2d(*bias, br, s.m, s.m, nan));
  }
  const auto hout = codes_2d(out, s.n, s.m, s.m, nan);
  port::DeviceBuffer dout = port::DeviceBuffer::from_host<std::uint16_t>(hout);
  port::Stream stream;
  const SkinnyBuffers io{da.data(), db.data(), bias ? dbias.data() : nullptr, dout.data()};
  std::optional<port::DeviceBuffer> ws;
  if (opt.variant != SkinnyVariant::static_shared_workspace) {
    ws.emplace(std::max(plan.workspace_bytes, kCounterRegionBytes));
    initialize_workspace(plan, *ws, stream);
  }
  for (int r = 0; r < std::max(1, o.repeats); ++r) {
    if (ws) launch_skinny_gemm(plan, io, ws->data(), ws->bytes(), stream);
    else launch_skinny_gemm(plan, io, static_shared_workspace().data(), static_shared_workspace().bytes(), stream);
  }
  stream.synchronize();
  const auto res = dout.to_host<std::uint16_t>();
  for (std::int64_t n = 0; n < s.n; ++n)
    for (std::int64_t m = 0; m < s.m; ++m) out.set_code({n, m}, res[n * s.m + m]);

  PlanFields f{.kernel = kOp,
               .variant = variant_name(plan.options.variant),
               .grid = {plan.grid, 1, 1},
               .block = plan.block,
               .lds_bytes = lds_json(plan.lds_phases()),
               .lds_capacity = plan.lds_capacity,
               .workspace_bytes = plan.workspace_bytes,
               .text = plan.describe()};
  const SkinnyTileMap tm = plan.tile_map();
  f.tile_map = tile_map_json("out", tm.rows_per_n_tile, "N-tile", tm.cols_per_m_tile, "M-tile");
  Json j = plan_json(f);
  j["k_shards"] = plan.k_rnd;
  j["k_shard_size"] = plan.k_shard;
  if (plan.arch_layout) j[plan.arch_layout->report_key()] = plan.arch_layout->report(plan);  // e.g. sm_90's tensor_core
  return j;
}

}  // namespace

namespace skinny {  // skinny_plan_sweep.cpp
PlanSweep skinny_plan_sweep();
Json onto_plan_boundaries(std::mt19937_64& rng, Json shape);
}  // namespace skinny

void register_skinny_gemm_kernel(KernelRegistry& r) {
  KernelEntry e;
  e.op = kOp;
  e.summary = "split-K skinny GEMM (wvSplitKrc protocol): fp32 slabs, release/acquire counter, batched LDS readback";
  e.variants = {"default", "readback_one_pass", "optimistic_workspace_predicate", "static_shared_workspace"};
  e.run = run_skinny;
  e.check_shapes = {Json{{"N", 13}, {"K", 520}, {"M", 32}, {"dtype", "bf16"}, {"bias", "m"}},
                    Json{{"N", 65}, {"K", 1032}, {"M", 24}, {"Kap", 1048}, {"dtype", "fp16"}, {"bias", "nm"}}};
  e.plan_sweeps = {skinny::skinny_plan_sweep()};
  e.onto_plan_boundaries = skinny::onto_plan_boundaries;
  r.add(std::move(e));
}

}  // namespace dsv4::kernels
