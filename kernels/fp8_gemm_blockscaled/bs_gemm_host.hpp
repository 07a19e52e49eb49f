// Host helpers shared by the fp8_gemm_blockscaled and fp8_einsum kernel-registry runners: device copies of OpCase
// tensors that keep their element strides (so strided scale layouts such as mn_major reach the kernel as strides),
// the output round trip (the caller's poisoned codes go to the device first, so unwritten elements stay poisoned),
// the operand kinds, the arch profile of RunOptions and the plan as JSON (with the tile map).
#pragma once
#include "kernels/runner_support.hpp"
#include <string>
#include <vector>

#include "kernels/fp8_gemm_blockscaled/bs_gemm.hpp"
#include "kernels/kernel_registry.hpp"
#include "reference/tensor/tensor.hpp"

namespace dsv4::kernels::bsgemm {

// A device copy of a tensor's storage span; strides in elements (a contiguous copy when a stride is negative).
struct DeviceTensor {
  port::DeviceBuffer buf;
  Shape strides;
  std::int64_t stride(int d) const { return strides[static_cast<std::size_t>(d)]; }
};
DeviceTensor upload(const Tensor& t);

// Output d: upload_codes(d, 4) (the caller's poisoned codes, contiguous), read back with download_codes
// (kernels/runner_support.hpp).

// Operand kinds from dtypes; InputError naming op/arg for anything else.
Fp8 fp8_of(const std::string& op, const std::string& arg, const Tensor& t);
ScaleKind scale_kind_of(const std::string& op, const std::string& arg, const Tensor& sf);

BsVariant variant_of(const std::string& op, const RunOptions& o);

// The operands both runners read: x, w, x_sf, w_sf (all `dims`-D, InputError otherwise), the optional c, and their
// kinds (x and w of one fp8 dtype).
struct GemmOperands {
  const Tensor& x;
  const Tensor& w;
  const Tensor& x_sf;
  const Tensor& w_sf;
  const Tensor* c = nullptr;
  Fp8 fp8 = Fp8::e4m3fn;
  ScaleKind x_scale = ScaleKind::f32, w_scale = ScaleKind::f32;
};
GemmOperands read_operands(const std::string& op, const OpCase& c, int dims);

// Device copies of the operands (upload()); x and w need unit stride along K (dimension k_dim, the kernel's byte
// rows), so other layouts go as contiguous copies. c only when present.
struct DeviceOperands {
  DeviceTensor x, w, x_sf, w_sf, c;
};
DeviceOperands upload_operands(const GemmOperands& g, int k_dim);

// Plan JSON (kernel-registry convention). row_tile / row_name: the tile map's row axis over d's 2-D view.
Json plan_json(const std::string& kernel, const BsGemmPlan& plan, std::int64_t row_tile, const std::string& row_name);

}  // namespace dsv4::kernels::bsgemm
