// Random tensor fills for generators; see gemm_random.hpp.
#include "reference/ops/common/gemm_random.hpp"

#include <fmt/format.h>

#include "reference/ops/common/quant_fp8_encode.hpp"

namespace dsv4::gemm {

void fill_randn(Tensor& t, std::mt19937_64& rng, double sigma) {
  std::normal_distribution<double> nd(0.0, 1.0);
  const auto fmt = format_of(t.dtype());
  const bool fp8 = fmt && element_size(t.dtype()) == 1;
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    double v = 0;
    while (true) {
      v = sigma * nd(rng);
      if (!fp8) break;
      if (quant::encode_fp8_satfinite(*fmt, v) & 0x7F) break;  // nonzero fp8 code
    }
    if (fp8) t.set_code_linear(i, quant::encode_fp8_satfinite(*fmt, v));
    else t.set_linear(i, v == 0 ? sigma : v);
  }
}

Tensor randn(DType dt, Shape shape, std::mt19937_64& rng, double sigma) {
  Tensor t = Tensor::empty(dt, std::move(shape));
  fill_randn(t, rng, sigma);
  return t;
}

std::int64_t shape_int(const Json& shape, const std::string& key, std::int64_t fallback, std::int64_t min_value) {
  if (!shape.is_object() || !shape.contains(key)) {
    if (fallback < 0) throw InputError(fmt::format("shape JSON needs an integer field '{}'", key));
    return fallback;
  }
  const Json& v = shape.at(key);
  if (!v.is_number_integer()) throw InputError(fmt::format("shape field '{}' must be an integer, got {}", key, v.dump()));
  const std::int64_t x = v.get<std::int64_t>();
  if (x < min_value) throw InputError(fmt::format("shape field '{}' = {} must be >= {}", key, x, min_value));
  return x;
}

std::string shape_str_field(const Json& shape, const std::string& key, const std::string& fallback) {
  if (!shape.is_object() || !shape.contains(key)) return fallback;
  if (!shape.at(key).is_string()) throw InputError(fmt::format("shape field '{}' must be a string", key));
  return shape.at(key).get<std::string>();
}

DType parse_dtype_name(const std::string& s) {
  if (s == "bf16") return DType::BF16;
  if (s == "fp16" || s == "f16") return DType::F16;
  if (s == "fp32" || s == "f32") return DType::F32;
  if (s == "e4m3fn") return DType::F8_E4M3FN;
  if (s == "e4m3fnuz") return DType::F8_E4M3FNUZ;
  throw InputError("unknown dtype name '" + s + "' (bf16, fp16, fp32, e4m3fn, e4m3fnuz)");
}

}  // namespace dsv4::gemm
