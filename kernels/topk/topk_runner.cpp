// Kernel-registry entry of topk: converts a validated OpCase into a plan and device buffers (the output starts as a
// copy of the caller's poisoned tensor, so an unwritten slot stays poison), launches, copies the indices back and
// returns the plan as JSON (LDS carves against the profile's capacity, one block per row as the tile map).
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "kernels/kernel_registry.hpp"
#include "kernels/runner_support.hpp"
#include "kernels/port/sim.hpp"
#include "kernels/topk/topk_kernel.hpp"

namespace dsv4::kernels {

namespace {

using namespace topk;
constexpr const char* kOp = "topk";

std::vector<int> to_i32(const Tensor& t) {
  std::vector<int> v(static_cast<std::size_t>(t.numel()));
  for (std::int64_t i = 0; i < t.numel(); ++i) v[i] = static_cast<int>(t.get_linear(i));
  return v;
}

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
  if (!v) throw InputError("topk: unknown variant '" + o.variant + "' (default, raw_bits_key, neg_inf_valid)");
  opt.variant = *v;
  const port::ArchProfile& arch = run_arch(kOp, o);
  opt.wave_size = effective_wave_size(arch);
  const TopkPlan plan = make_topk_plan(shape, arch, opt);
  if (!plan.ok) throw CannotImplement("topk kernel cannot implement this case: " + plan.reason);

  const Tensor lc = logits.contiguous();
  port::DeviceBuffer dl(std::max<std::size_t>(4, lc.numel() * 4));
  if (lc.numel()) dl.copy_from_host(lc.data(), lc.numel() * 4);
  const std::vector<int> rs = to_i32(c.in("row_starts")), re = to_i32(c.in("row_ends"));
  port::DeviceBuffer ds(std::max<std::size_t>(4, rs.size() * 4)), de(std::max<std::size_t>(4, re.size() * 4));
  if (!rs.empty()) ds.copy_from_host(rs.data(), rs.size() * 4), de.copy_from_host(re.data(), re.size() * 4);
  Tensor& out = outs.at("topk_indices");
  std::vector<int> oh(static_cast<std::size_t>(out.numel()));
  for (std::int64_t i = 0; i < out.numel(); ++i) oh[i] = static_cast<int>(static_cast<std::uint32_t>(out.code_linear(i)));
  port::DeviceBuffer dout(std::max<std::size_t>(4, oh.size() * 4));
  if (!oh.empty()) dout.copy_from_host(oh.data(), oh.size() * 4);

  port::Stream stream;
  const TopkBuffers io{static_cast<const float*>(dl.data()), static_cast<const int*>(ds.data()),
                       static_cast<const int*>(de.data()), static_cast<int*>(dout.data())};
  for (int r = 0; r < std::max(1, o.repeats); ++r) launch_topk(plan, io, stream);
  stream.synchronize();
  if (!oh.empty()) dout.copy_to_host(oh.data(), oh.size() * 4);
  for (std::int64_t i = 0; i < out.numel(); ++i) out.set_code_linear(i, static_cast<std::uint32_t>(oh[i]));

  Json j;
  j["kernel"] = "topk";
  j["variant"] = variant_name(plan.options.variant);
  j["algorithm"] = "radix select 11/11/10 bits (LDS histogram + block suffix scan), then one selection pass";
  j["grid"] = {plan.grid, 1, 1};
  j["block"] = {plan.block, 1, 1};
  j["wave_size"] = plan.wave_size;
  Json lds = Json::object();
  for (const auto& cv : plan.lds) lds[cv.name] = cv.bytes;
  j["lds_bytes"] = lds;
  j["lds_capacity"] = plan.lds_capacity;
  j["workspace_bytes"] = 0;
  j["tile_map"] = {{"output", "topk_indices"}, {"row_tile", 1}, {"row_name", "row (one block per row)"},
                   {"col_tile", shape.topk}, {"col_name", "slots"}};
  j["text"] = plan.describe();
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
  r.add(std::move(e));
}

}  // namespace dsv4::kernels
