// Kernel-registry entry of topk: converts a validated OpCase into a plan and device buffers (the output starts as a
// copy of the caller's poisoned tensor, so an unwritten slot stays poison), launches, copies the indices back and
// returns the plan as JSON (LDS carves against the profile's capacity, one block per row as the tile map).
#include <fmt/format.h>

#include <algorithm>

#include "kernels/kernel_registry.hpp"
#include "kernels/runner_support.hpp"
#include "kernels/topk/topk_kernel.hpp"

namespace dsv4::kernels {

namespace {

using namespace topk;
constexpr const char* kOp = "topk";

Json run_topk(const OpCase& c, Outputs& outs, const RunOptions& o) {
  const Tensor& logits = c.in("logits");
  if (logits.dim() != 2 || logits.dtype() != DType::F32) throw InputError("topk: logits must be F32 [R, C]");
  TopkShape shape;
  shape.rows = logits.size(0);
  shape.cols = logits.size(1);
  shape.topk = c.attrs.at("topk").get<std::int64_t>();
  shape.index_base = c.attrs.value("index_base", std::string("absolute")) == "row_relative" ? IndexBase::row_relative
                                                                                             : IndexBase::absolute;
  shape.select_neg_inf = c.attrs.value("masked", std::string("minus1")) == "select_neg_inf";
  TopkOptions opt;
  const auto v = parse_topk_variant(o.variant);
  if (!v) throw unknown_variant("topk", o.variant);
  opt.variant = *v;
  const port::ArchProfile& arch = run_arch(kOp, o);
  opt.wave_size = effective_wave_size(arch);
  const TopkPlan plan = make_topk_plan(shape, arch, opt);
  require_plan("topk", plan);

  // Every tensor here has 4-byte elements (F32 logits, I32 row bounds and indices).
  Tensor& out = outs.at("topk_indices");
  port::DeviceBuffer dl = upload_contiguous(logits, 4), ds = upload_codes(c.in("row_starts"), 4),
                     de = upload_codes(c.in("row_ends"), 4), dout = upload_codes(out, 4);

  const TopkBuffers io{static_cast<const float*>(dl.data()), static_cast<const int*>(ds.data()),
                       static_cast<const int*>(de.data()), static_cast<int*>(dout.data())};
  launch_repeated(o, [&](port::Stream& stream) { launch_topk(plan, io, stream); });
  download_codes(dout, out);

  PlanFields f = plan_fields(kOp, plan);
  f.lds_bytes = lds_json(plan.lds);
  f.lds_capacity = plan.lds_capacity;
  f.tile_map = tile_map_json("topk_indices", 1, "row (one block per row)", shape.topk, "slots");
  Json j = plan_json(f);
  j["algorithm"] = "radix select 11/11/10 bits (LDS histogram + block suffix scan), then one selection pass";
  return j;
}

}  // namespace

void register_topk_kernel(KernelRegistry& r) {
  KernelEntry e;
  e.op = kOp;
  e.summary = "indexer top-k: one block per row, 3-pass radix select (11/11/10 bits, LDS histogram), set semantics, "
              "-1 padding";
  e.variants = {"default", "raw_bits_key", "neg_inf_valid"};
  e.run = run_topk;
  e.check_shapes = {Json{{"R", 6}, {"C", 100}, {"topk", 16}}, Json{{"R", 4}, {"C", 700}, {"topk", 512}},
                    Json{{"R", 3}, {"C", 10}, {"topk", 32}}};
  e.plan_sweeps = {topk::topk_plan_sweep()};
  r.add(std::move(e));
}

}  // namespace dsv4::kernels
