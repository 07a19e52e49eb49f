// Float64 decode of tensors into Eigen matrices; see gemm_matrix.hpp.
#include "reference/ops/common/gemm_matrix.hpp"

#include <array>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include "reference/formats/rne.hpp"

namespace dsv4::gemm {

namespace {
const std::vector<double>* table_for(DType t) {
  static std::array<std::vector<double>, 32> tables;
  static std::array<std::once_flag, 32> once;
  const auto idx = static_cast<std::size_t>(t);
  const std::size_t bytes = element_size(t);
  if (!is_floating(t) || bytes > 2 || t == DType::F32 || t == DType::F64) return nullptr;
  std::call_once(once[idx], [&] {
    const std::size_t n = std::size_t{1} << (8 * bytes);
    std::vector<double> v(n);
    for (std::size_t c = 0; c < n; ++c) v[c] = formats::decode(*format_of(t), static_cast<std::uint32_t>(c));
    tables[idx] = std::move(v);
  });
  return &tables[idx];
}
}  // namespace

Decoder::Decoder(DType t) : t_(t), lut_(table_for(t)) {}

double Decoder::operator()(const std::byte* p) const {
  if (lut_) {
    std::uint16_t c = 0;
    std::memcpy(&c, p, element_size(t_));
    return (*lut_)[c];
  }
  switch (t_) {
    case DType::F32: { float f; std::memcpy(&f, p, 4); return f; }
    case DType::F64: { double d; std::memcpy(&d, p, 8); return d; }
    case DType::I32: { std::int32_t i; std::memcpy(&i, p, 4); return i; }
    case DType::I64: { std::int64_t i; std::memcpy(&i, p, 8); return static_cast<double>(i); }
    case DType::U8: return static_cast<double>(std::to_integer<std::uint8_t>(*p));
    default: throw std::invalid_argument("gemm::Decoder: unsupported dtype " + std::string(dtype_name(t_)));
  }
}

MatD rows_to_matrix(const Tensor& t, std::int64_t r0, std::int64_t n) {
  if (t.dim() != 2) throw std::invalid_argument("gemm::rows_to_matrix needs a 2-D tensor, got " + describe(t));
  const std::int64_t cols = t.size(1);
  MatD m(n, cols);
  if (n == 0 || cols == 0) return m;
  Decoder dec(t.dtype());
  const std::byte* base = t.data();
  const std::size_t eb = t.element_bytes();
  const std::int64_t s0 = t.stride(0), s1 = t.stride(1);
  if (const std::vector<double>* lut = table_for(t.dtype())) {  // fast path: typed code reads + table
    const double* tab = lut->data();
    auto run = [&](auto code_type) {
      using C = decltype(code_type);
      const C* p = reinterpret_cast<const C*>(base);
#pragma omp parallel for schedule(static) if (n * cols > (1 << 16))
      for (std::int64_t i = 0; i < n; ++i) {
        const C* row = p + (r0 + i) * s0;
        double* out = m.data() + i * cols;
        for (std::int64_t j = 0; j < cols; ++j) out[j] = tab[row[j * s1]];
      }
    };
    if (eb == 1) run(std::uint8_t{});
    else run(std::uint16_t{});
    return m;
  }
  if (t.dtype() == DType::F32) {
    const float* p = reinterpret_cast<const float*>(base);
#pragma omp parallel for schedule(static) if (n * cols > (1 << 16))
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < cols; ++j) m(i, j) = p[(r0 + i) * s0 + j * s1];
    return m;
  }
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < cols; ++j) m(i, j) = dec(base + ((r0 + i) * s0 + j * s1) * static_cast<std::int64_t>(eb));
  return m;
}

MatD to_matrix(const Tensor& t) {
  if (t.dim() != 2) throw std::invalid_argument("gemm::to_matrix needs a 2-D tensor, got " + describe(t));
  return rows_to_matrix(t, 0, t.size(0));
}

std::vector<double> to_vector(const Tensor& t) {
  if (t.dim() != 1) throw std::invalid_argument("gemm::to_vector needs a 1-D tensor, got " + describe(t));
  std::vector<double> v(t.size(0));
  if (v.empty()) return v;
  Decoder dec(t.dtype());
  for (std::int64_t i = 0; i < t.size(0); ++i)
    v[i] = dec(t.data() + i * t.stride(0) * static_cast<std::int64_t>(t.element_bytes()));
  return v;
}

double round_to_bf16(double x) {
  return formats::decode(formats::Format::bf16, formats::encode_ieee_rne(formats::Format::bf16, x));
}

}  // namespace dsv4::gemm
