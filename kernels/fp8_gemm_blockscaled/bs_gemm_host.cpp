// Host helpers of the block-scaled GEMM runners; see bs_gemm_host.hpp.
#include "kernels/fp8_gemm_blockscaled/bs_gemm_host.hpp"

#include <algorithm>
#include <vector>

#include "kernels/port/sim.hpp"

namespace dsv4::kernels::bsgemm {

DeviceTensor upload(const Tensor& t) {
  bool nonneg = true;
  for (int d = 0; d < t.dim(); ++d) nonneg = nonneg && t.stride(d) >= 0;
  const Tensor src = nonneg ? t : t.contiguous();
  std::int64_t span = src.numel() > 0 ? 1 : 0;
  if (span)
    for (int d = 0; d < src.dim(); ++d) span += (src.size(d) - 1) * src.stride(d);
  DeviceTensor out;
  const std::size_t bytes = static_cast<std::size_t>(span) * src.element_bytes();
  out.buf = port::DeviceBuffer(std::max<std::size_t>(4, bytes));
  if (bytes) out.buf.copy_from_host(src.data(), bytes);
  out.strides = src.strides();
  return out;
}

DeviceOutput upload_output(const Tensor& d) {
  DeviceOutput out;
  out.elem = d.element_bytes();
  const std::int64_t n = d.numel();
  out.buf = port::DeviceBuffer(std::max<std::size_t>(4, static_cast<std::size_t>(n) * out.elem));
  if (out.elem == 2) {
    std::vector<std::uint16_t> h(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) h[i] = static_cast<std::uint16_t>(d.code_linear(i));
    if (n) out.buf.copy_from_host(h.data(), h.size() * 2);
  } else {
    std::vector<std::uint32_t> h(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) h[i] = static_cast<std::uint32_t>(d.code_linear(i));
    if (n) out.buf.copy_from_host(h.data(), h.size() * 4);
  }
  return out;
}

void download(const DeviceOutput& dev, Tensor& d) {
  const std::int64_t n = d.numel();
  if (!n) return;
  if (dev.elem == 2) {
    std::vector<std::uint16_t> h(static_cast<std::size_t>(n));
    dev.buf.copy_to_host(h.data(), h.size() * 2);
    for (std::int64_t i = 0; i < n; ++i) d.set_code_linear(i, h[i]);
  } else {
    std::vector<std::uint32_t> h(static_cast<std::size_t>(n));
    dev.buf.copy_to_host(h.data(), h.size() * 4);
    for (std::int64_t i = 0; i < n; ++i) d.set_code_linear(i, h[i]);
  }
}

Fp8 fp8_of(const std::string& op, const std::string& arg, const Tensor& t) {
  if (t.dtype() == DType::F8_E4M3FN) return Fp8::e4m3fn;
  if (t.dtype() == DType::F8_E4M3FNUZ) return Fp8::e4m3fnuz;
  throw InputError(op + ": argument '" + arg + "' must be F8_E4M3FN or F8_E4M3FNUZ");
}

ScaleKind scale_kind_of(const std::string& op, const std::string& arg, const Tensor& sf) {
  switch (sf.dtype()) {
    case DType::F32: return ScaleKind::f32;
    case DType::F8_E8M0: return ScaleKind::ue8m0;
    case DType::I32: return ScaleKind::packed_ue8m0;
    default: break;
  }
  throw InputError(op + ": argument '" + arg + "' must be F32, F8_E8M0 or I32 (packed UE8M0)");
}

BsVariant variant_of(const std::string& op, const RunOptions& o) {
  BsVariant v{};
  if (!parse_variant(o.variant, v))
    throw InputError(op + ": unknown variant '" + o.variant + "' (default, scale_per_tile, e8m0_shift23)");
  return v;
}

Json plan_json(const std::string& kernel, const BsGemmPlan& plan, std::int64_t row_tile, const std::string& row_name) {
  Json j;
  j["kernel"] = kernel;
  j["variant"] = variant_name(plan.options.variant);
  j["grid"] = {plan.grid[0], plan.grid[1], plan.grid[2]};
  j["block"] = {plan.block, 1, 1};
  j["wave_size"] = plan.wave_size;
  Json lds = Json::object();
  for (const auto& ph : plan.lds_phases()) lds[ph.name] = ph.bytes;
  j["lds_bytes"] = lds;
  j["lds_capacity"] = plan.lds_capacity;
  j["workspace_bytes"] = plan.workspace_bytes;
  j["k_shards"] = plan.k_blocks;
  j["k_shard_size"] = kScaleBlock;
  j["tiles"] = {{"bm", plan.bm}, {"bn", plan.bn}, {"k_step", plan.k_step}, {"k_block", kScaleBlock}};
  j["fp8"] = plan.arch_fp8 == Fp8::e4m3fnuz ? "e4m3fnuz" : "e4m3fn";
  j["promotion"] = "per 128-K block: acc += fl(fl(sx*sw)*P_kb) (fp32 scales), P_kb*2^(ex+ew) exact (UE8M0)";
  j["tile_map"] = {{"output", "d"}, {"row_tile", row_tile}, {"row_name", row_name},
                   {"col_tile", plan.bn}, {"col_name", "N-tile"}};
  j["text"] = plan.describe();
  return j;
}

}  // namespace dsv4::kernels::bsgemm
