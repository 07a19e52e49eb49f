// Kernel-registry entry of sparse_mla_decode (see smla_runner.hpp): OpCase -> plan + device buffers -> launch ->
// outputs, and the plan JSON (grid of both kernels, LDS per phase against capacity, workspace, splits, tile map).
#include "kernels/sparse_mla_decode/smla_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/runner_support.hpp"
#include "kernels/sparse_mla_decode/sparse_mla_decode.hpp"
#include "reference/ops/common/kv_cache_layout.hpp"

namespace dsv4::kernels::smla {

namespace {

constexpr const char* kOp = "sparse_mla_decode";

std::string attr_str(const OpCase& c, const char* name, const char* dflt) {
  if (!c.attrs.contains(name) || c.attrs.at(name).is_null()) return dflt;
  return c.attrs.at(name).get<std::string>();
}

struct CacheCopy {
  CacheShape shape;
  std::vector<std::uint8_t> bytes;
};

CacheCopy copy_cache(const Tensor& t, const char* arg, kv::CacheLayout l) {
  const kv::CacheView v = kv::cache_view(kOp, arg, t, l);
  CacheCopy r;
  r.shape.num_blocks = v.num_blocks;
  r.shape.block_size = v.block_size;
  r.shape.block_stride = v.num_blocks > 1 ? v.block_stride : 0;
  if (v.num_blocks > 0) {
    const std::size_t n = static_cast<std::size_t>((v.num_blocks - 1) * v.block_stride +
                                                   kv::block_bytes_needed(l, v.block_size));
    r.bytes.assign(v.base, v.base + n);
  }
  return r;
}

}  // namespace

Json run_sparse_mla_decode_case(const OpCase& c, Outputs& outs, const RunOptions& o, SmlaOptions tuning) {
  const auto layout = kv::parse_cache_layout(attr_str(c, "cache_layout", ""));
  if (!layout) throw InputError(std::string(kOp) + ": cache_layout must be V32_FP8Sparse or MODEL1_FP8Sparse");
  const std::string dq = attr_str(c, "kv_dequant", "exact");
  if (dq == "fp32_product")
    throw CannotImplement(std::string(kOp) + " kernel dequantizes as bf16_product (FlashMLA); kv_dequant=fp32_product "
                                             "is not implemented");
  if (attr_str(c, "e8m0_decode", "exact") != "exact")
    throw CannotImplement(std::string(kOp) + " kernel decodes E8M0 exactly; e8m0_decode=shift23 is the bug model "
                                             "(variant e8m0_shift23)");
  const auto v = parse_variant(o.variant);
  if (!v) throw unknown_variant(kOp, o.variant);
  tuning.variant = *v;

  const Tensor& q = c.in("q");
  const Tensor& idx = c.in("indices");
  SmlaShape s;
  s.layout = *layout == kv::CacheLayout::V32_FP8Sparse ? Layout::v32 : Layout::model1;
  if (q.dim() != 4 || q.size(3) != s.d_qk() || q.dtype() != DType::BF16)
    throw InputError(fmt::format("{}: q must be BF16 [b, s_q, h_q, {}]", kOp, s.d_qk()));
  s.b = q.size(0);
  s.s_q = q.size(1);
  s.h_q = q.size(2);
  s.topk = idx.size(2);
  s.head_dim_v = c.attrs.contains("head_dim_v") && !c.attrs.at("head_dim_v").is_null()
                     ? c.attrs.at("head_dim_v").get<std::int64_t>() : 512;
  if (c.attrs.contains("softmax_scale") && !c.attrs.at("softmax_scale").is_null())
    s.softmax_scale = c.attrs.at("softmax_scale").get<double>();
  s.fp8 = attr_str(c, "fp8_format", "e4m3fn") == "e4m3fnuz" ? Fp8Kind::e4m3fnuz : Fp8Kind::e4m3fn;
  CacheCopy main = copy_cache(c.in("k_cache"), "k_cache", *layout);
  s.cache = main.shape;
  s.has_topk_length = c.has("topk_length");
  s.has_sink = c.has("attn_sink");
  const bool extra = c.has("extra_indices_in_kvcache") && c.in("extra_indices_in_kvcache").size(2) > 0;
  CacheCopy ext;
  if (extra) {
    ext = copy_cache(c.in("extra_k_cache"), "extra_k_cache", *layout);
    s.extra_topk = c.in("extra_indices_in_kvcache").size(2);
    s.extra_cache = ext.shape;
    s.has_extra_topk_length = c.has("extra_topk_length");
  }
  const port::ArchProfile& arch = run_arch(kOp, o);
  const SmlaPlan plan = make_plan(s, arch, tuning);
  require_plan(kOp, plan);

  auto dev = [](const Tensor& t) { return upload_codes(t, 16); };
  port::DeviceBuffer dq_ = dev(q), didx = dev(idx);
  port::DeviceBuffer dcache = upload_vector(main.bytes, 16);
  port::DeviceBuffer dlen, dsink, decache, deidx, delen;
  if (s.has_topk_length) dlen = dev(c.in("topk_length"));
  if (s.has_sink) dsink = dev(c.in("attn_sink"));
  if (extra) {
    decache = upload_vector(ext.bytes, 16);
    deidx = dev(c.in("extra_indices_in_kvcache"));
    if (s.has_extra_topk_length) delen = dev(c.in("extra_topk_length"));
  }
  Tensor& out = outs.at("out");
  // lse: the caller's [b, h_q, s_q] view; the device holds [b, s_q, h_q] (the view with its last two axes swapped,
  // which writes through to the caller's tensor).
  Tensor lse_dev = outs.at("lse").transpose(1, 2);
  port::DeviceBuffer dout = dev(out), dlse = dev(lse_dev);
  port::DeviceBuffer ws(std::max<std::size_t>(16, plan.workspace_bytes));
  ws.memset(0xFF);  // NaN in every partial: reading one that was never written shows in the output

  SmlaBuffers io;
  io.q = dq_.as<std::uint16_t>();
  io.k_cache = main.bytes.empty() ? nullptr : dcache.as<std::uint8_t>();
  io.indices = didx.as<std::int32_t>();
  io.topk_length = s.has_topk_length ? dlen.as<std::int32_t>() : nullptr;
  io.attn_sink = s.has_sink ? dsink.as<float>() : nullptr;
  if (extra) {
    io.extra_k_cache = ext.bytes.empty() ? nullptr : decache.as<std::uint8_t>();
    io.extra_indices = deidx.as<std::int32_t>();
    io.extra_topk_length = s.has_extra_topk_length ? delen.as<std::int32_t>() : nullptr;
  }
  io.out = dout.as<std::uint16_t>();
  io.lse = dlse.as<float>();
  launch_repeated(o, [&](port::Stream& stream) { launch_sparse_mla_decode(plan, io, ws.data(), ws.bytes(), stream); });

  download_codes(dout, out);
  download_codes(dlse, lse_dev);

  Json j = plan_json({.kernel = kOp,
                      .variant = variant_name(plan.options.variant),
                      .grid = {plan.split_grid_x, plan.split_grid_y, plan.split_grid_z},
                      .block = kSplitThreads,
                      .lds_bytes = lds_json(plan.lds_phases()),
                      .lds_capacity = plan.lds_capacity,
                      .workspace_bytes = plan.workspace_bytes,
                      .tile_map = tile_map_json("out", plan.heads_per_group, "head group", plan.d_per_thread,
                                                "PV thread columns", 3),
                      .text = plan.describe()});
  j["combine_grid"] = {plan.combine_grid_x, plan.combine_grid_y, 1};
  j["combine_block"] = {kCombineThreads, 1, 1};
  j["workspace"] = {{"out_partials_bytes", plan.ws_out_bytes}, {"lse_offset", plan.lse_offset},
                    {"lse_partials_bytes", plan.ws_lse_bytes}};
  j["k_shards"] = plan.num_splits;
  j["k_shard_size"] = plan.chunk;
  j["heads_per_group"] = plan.heads_per_group;
  j["key_tile"] = plan.key_tile;
  return j;
}

}  // namespace dsv4::kernels::smla

namespace dsv4::kernels {

void register_sparse_mla_decode_kernel(KernelRegistry& r) {
  KernelEntry e;
  e.op = "sparse_mla_decode";
  e.summary = "split-KV sparse MLA decode over FP8 caches (V3.2 656 B / MODEL1 584 B tokens): gather + bf16 dequant, "
              "fp32 online softmax per split, deterministic LSE combine";
  e.variants = {"default", "gather_invalid_rows", "combine_no_inf_guard", "e8m0_shift23"};
  e.run = [](const OpCase& c, Outputs& outs, const RunOptions& o) {
    return smla::run_sparse_mla_decode_case(c, outs, o, smla::SmlaOptions{});
  };
  e.check_shapes = {
      Json{{"b", 2}, {"s_q", 1}, {"h_q", 4}, {"d_qk", 576}, {"block_size", 61}, {"num_blocks", 3}, {"topk", 64}},
      Json{{"b", 1}, {"s_q", 2}, {"h_q", 8}, {"d_qk", 512}, {"block_size", 64}, {"num_blocks", 2}, {"topk", 48},
           {"extra_topk", 32}, {"extra_num_blocks", 2}}};
  e.plan_sweeps = {smla::smla_split_plan_sweep(), smla::smla_combine_plan_sweep()};
  r.add(std::move(e));
}

}  // namespace dsv4::kernels
