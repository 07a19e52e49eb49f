// Float64 views of tensors for the GEMM-like references: exact decode of any element dtype
// (bf16/fp16/fp32/fp8/e8m0 via a lookup table where the code space is small) into Eigen row-major
// double matrices. Decoding is exact, so a float64 product of decoded values carries no input error.
#pragma once
#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "reference/tensor/tensor.hpp"

namespace dsv4::gemm {

using MatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Exact decoder of one element code of a fixed dtype. Codes of <= 16 bits go through a table.
class Decoder {
 public:
  explicit Decoder(DType t);
  double operator()(const std::byte* p) const;

 private:
  DType t_;
  const std::vector<double>* lut_ = nullptr;  // indexed by code for 1- and 2-byte floating types
};

// The exact value of every code of a floating dtype of 1 or 2 bytes (fp8, e8m0, bf16, fp16), indexed
// by code; nullptr for other dtypes. Built once per dtype, never freed.
const double* code_table(DType t);

// Block [r0, r0+n) x [c0, c0+w) of a 2-D tensor (any strides), decoded into dst (row-major, leading
// dimension ld >= w). bf16 by bit shift, other codes of <= 16 bits by table, f32/f64 by conversion.
// Serial: callers decode one panel per thread.
void decode_block(const Tensor& t2d, std::int64_t r0, std::int64_t n, std::int64_t c0, std::int64_t w, double* dst,
                  std::int64_t ld);

// All elements of a 2-D tensor (any strides), decoded, as a row-major double matrix.
MatD to_matrix(const Tensor& t2d);

// Rows [r0, r0+n) of a 2-D tensor as a row-major double matrix.
MatD rows_to_matrix(const Tensor& t2d, std::int64_t r0, std::int64_t n);

// All elements of a 1-D tensor, decoded.
std::vector<double> to_vector(const Tensor& t1d);

// Round-to-nearest-even of x to bf16, returned as a double (one rounding; NaN/Inf kept).
double round_to_bf16(double x);

}  // namespace dsv4::gemm
