// Kernel-registry entry of indexer_logits (ops.md §4.1): checks the case (shapes, ranges 0 <= ks <= ke <= S_kv,
// kv_sf >= 0: InputError naming the argument), builds the plan (refusal = CannotImplement with the plan's reason),
// packs q/kv codes, scales, weights and ranges into device buffers, launches into the caller's poisoned logits laid
// out with the plan's padded row stride (padding 0xA5 bytes, checked untouched afterwards) and copies the logical
// elements back. Returns the plan as JSON.
#include <fmt/format.h>

#include <cmath>

#include "kernels/indexer_logits/indexer_logits.hpp"
#include "kernels/indexer_logits/indexer_runner_common.hpp"

namespace dsv4::kernels {

namespace {

using namespace indexer;

constexpr const char* kOp = "indexer_logits";

void require(bool ok, const char* arg, const std::string& rule) {
  if (!ok) throw InputError(fmt::format("{}: argument '{}': {}", kOp, arg, rule));
}

Json run_indexer(const OpCase& c, Outputs& outs, const RunOptions& o) {
  const Tensor& q = c.in("q");
  const Tensor& kv = c.in("kv");
  const Tensor& sf = c.in("kv_sf");
  const Tensor& w = c.in("weights");
  const Tensor& ks = c.in("cu_seq_len_k_start");
  const Tensor& ke = c.in("cu_seq_len_k_end");
  require(q.dim() == 3, "q", "must be [S, H, D]");
  require(kv.dim() == 2 && kv.dtype() == q.dtype(), "kv", "must be [S_kv, D] with q's fp8 dtype");
  IndexerShape s;
  s.fp8 = fp8_of(q, kOp);
  s.s = q.size(0);
  s.h = q.size(1);
  s.d = q.size(2);
  s.s_kv = kv.size(0);
  require(kv.size(1) == s.d, "kv", "must have D = q.size(2) columns");
  require(sf.dim() == 1 && sf.size(0) == s.s_kv && sf.dtype() == DType::F32, "kv_sf", "must be F32 [S_kv]");
  require(w.dim() == 2 && w.size(0) == s.s && w.size(1) == s.h && w.dtype() == DType::F32, "weights", "must be F32 [S, H]");
  require(ks.dim() == 1 && ks.size(0) == s.s && ks.dtype() == DType::I32, "cu_seq_len_k_start", "must be I32 [S]");
  require(ke.dim() == 1 && ke.size(0) == s.s && ke.dtype() == DType::I32, "cu_seq_len_k_end", "must be I32 [S]");
  s.clean_logits = c.attrs.value("clean_logits", true);
  s.max_seqlen_k = c.attrs.value("max_seqlen_k", std::int64_t{0});
  s.dot_bf16 = c.attrs.value("dot", std::string("fp32")) == "bf16";
  const std::vector<std::int64_t> lo = int_values(ks), hi = int_values(ke);
  for (std::int64_t i = 0; i < s.s; ++i) {
    require(0 <= lo[i] && lo[i] <= hi[i] && hi[i] <= s.s_kv, "cu_seq_len_k_start",
            fmt::format("row {}: need 0 <= ks = {} <= ke = {} <= S_kv = {}", i, lo[i], hi[i], s.s_kv));
    require(s.max_seqlen_k <= 0 || hi[i] - lo[i] <= s.max_seqlen_k, "max_seqlen_k",
            fmt::format("row {}: ke − ks = {} exceeds max_seqlen_k = {}", i, hi[i] - lo[i], s.max_seqlen_k));
  }
  const std::vector<double> sfv = sf.to_f64();
  for (std::size_t j = 0; j < sfv.size(); ++j)
    require(sfv[j] >= 0, "kv_sf", fmt::format("kv_sf[{}] = {} must be >= 0 (applied after the ReLU)", j, sfv[j]));
  IndexerVariant v;
  if (!parse_variant(o.variant, v)) throw unknown_variant(kOp, o.variant);
  const port::ArchProfile& arch = run_arch(kOp, o);
  const IndexerPlan plan = make_indexer_plan(s, arch, v);
  require_plan(kOp, plan);
  Tensor& out = outs.at("logits");
  require(out.dim() == 2 && out.size(0) == s.s && out.size(1) == plan.width && out.dtype() == DType::F32, "logits",
          fmt::format("output must be F32 [S, {}]", plan.width));

  port::DeviceBuffer dq = upload_codes(q, 16), dkv = upload_codes(kv, 16),
                     dsf = upload_codes(sf, 16), dw = upload_codes(w, 16),
                     dks = upload_codes(ks, 16), dke = upload_codes(ke, 16);
  WordLayout logits = padded_logits(out, plan.row_stride);
  const IndexerBuffers io{static_cast<const std::uint8_t*>(dq.data()), static_cast<const std::uint8_t*>(dkv.data()),
                          dsf.as<float>(), dw.as<float>(), dks.as<std::int32_t>(), dke.as<std::int32_t>(),
                          logits.dev.as<float>()};
  launch_repeated(o, [&](port::Stream& stream) { launch_indexer_logits(plan, io, stream); });
  logits.copy_back(out);

  Json j = common_plan_json(plan, kOp, plan.describe());
  j["row_padding_untouched"] = logits.unmapped_words_equal(WordLayout::kPadWord);
  j["wave_size"] = effective_wave_size(arch);
  return j;
}

}  // namespace

void register_indexer_logits_kernel(KernelRegistry& r) {
  KernelEntry e;
  e.op = kOp;
  e.summary = "lightning-indexer logits (prefill): one block per (query row, 128-key tile), fp32 q in LDS, one thread "
              "per key, fp32 relu-weighted head sum";
  e.variants = {"default", "ke_off_by_one"};
  e.run = run_indexer;
  e.check_shapes = {Json{{"S", 5}, {"S_kv", 37}, {"H", 8}, {"D", 32}},
                    Json{{"S", 3}, {"S_kv", 150}, {"H", 16}, {"D", 128}},
                    Json{{"S", 3}, {"S_kv", 20}, {"H", 4}, {"D", 64}, {"dtype", "e4m3fnuz"}}};
  e.plan_sweeps = {indexer::indexer_plan_sweep()};
  r.add(std::move(e));
}

}  // namespace dsv4::kernels
