// Kernel-registry entry of indexer_logits_paged (ops.md §4.2): checks the case (shapes, 0 <= context_lens <=
// max_context_len and <= max_blocks·block_kv, every block id a row reaches inside the cache, the scales of the
// referenced tokens >= 0: InputError naming the argument), builds the plan (refusal = CannotImplement), copies q,
// the whole cache (unreferenced slots keep whatever the case holds, e.g. NaN poison), weights, context_lens and the
// block table to the device, launches into the caller's poisoned logits with the plan's padded row stride, and
// copies back. Positions k >= context_lens are left as the caller's poison (the contract leaves them unspecified).
#include <fmt/format.h>

#include <cstring>

#include "kernels/indexer_logits/indexer_logits.hpp"
#include "kernels/indexer_logits/indexer_runner_common.hpp"

namespace dsv4::kernels {

namespace {

using namespace indexer;

constexpr const char* kOp = "indexer_logits_paged";

void require(bool ok, const char* arg, const std::string& rule) {
  if (!ok) throw InputError(fmt::format("{}: argument '{}': {}", kOp, arg, rule));
}

Json run_paged(const OpCase& c, Outputs& outs, const RunOptions& o) {
  const Tensor& q = c.in("q");
  const Tensor& cache = c.in("kv_cache");
  const Tensor& w = c.in("weights");
  const Tensor& ctx = c.in("context_lens");
  const Tensor& bt = c.in("block_table");
  require(q.dim() == 4, "q", "must be [B, next_n, H, D]");
  PagedShape s;
  s.fp8 = fp8_of(q, kOp);
  s.b = q.size(0);
  s.next_n = q.size(1);
  s.h = q.size(2);
  s.d = q.size(3);
  require(cache.dim() == 4 && cache.dtype() == DType::U8 && cache.size(2) == 1 && cache.size(3) == s.d + 4,
          "kv_cache", "must be U8 [num_blocks, block_kv, 1, D+4]");
  s.num_blocks = cache.size(0);
  s.block_kv = cache.size(1);
  require(w.dim() == 2 && w.size(0) == s.b * s.next_n && w.size(1) == s.h && w.dtype() == DType::F32, "weights",
          "must be F32 [B·next_n, H]");
  require(ctx.dim() == 2 && ctx.size(0) == s.b && ctx.size(1) == s.next_n && ctx.dtype() == DType::I32, "context_lens",
          "must be I32 [B, next_n] (only 2-D is supported)");
  require(bt.dim() == 2 && bt.size(0) == s.b && bt.dtype() == DType::I32, "block_table", "must be I32 [B, max_blocks]");
  s.max_blocks = bt.size(1);
  require(c.attrs.contains("max_context_len") && c.attrs.at("max_context_len").is_number_integer(), "max_context_len",
          "must be an integer");
  s.max_context_len = c.attrs.at("max_context_len").get<std::int64_t>();
  s.clean_logits = c.attrs.value("clean_logits", false);
  s.dot_bf16 = c.attrs.value("dot", std::string("fp32")) == "bf16";
  IndexerVariant v;
  if (!parse_variant(o.variant, v)) throw unknown_variant(kOp, o.variant);
  const port::ArchProfile& arch = run_arch(kOp, o);
  const PagedPlan plan = make_paged_plan(s, arch, v);
  require_plan(kOp, plan);

  const std::vector<std::uint8_t> cache_bytes = pack_codes(cache);
  const std::vector<std::int64_t> lens = int_values(ctx), table = int_values(bt);
  for (std::int64_t b = 0; b < s.b; ++b)
    for (std::int64_t t = 0; t < s.next_n; ++t) {
      const std::int64_t L = lens[b * s.next_n + t];
      require(0 <= L && L <= s.max_context_len && L <= s.max_blocks * s.block_kv, "context_lens",
              fmt::format("[{}, {}] = {} must lie in [0, min(max_context_len = {}, max_blocks·block_kv = {})]", b, t, L,
                          s.max_context_len, s.max_blocks * s.block_kv));
      for (std::int64_t k = 0; k < L; ++k) {
        const std::int64_t blk = table[b * s.max_blocks + k / s.block_kv];
        require(0 <= blk && blk < s.num_blocks, "block_table",
                fmt::format("[{}, {}] = {} is not a block id in [0, {})", b, k / s.block_kv, blk, s.num_blocks));
        float sc;
        std::memcpy(&sc, cache_bytes.data() + blk * plan.block_bytes + s.block_kv * s.d + 4 * (k % s.block_kv), 4);
        require(sc >= 0, "kv_cache", fmt::format("scale of batch {} token {} = {} must be >= 0", b, k, sc));
      }
    }
  Tensor& out = outs.at("logits");
  require(out.dim() == 2 && out.size(0) == s.b * s.next_n && out.size(1) == s.max_context_len &&
              out.dtype() == DType::F32, "logits", "output must be F32 [B·next_n, max_context_len]");

  port::DeviceBuffer dq = upload_codes(q, 16), dc = upload_vector(cache_bytes, 16), dw = upload_codes(w, 16),
                     dctx = upload_codes(ctx, 16), dbt = upload_codes(bt, 16);
  WordLayout logits = padded_logits(out, plan.row_stride);
  const PagedBuffers io{static_cast<const std::uint8_t*>(dq.data()), static_cast<const std::uint8_t*>(dc.data()),
                        dw.as<float>(), dctx.as<std::int32_t>(), dbt.as<std::int32_t>(), logits.dev.as<float>()};
  launch_repeated(o, [&](port::Stream& stream) { launch_indexer_logits_paged(plan, io, stream); });
  logits.copy_back(out);

  Json j = common_plan_json(plan, kOp, plan.describe());
  j["row_padding_untouched"] = logits.unmapped_words_equal(WordLayout::kPadWord);
  j["wave_size"] = effective_wave_size(arch);
  j["cache_bytes"] = plan.cache_bytes;
  return j;
}

}  // namespace

void register_indexer_logits_paged_kernel(KernelRegistry& r) {
  KernelEntry e;
  e.op = kOp;
  e.summary = "paged lightning-indexer logits (decode): one block per (row b·next_n + t, 128-key tile), keys read "
              "through the block table, fp32 relu-weighted head sum; positions >= context_lens untouched";
  e.variants = {"default", "mask_broadcast_heads"};
  e.run = run_paged;
  e.check_shapes = {
      Json{{"B", 2}, {"next_n", 1}, {"H", 8}, {"D", 32}, {"block_kv", 16}, {"max_context_len", 70}},
      Json{{"B", 2}, {"next_n", 4}, {"H", 4}, {"D", 64}, {"block_kv", 8}, {"max_context_len", 40}},
      Json{{"B", 1}, {"next_n", 2}, {"H", 16}, {"D", 128}, {"block_kv", 64}, {"max_context_len", 150}, {"dtype", "e4m3fnuz"}}};
  e.plan_sweeps = {indexer::indexer_paged_plan_sweep()};
  r.add(std::move(e));
}

}  // namespace dsv4::kernels
