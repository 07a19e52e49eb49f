// Float64 decode of tensors into Eigen matrices; see gemm_matrix.hpp.
#include "reference/ops/common/gemm_matrix.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>

#include "reference/formats/rne_fast.hpp"

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

const double* code_table(DType t) {
  const std::vector<double>* v = table_for(t);
  return v ? v->data() : nullptr;
}

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

void decode_block(const Tensor& t, std::int64_t r0, std::int64_t n, std::int64_t c0, std::int64_t w, double* dst,
                  std::int64_t ld) {
  if (t.dim() != 2) throw std::invalid_argument("gemm::decode_block needs a 2-D tensor, got " + describe(t));
  if (r0 < 0 || n < 0 || r0 + n > t.size(0) || c0 < 0 || w < 0 || c0 + w > t.size(1) || ld < w)
    throw std::out_of_range(fmt::format("gemm::decode_block: rows [{}, {}) cols [{}, {}) ld {} of {}", r0, r0 + n, c0,
                                        c0 + w, ld, describe(t)));
  if (n == 0 || w == 0) return;
  const std::int64_t s0 = t.stride(0), s1 = t.stride(1);
  const std::byte* base = t.data();
  auto rows = [&](auto code_type, auto decode) {
    using C = decltype(code_type);
    const C* p = reinterpret_cast<const C*>(base);
    for (std::int64_t i = 0; i < n; ++i) {
      const C* row = p + (r0 + i) * s0 + c0 * s1;
      double* out = dst + i * ld;
      if (s1 == 1) {
        for (std::int64_t j = 0; j < w; ++j) out[j] = decode(row[j]);
      } else {
        for (std::int64_t j = 0; j < w; ++j) out[j] = decode(row[j * s1]);
      }
    }
  };
  switch (t.dtype()) {
    case DType::BF16: rows(std::uint16_t{}, [](std::uint16_t c) { return formats::bf16_to_double(c); }); return;
    case DType::F32: rows(float{}, [](float f) { return static_cast<double>(f); }); return;
    case DType::F64: rows(double{}, [](double d) { return d; }); return;
    default: break;
  }
  if (const std::vector<double>* lut = table_for(t.dtype())) {
    const double* tab = lut->data();
    if (t.element_bytes() == 1) rows(std::uint8_t{}, [tab](std::uint8_t c) { return tab[c]; });
    else rows(std::uint16_t{}, [tab](std::uint16_t c) { return tab[c]; });
    return;
  }
  const Decoder dec(t.dtype());
  const auto eb = static_cast<std::int64_t>(t.element_bytes());
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < w; ++j) dst[i * ld + j] = dec(base + ((r0 + i) * s0 + (c0 + j) * s1) * eb);
}

MatD rows_to_matrix(const Tensor& t, std::int64_t r0, std::int64_t n) {
  if (t.dim() != 2) throw std::invalid_argument("gemm::rows_to_matrix needs a 2-D tensor, got " + describe(t));
  const std::int64_t cols = t.size(1);
  MatD m(n, cols);
  if (n == 0 || cols == 0) return m;
  constexpr std::int64_t kRowsPerTask = 64;
  const std::int64_t tasks = (n + kRowsPerTask - 1) / kRowsPerTask;
#pragma omp parallel for schedule(static) if (n * cols > (1 << 16))
  for (std::int64_t p = 0; p < tasks; ++p) {
    const std::int64_t i0 = p * kRowsPerTask, rows = std::min(kRowsPerTask, n - i0);
    decode_block(t, r0 + i0, rows, 0, cols, m.data() + i0 * cols, cols);
  }
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

double round_to_bf16(double x) { return formats::bf16_to_double(formats::bf16_rne(x)); }

}  // namespace dsv4::gemm
