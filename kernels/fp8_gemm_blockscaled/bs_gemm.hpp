// Host API of the block-scaled FP8 GEMM kernel on device buffers (plan in bs_gemm_plan.hpp). Every operand is
// addressed by element strides (batch, row, column/group), so fp8_gemm_blockscaled (batch 1) and fp8_einsum
// 'bhr,hdr->bhd' (batch = heads, strided views of [B,H,R] / [H,D,R] / [B,H,D]) share the kernel.
#pragma once
#include <cstdint>

#include "kernels/fp8_gemm_blockscaled/bs_gemm_plan.hpp"
#include "kernels/port/runtime.hpp"

namespace dsv4::kernels::bsgemm {

// fp8 codes: element (b, r, k) at ptr[b·batch + r·row + k] (unit stride along K).
struct Fp8Operand {
  const void* ptr = nullptr;
  std::int64_t batch = 0, row = 0;
};

// Scales: element (b, r, g) of kind f32 (float) / ue8m0 (byte) at ptr[b·batch + r·row + g·group]; packed_ue8m0:
// word ptr[b·batch + r·row + (g/4)·group], byte g%4 (little-endian: byte j = group 4p+j). Strides in those units.
struct ScaleOperand {
  const void* ptr = nullptr;
  std::int64_t batch = 0, row = 0, group = 1;
};

// d / c: element (b, m, n) at ptr[b·batch + m·row + n·col] (d: bf16 codes or float per the plan; c: float).
struct OutOperand {
  void* ptr = nullptr;
  std::int64_t batch = 0, row = 0, col = 1;
};
struct AccOperand {
  const void* ptr = nullptr;
  std::int64_t batch = 0, row = 0, col = 1;
};

struct BsGemmBuffers {
  Fp8Operand x, w;
  ScaleOperand x_sf, w_sf;
  AccOperand c;  // used when plan.shape.has_c
  OutOperand d;
};

// Byte extents each operand spans (for the launch's buffer ranges and the runners' copies).
std::size_t span_elems(std::int64_t batch, std::int64_t bstride, std::int64_t rows, std::int64_t rstride,
                       std::int64_t cols, std::int64_t cstride);

// Refuses before launch (dsv4::InputError with the plan's reason) when the plan is not admitted or a needed pointer
// is null; a launch error is a port::Error naming the kernel and the plan.
void launch_fp8_gemm_blockscaled(const BsGemmPlan& plan, const BsGemmBuffers& io, port::Stream& stream);

}  // namespace dsv4::kernels::bsgemm
