// Kernel-registry entry of fp8_gemm_blockscaled: plans the case (arch from RunOptions, fp8 flavour of the arch,
// scale kinds from the scale dtypes, w_sf per 128x128 block or per row, optional c / fp32 out), copies the operands
// to the device keeping their strides (fp32_mn_major scales travel as strides), launches, reads d back into the
// caller's poisoned tensor and returns the plan JSON with the tile map (M-tile rows x N-tile columns).
#include "kernels/fp8_gemm_blockscaled/bs_gemm_host.hpp"

namespace dsv4::kernels {

namespace {

using namespace bsgemm;
constexpr const char* kOp = "fp8_gemm_blockscaled";

Json run_bs_gemm(const OpCase& c, Outputs& outs, const RunOptions& o) {
  const GemmOperands g = read_operands(kOp, c, 2);
  BsGemmShape s;
  s.m = g.x.size(0);
  s.k = g.x.size(1);
  s.n = g.w.size(0);
  s.fp8 = g.fp8;
  s.x_scale = g.x_scale;
  s.w_scale = g.w_scale;
  s.w_row_block = g.w_sf.size(0) == (s.n + 127) / 128 ? 128 : 1;
  s.has_c = g.c != nullptr;
  Tensor& d = outs.at("d");
  s.out = d.dtype() == DType::F32 ? OutType::f32 : OutType::bf16;
  BsGemmOptions opt;
  opt.variant = variant_of(kOp, o);
  const port::ArchProfile& arch = run_arch(kOp, o);
  opt.wave_size = effective_wave_size(arch);
  const BsGemmPlan plan = make_plan(s, arch, opt);
  require_plan(kOp, plan);

  const DeviceOperands dv = upload_operands(g, 1);  // K is dimension 1
  port::DeviceBuffer dd = upload_codes(d, 4);

  BsGemmBuffers io;
  io.x = {dv.x.buf.data(), 0, dv.x.stride(0)};
  io.w = {dv.w.buf.data(), 0, dv.w.stride(0)};
  io.x_sf = {dv.x_sf.buf.data(), 0, dv.x_sf.stride(0), dv.x_sf.stride(1)};
  io.w_sf = {dv.w_sf.buf.data(), 0, dv.w_sf.stride(0), dv.w_sf.stride(1)};
  if (s.has_c) io.c = {dv.c.buf.data(), 0, dv.c.stride(0), dv.c.stride(1)};
  io.d = {dd.data(), 0, s.n, 1};  // the caller's d is read back in row-major logical order

  launch_repeated(o, [&](port::Stream& stream) { launch_fp8_gemm_blockscaled(plan, io, stream); });
  download_codes(dd, d);
  return plan_json(kOp, plan, plan.bm, "M-tile");
}

}  // namespace

void register_fp8_gemm_blockscaled_kernel(KernelRegistry& r) {
  KernelEntry e;
  e.op = kOp;
  e.summary = "block-scaled fp8 GEMM (1x128 x 128x128 scales): LDS-tiled fp32 FMA, per-128-K-block promotion";
  e.variants = {"default", "scale_per_tile", "e8m0_shift23"};
  e.run = run_bs_gemm;
  e.check_shapes = {Json{{"M", 5}, {"N", 130}, {"K", 300}, {"scale", "fp32"}},
                    Json{{"M", 8}, {"N", 64}, {"K", 640}, {"scale", "packed_ue8m0"}},
                    Json{{"M", 3}, {"N", 40}, {"K", 256}, {"scale", "ue8m0"}, {"w_scale", "row"}, {"c", true}},
                    Json{{"M", 7}, {"N", 129}, {"K", 128}, {"scale", "fp32_mn_major"}}};
  e.plan_sweeps = {bsgemm::bs_gemm_plan_sweep()};
  r.add(std::move(e));
}

}  // namespace dsv4::kernels
