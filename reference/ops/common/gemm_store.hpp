// Stores a float64 result matrix into an output tensor, each element rounded once as Tensor::set
// rounds it (bf16/fp16: RNE with IEEE overflow via rne_fast.hpp, f32: the C++ conversion, f64
// exact), a row at a time through typed pointers when the output's last dimension is contiguous.
#pragma once
#include "reference/ops/common/blas_gemm.hpp"

namespace dsv4::gemm {

// out2d [r, c] (any strides, any dtype Tensor::set accepts) = Y [r, c]. Outside an OpenMP region
// large stores split their rows over the threads.
void store_matrix(const ConstRef& Y, Tensor out2d);

}  // namespace dsv4::gemm
