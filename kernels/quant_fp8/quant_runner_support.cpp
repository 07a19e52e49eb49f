// Host helpers of the quant kernels' runners; see quant_runner_support.hpp.
#include "kernels/quant_fp8/quant_runner_support.hpp"

namespace dsv4::kernels::quant {

InputType input_type_of(const Tensor& t, const std::string& op, const char* arg) {
  switch (t.dtype()) {
    case DType::BF16: return InputType::bf16;
    case DType::F16: return InputType::f16;
    case DType::F32: return InputType::f32;
    default: throw InputError(op + ": argument '" + arg + "' must be BF16, F16 or F32");
  }
}

WordLayout scale_words(const Tensor& s, std::int64_t rows, std::int64_t cols, std::int64_t ld, std::size_t bytes,
                       ScaleLayout layout) {
  const bool row_major = layout == ScaleLayout::row_major;
  return WordLayout(s, rows, cols, bytes / 4, [row_major, ld](std::int64_t r, std::int64_t c) {
    return row_major ? r * ld + c : c * ld + r;
  }, 4);
}

}  // namespace dsv4::kernels::quant
