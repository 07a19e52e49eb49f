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
  const Tensor& x = c.in("x");
  const Tensor& w = c.in("w");
  const Tensor& x_sf = c.in("x_sf");
  const Tensor& w_sf = c.in("w_sf");
  if (x.dim() != 2 || w.dim() != 2 || x_sf.dim() != 2 || w_sf.dim() != 2)
    throw InputError(std::string(kOp) + ": x, w, x_sf, w_sf must be 2-D");
  BsGemmShape s;
  s.m = x.size(0);
  s.k = x.size(1);
  s.n = w.size(0);
  s.fp8 = fp8_of(kOp, "x", x);
  if (fp8_of(kOp, "w", w) != s.fp8) throw InputError(std::string(kOp) + ": argument 'w' must have x's fp8 dtype");
  s.x_scale = scale_kind_of(kOp, "x_sf", x_sf);
  s.w_scale = scale_kind_of(kOp, "w_sf", w_sf);
  s.w_row_block = w_sf.size(0) == (s.n + 127) / 128 ? 128 : 1;
  s.has_c = c.has("c");
  Tensor& d = outs.at("d");
  s.out = d.dtype() == DType::F32 ? OutType::f32 : OutType::bf16;
  BsGemmOptions opt;
  opt.variant = variant_of(kOp, o);
  const port::ArchProfile& arch = run_arch(kOp, o);
  opt.wave_size = effective_wave_size(arch);
  const BsGemmPlan plan = make_plan(s, arch, opt);
  if (!plan.ok) throw CannotImplement(std::string(kOp) + " kernel cannot implement this case: " + plan.reason);

  // x and w need unit stride along K (the kernel's byte rows); other layouts go as contiguous copies.
  const DeviceTensor dx = upload(x.stride(1) == 1 ? x : x.contiguous());
  const DeviceTensor dw = upload(w.stride(1) == 1 ? w : w.contiguous());
  const DeviceTensor dxs = upload(x_sf), dws = upload(w_sf);
  DeviceTensor dc;
  if (s.has_c) dc = upload(c.in("c"));
  port::DeviceBuffer dd = upload_codes(d, 4);

  BsGemmBuffers io;
  io.x = {dx.buf.data(), 0, dx.stride(0)};
  io.w = {dw.buf.data(), 0, dw.stride(0)};
  io.x_sf = {dxs.buf.data(), 0, dxs.stride(0), dxs.stride(1)};
  io.w_sf = {dws.buf.data(), 0, dws.stride(0), dws.stride(1)};
  if (s.has_c) io.c = {dc.buf.data(), 0, dc.stride(0), dc.stride(1)};
  io.d = {dd.data(), 0, s.n, 1};  // the caller's d is read back in row-major logical order

  port::Stream stream;
  for (int r = 0; r < std::max(1, o.repeats); ++r) launch_fp8_gemm_blockscaled(plan, io, stream);
  stream.synchronize();
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
  r.add(std::move(e));
}

}  // namespace dsv4::kernels
