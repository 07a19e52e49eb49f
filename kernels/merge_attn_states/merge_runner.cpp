// Kernel-registry entry of merge_attn_states: converts a validated OpCase into a plan and device buffers (inputs
// packed at t*H*hs + h*hs + d with the prefix's head stride, padding filled with NaN; LSEs keep their real
// strides; outputs start as copies of the caller's poisoned tensors, output padding as 0xA5 bytes), launches, and
// copies the logical elements back into the caller's outputs. Returns the plan as JSON.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/kernel_registry.hpp"
#include "kernels/runner_support.hpp"
#include "kernels/merge_attn_states/merge_attn_states.hpp"

namespace dsv4::kernels {

namespace {

using namespace merge;

constexpr const char* kOp = "merge_attn_states";

// Raw element codes of a [T, H, D] tensor at t*H*hs + h*hs + d; padding gets `pad_code` (its low element bytes).
std::vector<std::uint8_t> pack_heads(const Tensor& x, std::int64_t hs, std::uint64_t pad_code) {
  const std::int64_t T = x.size(0), H = x.size(1), D = x.size(2);
  const std::size_t eb = x.element_bytes();
  std::vector<std::uint8_t> buf(static_cast<std::size_t>(T * H * hs) * eb);
  for (std::int64_t t = 0; t < T; ++t)
    for (std::int64_t h = 0; h < H; ++h)
      for (std::int64_t d = 0; d < hs; ++d) {
        const std::uint64_t code = d < D ? x.code({t, h, d}) : pad_code;
        std::memcpy(buf.data() + static_cast<std::size_t>(t * H * hs + h * hs + d) * eb, &code, eb);
      }
  return buf;
}

// The inverse of pack_heads for the logical elements (padding is not read).
void unpack_heads(const std::vector<std::uint8_t>& buf, std::int64_t hs, Tensor& x) {
  const std::int64_t T = x.size(0), H = x.size(1), D = x.size(2);
  const std::size_t eb = x.element_bytes();
  for (std::int64_t t = 0; t < T; ++t)
    for (std::int64_t h = 0; h < H; ++h)
      for (std::int64_t d = 0; d < D; ++d) {
        std::uint64_t code = 0;
        std::memcpy(&code, buf.data() + static_cast<std::size_t>(t * H * hs + h * hs + d) * eb, eb);
        x.set_code({t, h, d}, code);
      }
}

std::uint64_t nan_code(DType t) {
  switch (t) {
    case DType::F32: return 0x7fc00000u;
    case DType::F16: return 0x7e00u;
    default: return 0x7fc0u;
  }
}

Json run_merge(const OpCase& c, Outputs& outs, const RunOptions& o) {
  const Tensor& P = c.in("prefix_output");
  const Tensor& S = c.in("suffix_output");
  const Tensor& pl = c.in("prefix_lse");
  const Tensor& sl = c.in("suffix_lse");
  if (P.dim() != 3 || S.shape() != P.shape() || S.dtype() != P.dtype())
    throw InputError(std::string(kOp) + ": prefix_output and suffix_output must be [T, H, D] of one dtype and shape");
  if (pl.dim() != 2 || sl.dim() != 2 || pl.dtype() != DType::F32 || sl.dtype() != DType::F32)
    throw InputError(std::string(kOp) + ": prefix_lse and suffix_lse must be F32 [H, T]");
  MergeShape s;
  s.t = P.size(0);
  s.h = P.size(1);
  s.d = P.size(2);
  s.head_stride = s.h <= 1 ? s.d : P.stride(1);
  if (s.h > 1 && S.stride(1) != P.stride(1))
    throw InputError(std::string(kOp) + ": suffix_output must have prefix_output's head stride");
  s.dtype = P.dtype() == DType::F32 ? ElemType::f32 : P.dtype() == DType::F16 ? ElemType::f16 : ElemType::bf16;
  s.p_lse_stride_h = pl.stride(0);
  s.p_lse_stride_t = pl.stride(1);
  s.s_lse_stride_h = sl.stride(0);
  s.s_lse_stride_t = sl.stride(1);
  if (s.p_lse_stride_h == 0 && s.p_lse_stride_t == 0) s.p_lse_stride_t = 1;  // a 1x1 lse: any nonzero pair
  if (s.s_lse_stride_h == 0 && s.s_lse_stride_t == 0) s.s_lse_stride_t = 1;

  MergeOptions opt;
  if (c.attrs.contains("prefill_tokens_with_context") && !c.attrs.at("prefill_tokens_with_context").is_null())
    opt.prefill_tokens_with_context = c.attrs.at("prefill_tokens_with_context").get<std::int64_t>();
  if (c.attrs.contains("output_scale") && !c.attrs.at("output_scale").is_null())
    opt.output_scale = c.attrs.at("output_scale").get<double>();
  opt.fp8 = c.attrs.value("output_fp8_format", std::string("e4m3fn")) == "e4m3fnuz" ? Fp8Out::e4m3fnuz
                                                                                     : Fp8Out::e4m3fn;
  opt.both_empty = c.attrs.value("both_empty", std::string("zeros")) == "copy_prefix" ? BothEmpty::copy_prefix
                                                                                      : BothEmpty::zeros;
  opt.pos_inf_empty = c.attrs.value("pos_inf_lse", std::string("empty")) != "raw";
  const auto v = parse_merge_variant(o.variant);
  if (!v) throw unknown_variant(kOp, o.variant);
  opt.variant = *v;
  Tensor& out = outs.at("output");
  Tensor* out_lse = outs.count("output_lse") ? &outs.at("output_lse") : nullptr;
  opt.output_lse = out_lse != nullptr;
  const port::ArchProfile& arch = run_arch(kOp, o);
  const MergePlan plan = make_merge_plan(s, arch, opt);
  require_plan(kOp, plan);

  const std::int64_t T = s.t, H = s.h, D = s.d, hs = s.hs();
  port::DeviceBuffer dp = upload_vector(pack_heads(P, hs, nan_code(P.dtype())), 16);
  port::DeviceBuffer dsf = upload_vector(pack_heads(S, hs, nan_code(P.dtype())), 16);
  auto lse_dev = [&](const Tensor& l) {
    const std::int64_t n = (H - 1) * l.stride(0) + (T - 1) * l.stride(1) + 1;
    std::vector<float> v(static_cast<std::size_t>(std::max<std::int64_t>(n, 1)), 0.f);
    for (std::int64_t h = 0; h < H; ++h)
      for (std::int64_t t = 0; t < T; ++t) v[h * l.stride(0) + t * l.stride(1)] = static_cast<float>(l.get({h, t}));
    return upload_vector(v, 16);
  };
  port::DeviceBuffer dpl = lse_dev(pl), dsl = lse_dev(sl);
  // Output: the caller's poisoned codes at the logical positions, 0xA5 bytes in the head padding.
  std::vector<std::uint8_t> oh = pack_heads(out, hs, 0xA5A5A5A5A5A5A5A5ull);
  port::DeviceBuffer dout = upload_vector(oh, 16);
  port::DeviceBuffer dlse = out_lse ? upload_codes(*out_lse, 16) : port::DeviceBuffer(16);

  const MergeBuffers io{dp.data(), dpl.as<float>(), dsf.data(), dsl.as<float>(), dout.data(),
                        out_lse ? dlse.as<float>() : nullptr};
  launch_repeated(o, [&](port::Stream& stream) { launch_merge_attn_states(plan, io, stream); });

  if (!oh.empty()) dout.copy_to_host(oh.data(), oh.size());
  unpack_heads(oh, hs, out);
  if (out_lse) download_codes(dlse, *out_lse);
  // Head padding of the output must be untouched (the kernel writes only [0, D) of each head).
  const std::size_t ob = out.element_bytes();
  bool padding_untouched = true;
  for (std::int64_t i = 0; i < T * H && hs > D; ++i)
    for (std::int64_t d = D; d < hs; ++d)
      for (std::size_t b = 0; b < ob; ++b) padding_untouched = padding_untouched && oh[(i * hs + d) * ob + b] == 0xA5;

  Json j = plan_json({.kernel = kOp,
                      .variant = variant_name(plan.options.variant),
                      .grid = {plan.grid, 1, 1},
                      .block = plan.block,
                      .lds_capacity = arch.lds_bytes_per_block,
                      .tile_map = tile_map_json("output", 1, "(token, head) row", plan.pack, "16-byte pack", 2),
                      .text = plan.describe()});
  j["head_padding_untouched"] = padding_untouched;
  return j;
}

}  // namespace

void register_merge_attn_states_kernel(KernelRegistry& r) {
  KernelEntry e;
  e.op = kOp;
  e.summary = "merge two partial attention results by LSE: one thread per 16-byte pack, fp32 weights, optional FP8";
  e.variants = {"default", "nan_both_empty"};
  e.run = run_merge;
  e.check_shapes = {Json{{"T", 6}, {"H", 8}, {"D", 128}},
                    Json{{"T", 5}, {"H", 3}, {"D", 64}, {"dtype", "F32"}, {"pad", 16}, {"prefill_tokens_with_context", 3}}};
  e.plan_sweeps = {merge::merge_plan_sweep()};
  r.add(std::move(e));
}

}  // namespace dsv4::kernels
