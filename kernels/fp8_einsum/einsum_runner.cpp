// Kernel-registry entry of fp8_einsum 'bhr,hdr->bhd': plans the case as a batch of H block-scaled GEMMs, copies
// the operands to the device keeping their strides (head = batch stride), launches the block-scaled GEMM kernel,
// reads d [B,H,D] back into the caller's poisoned tensor and returns the plan JSON. Tile map over d's 2-D view
// (rows b·H + h, columns n): an M-tile spans bm tokens x H heads of rows, an N-tile bn columns.
#include "kernels/fp8_einsum/einsum_plan.hpp"
#include "kernels/fp8_gemm_blockscaled/bs_gemm_host.hpp"

namespace dsv4::kernels {

namespace {

using namespace bsgemm;
constexpr const char* kOp = "fp8_einsum";

Json run_einsum(const OpCase& c, Outputs& outs, const RunOptions& o) {
  const GemmOperands g = read_operands(kOp, c, 3);
  einsum::EinsumShape s;
  s.expr = c.attrs.at("expr").get<std::string>();
  s.recipe = c.attrs.at("recipe").get<std::string>();
  s.b = g.x.size(0);
  s.h = g.x.size(1);
  s.r = g.x.size(2);
  s.d = g.w.size(1);
  s.fp8 = g.fp8;
  s.x_scale = g.x_scale;
  s.w_scale = g.w_scale;
  s.has_c = g.c != nullptr;
  BsGemmOptions opt;
  opt.variant = variant_of(kOp, o);
  const port::ArchProfile& arch = run_arch(kOp, o);
  opt.wave_size = effective_wave_size(arch);
  const einsum::EinsumPlan plan = einsum::make_einsum_plan(s, arch, opt);
  require_plan(kOp, plan);

  const DeviceOperands dv = upload_operands(g, 2);  // K (r) is dimension 2
  Tensor& d = outs.at("d");
  port::DeviceBuffer dd = upload_codes(d, 4);

  BsGemmBuffers io;
  io.x = {dv.x.buf.data(), dv.x.stride(1), dv.x.stride(0)};
  io.w = {dv.w.buf.data(), dv.w.stride(0), dv.w.stride(1)};
  io.x_sf = {dv.x_sf.buf.data(), dv.x_sf.stride(1), dv.x_sf.stride(0), dv.x_sf.stride(2)};
  io.w_sf = {dv.w_sf.buf.data(), dv.w_sf.stride(0), dv.w_sf.stride(1), dv.w_sf.stride(2)};
  if (s.has_c) io.c = {dv.c.buf.data(), dv.c.stride(1), dv.c.stride(0), dv.c.stride(2)};
  io.d = {dd.data(), s.d, s.h * s.d, 1};

  launch_repeated(o, [&](port::Stream& stream) { launch_fp8_gemm_blockscaled(plan.gemm, io, stream); });
  download_codes(dd, d);
  Json j = plan_json(kOp, plan.gemm, plan.gemm.bm * s.h, "M-tile (x H heads)");
  j["recipe"] = s.recipe;
  j["text"] = plan.describe();
  return j;
}

}  // namespace

void register_fp8_einsum_kernel(KernelRegistry& r) {
  KernelEntry e;
  e.op = kOp;
  e.summary = "fp8 einsum 'bhr,hdr->bhd': the block-scaled fp8 GEMM kernel batched over heads";
  e.variants = {"default", "scale_per_tile", "e8m0_shift23"};
  e.run = run_einsum;
  e.check_shapes = {Json{{"B", 3}, {"H", 2}, {"R", 256}, {"D", 130}, {"scale", "fp32"}},
                    Json{{"B", 4}, {"H", 4}, {"R", 512}, {"D", 64}, {"scale", "packed_ue8m0"}, {"recipe", "1,1,128"}},
                    Json{{"B", 2}, {"H", 3}, {"R", 200}, {"D", 40}, {"scale", "ue8m0"}, {"c", true}}};
  e.plan_sweeps = {einsum::einsum_plan_sweep()};
  r.add(std::move(e));
}

}  // namespace dsv4::kernels
