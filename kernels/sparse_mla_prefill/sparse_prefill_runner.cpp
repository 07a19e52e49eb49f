// Kernel-registry entry of sparse_mla_prefill: converts a validated OpCase into a plan and device buffers (q and kv
// repacked with 16-byte-aligned row strides when the case's rows are padded, padding filled with NaN; indices,
// topk_length and sink contiguous; outputs start as the caller's poisoned codes), launches `repeats` times, copies
// the outputs back, and returns the plan as JSON (grid, LDS per region against capacity, workspace 0, tile map:
// rows = tokens, columns = heads x d_v in head-group tiles). The kernel implements the current semantics only
// (lse_units=ln, lonely_lse=+inf); other variants of the reference are refused as CannotImplement. On sim,
// RunOptions::arch selects the emulated profile and a nonzero seed a random schedule.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/kernel_registry.hpp"
#include "kernels/runner_support.hpp"
#include "kernels/port/sim.hpp"
#include "kernels/sparse_mla_prefill/sparse_mla_prefill.hpp"

namespace dsv4::kernels {

namespace {

using namespace sparse_prefill;
constexpr const char* kOp = "sparse_mla_prefill";
constexpr std::uint16_t kBf16NaN = 0x7fc0;

std::int64_t round8(std::int64_t v) { return (v + 7) / 8 * 8; }

std::string attr_str(const OpCase& c, const char* k, const char* dflt) {
  return c.attrs.contains(k) && c.attrs.at(k).is_string() ? c.attrs.at(k).get<std::string>() : std::string(dflt);
}

// Restores the sim options on scope exit.
struct SimOptionsGuard {
  bool sim = port::sim::sim_active();
  port::sim::Options saved = port::sim::options();
  ~SimOptionsGuard() {
    if (sim) port::sim::set_options(saved);
  }
};

Json run_prefill(const OpCase& c, Outputs& outs, const RunOptions& o) {
  const Tensor& q = c.in("q");
  const Tensor& kv = c.in("kv");
  const Tensor& idx = c.in("indices");
  const Tensor* sink = c.has("attn_sink") ? &c.in("attn_sink") : nullptr;
  const Tensor* tl = c.has("topk_length") ? &c.in("topk_length") : nullptr;
  if (q.dim() != 3 || kv.dim() != 3 || idx.dim() != 3 || q.dtype() != DType::BF16 || kv.dtype() != DType::BF16 ||
      idx.dtype() != DType::I32)
    throw InputError(std::string(kOp) + ": q [s_q,h_q,d_qk] bf16, kv [s_kv,1,d_qk] bf16, indices [s_q,1,topk] int32");
  const std::string units = attr_str(c, "lse_units", "ln"), lonely = attr_str(c, "lonely_lse", "+inf");
  if (units != "ln" || lonely != "+inf")
    throw CannotImplement(std::string(kOp) + " kernel implements the current FlashMLA semantics only (lse_units=ln, "
                          "lonely_lse=+inf); the case asks for lse_units=" + units + ", lonely_lse=" + lonely);
  PrefillShape s;
  s.s_q = q.size(0);
  s.h_q = q.size(1);
  s.d_qk = q.size(2);
  s.s_kv = kv.size(0);
  s.topk = idx.size(2);
  s.d_v = c.attrs.contains("d_v") && c.attrs.at("d_v").is_number_integer() ? c.attrs.at("d_v").get<std::int64_t>()
                                                                             : 512;
  const bool q_padded = s.h_q > 1 && q.stride(1) > s.d_qk;
  s.q_stride_h = q_padded ? round8(q.stride(1)) : s.d_qk;
  s.q_stride_s = s.h_q * s.q_stride_h;
  s.kv_stride = s.s_kv > 1 && kv.stride(0) > s.d_qk ? round8(kv.stride(0)) : s.d_qk;
  PrefillOptions opt;
  const auto v = parse_variant(o.variant);
  if (!v) throw unknown_variant(kOp, o.variant);
  opt.variant = *v;
  const port::ArchProfile* arch = &run_arch(kOp, o);
  SimOptionsGuard guard;
  if (guard.sim) {
    port::sim::Options so = guard.saved;
    so.arch = arch->arch;
    if (o.seed) {
      so.schedule = port::sim::Schedule::random;
      so.seed = o.seed;
    }
    port::sim::set_options(so);
  }
  const PrefillPlan plan = make_plan(s, *arch, opt);
  require_plan(kOp, plan);

  // Inputs.
  std::vector<std::uint16_t> hq(static_cast<std::size_t>(std::max<std::int64_t>(1, s.s_q * s.qs())), kBf16NaN);
  for (std::int64_t i = 0; i < s.s_q; ++i)
    for (std::int64_t h = 0; h < s.h_q; ++h)
      for (std::int64_t d = 0; d < s.d_qk; ++d)
        hq[i * s.qs() + h * s.qh() + d] = static_cast<std::uint16_t>(q.code({i, h, d}));
  std::vector<std::uint16_t> hkv(static_cast<std::size_t>(s.s_kv * s.kvs()), kBf16NaN);
  for (std::int64_t r = 0; r < s.s_kv; ++r)
    for (std::int64_t d = 0; d < s.d_qk; ++d) hkv[r * s.kvs() + d] = static_cast<std::uint16_t>(kv.code({r, 0, d}));
  std::vector<float> hsink;
  if (sink)
    for (std::int64_t h = 0; h < s.h_q; ++h) hsink.push_back(static_cast<float>(sink->get({h})));
  port::DeviceBuffer dq = upload_vector(hq, 16), dkv = upload_vector(hkv, 16), didx = upload_codes(idx, 16),
                     dsink = upload_vector(hsink, 16), dtl = tl ? upload_codes(*tl, 16) : upload_bytes(nullptr, 0, 16);

  // Outputs: the caller's poisoned codes.
  Tensor& out = outs.at("out");
  Tensor& ml = outs.at("max_logits");
  Tensor& lse = outs.at("lse");
  port::DeviceBuffer dout = upload_codes(out, 16), dml = upload_codes(ml, 16), dlse = upload_codes(lse, 16);

  const PrefillBuffers io{dq.data(), dkv.data(), didx.as<int>(), sink ? dsink.as<float>() : nullptr,
                          tl ? dtl.as<int>() : nullptr, dout.data(), dml.as<float>(), dlse.as<float>()};
  PrefillArgs args;
  args.sm_scale = static_cast<float>(c.attrs.at("sm_scale").get<double>());
  launch_repeated(o, [&](port::Stream& stream) { launch_sparse_mla_prefill(plan, io, args, stream); });

  download_codes(dout, out);
  download_codes(dml, ml);
  download_codes(dlse, lse);

  Json j = plan_json({.kernel = kOp,
                      .variant = variant_name(plan.options.variant),
                      .grid = {plan.grid_x, plan.grid_y, 1},
                      .block = plan.block,
                      .lds_bytes = lds_json(plan.lds_regions()),
                      .lds_capacity = plan.lds_capacity,
                      .workspace_bytes = plan.workspace_bytes,
                      .tile_map = tile_map_json("out", 1, "token (workgroup row)", plan.heads * s.d_v,
                                                "head group (heads x d_v)", 1),
                      .text = plan.describe()});
  j["lds_bytes"]["total"] = plan.lds_bytes;
  j["tile_k"] = plan.tile_k;
  j["k_tiles"] = plan.k_tiles;
  j["heads_per_workgroup"] = plan.heads;
  return j;
}

}  // namespace

void register_sparse_mla_prefill_kernel(KernelRegistry& r) {
  KernelEntry e;
  e.op = kOp;
  e.summary = "sparse MLA prefill: per (token, head group) gather of top-k bf16 kv rows into LDS tiles, fp32 online "
              "softmax with sink and topk_length, invalid indices never dereferenced";
  e.variants = {"default", "clamp_invalid", "drop_sink", "log2_lse"};
  e.run = run_prefill;
  e.check_shapes = {Json{{"s_q", 3}, {"h_q", 8}, {"d_qk", 576}, {"s_kv", 96}, {"topk", 40}},
                    Json{{"s_q", 2}, {"h_q", 4}, {"d_qk", 512}, {"s_kv", 64}, {"topk", 64}, {"sink", false}}};
  e.plan_sweeps = {sparse_prefill::sparse_prefill_plan_sweep()};
  r.add(std::move(e));
}

}  // namespace dsv4::kernels
