// Row-wise stores of float64 results; see gemm_store.hpp.
#include "reference/ops/common/gemm_store.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "reference/formats/rne_fast.hpp"

namespace dsv4::gemm {

void store_matrix(const ConstRef& Y, Tensor out) {
  if (out.dim() != 2 || out.size(0) != Y.rows() || out.size(1) != Y.cols())
    throw std::invalid_argument(fmt::format("gemm::store_matrix: [{}, {}] into {}", Y.rows(), Y.cols(), describe(out)));
  const std::int64_t rows = Y.rows(), cols = Y.cols();
  if (rows == 0 || cols == 0) return;
  const std::int64_t s0 = out.stride(0);
  auto typed = [&](auto code_type, auto encode) {
    using C = decltype(code_type);
    C* base = out.ptr<C>();
#pragma omp parallel for schedule(static) if (rows * cols > (1 << 16))
    for (std::int64_t i = 0; i < rows; ++i) {
      const double* y = Y.data() + i * Y.outerStride();
      C* o = base + i * s0;
      for (std::int64_t j = 0; j < cols; ++j) o[j] = encode(y[j]);
    }
  };
  if (out.stride(1) == 1 || cols == 1) {
    switch (out.dtype()) {
      case DType::BF16: typed(std::uint16_t{}, [](double v) { return formats::bf16_rne(v); }); return;
      case DType::F16: typed(std::uint16_t{}, [](double v) { return formats::fp16_rne(v); }); return;
      case DType::F32: typed(float{}, [](double v) { return static_cast<float>(v); }); return;
      case DType::F64: typed(double{}, [](double v) { return v; }); return;
      default: break;
    }
  }
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) out.set({i, j}, Y(i, j));
}

}  // namespace dsv4::gemm
