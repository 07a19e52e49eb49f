// Tensor implementation; see tensor.hpp.
#include "reference/tensor/tensor.hpp"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "reference/formats/format.hpp"
#include "reference/formats/rne_fast.hpp"

namespace dsv4 {

std::string shape_str(const Shape& s) {
  std::string r = "[";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

std::int64_t shape_numel(const Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

Shape contiguous_strides(const Shape& s) {
  Shape st(s.size());
  std::int64_t acc = 1;
  for (int i = static_cast<int>(s.size()) - 1; i >= 0; --i) {
    st[i] = acc;
    acc *= std::max<std::int64_t>(s[i], 1);
  }
  return st;
}

Tensor Tensor::empty(DType t, Shape shape) {
  for (auto d : shape)
    if (d < 0) throw std::invalid_argument("Tensor::empty: negative dimension in " + shape_str(shape));
  Tensor r;
  r.dtype_ = t;
  r.strides_ = contiguous_strides(shape);
  r.shape_ = std::move(shape);
  r.storage_ = std::make_shared<std::vector<std::byte>>(static_cast<std::size_t>(r.numel()) * element_size(t));
  return r;
}

Tensor Tensor::from_f64(DType t, Shape shape, const std::vector<double>& values) {
  Tensor r = empty(t, std::move(shape));
  if (static_cast<std::int64_t>(values.size()) != r.numel())
    throw std::invalid_argument(fmt::format("Tensor::from_f64: {} values for shape {}", values.size(), shape_str(r.shape_)));
  for (std::int64_t i = 0; i < r.numel(); ++i) r.set_linear(i, values[i]);
  return r;
}

Tensor Tensor::from_codes(DType t, Shape shape, const std::vector<std::uint64_t>& codes) {
  Tensor r = empty(t, std::move(shape));
  if (static_cast<std::int64_t>(codes.size()) != r.numel())
    throw std::invalid_argument(fmt::format("Tensor::from_codes: {} codes for shape {}", codes.size(), shape_str(r.shape_)));
  for (std::int64_t i = 0; i < r.numel(); ++i) r.set_code_linear(i, codes[i]);
  return r;
}

std::int64_t Tensor::size(int d) const {
  if (d < 0) d += dim();
  if (d < 0 || d >= dim()) throw std::out_of_range(fmt::format("size({}) of a {}-d tensor", d, dim()));
  return shape_[d];
}
std::int64_t Tensor::stride(int d) const {
  if (d < 0) d += dim();
  if (d < 0 || d >= dim()) throw std::out_of_range(fmt::format("stride({}) of a {}-d tensor", d, dim()));
  return strides_[d];
}

bool Tensor::is_contiguous() const {
  std::int64_t acc = 1;
  for (int i = dim() - 1; i >= 0; --i) {
    if (shape_[i] != 1 && strides_[i] != acc) return false;
    acc *= shape_[i];
  }
  return true;
}

std::byte* Tensor::data() { return storage_->data() + offset_ * element_bytes(); }
const std::byte* Tensor::data() const { return storage_->data() + offset_ * element_bytes(); }

std::int64_t Tensor::element_offset(std::span<const std::int64_t> idx) const {
  if (static_cast<int>(idx.size()) != dim())
    throw std::invalid_argument(fmt::format("index of rank {} into a tensor of rank {}", idx.size(), dim()));
  std::int64_t off = 0;
  for (int i = 0; i < dim(); ++i) {
    if (idx[i] < 0 || idx[i] >= shape_[i])
      throw std::out_of_range(fmt::format("index {} out of range for dim {} of size {}", idx[i], i, shape_[i]));
    off += idx[i] * strides_[i];
  }
  return off;
}

namespace {
std::uint64_t load_code(const std::byte* p, std::size_t n) {
  std::uint64_t c = 0;
  std::memcpy(&c, p, n);  // little-endian host
  return c;
}
void store_code(std::byte* p, std::size_t n, std::uint64_t c) { std::memcpy(p, &c, n); }

double decode_value(DType t, std::uint64_t c) {
  switch (t) {
    case DType::F64: { double d; std::memcpy(&d, &c, 8); return d; }
    case DType::F32: { float f; std::uint32_t u = static_cast<std::uint32_t>(c); std::memcpy(&f, &u, 4); return f; }
    case DType::I64: return static_cast<double>(static_cast<std::int64_t>(c));
    case DType::I32: return static_cast<std::int32_t>(static_cast<std::uint32_t>(c));
    case DType::I16: return static_cast<std::int16_t>(static_cast<std::uint16_t>(c));
    case DType::I8: return static_cast<std::int8_t>(static_cast<std::uint8_t>(c));
    case DType::U8: return static_cast<double>(c & 0xFF);
    default: return formats::decode(*format_of(t), static_cast<std::uint32_t>(c));
  }
}

std::uint64_t encode_value(DType t, double v) {
  switch (t) {
    case DType::F64: { std::uint64_t c; std::memcpy(&c, &v, 8); return c; }
    case DType::F32: { float f = static_cast<float>(v); std::uint32_t u; std::memcpy(&u, &f, 4); return u; }
    case DType::F16: return formats::fp16_rne(v);  // = encode_ieee_rne (test_rne_fast)
    case DType::BF16: return formats::bf16_rne(v);
    case DType::I64: case DType::I32: case DType::I16: case DType::I8: case DType::U8: {
      if (!std::isfinite(v) || v != std::nearbyint(v))
        throw std::invalid_argument(fmt::format("cannot store {} in an integer tensor of type {}", v, dtype_name(t)));
      return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
    }
    default:
      throw std::invalid_argument(fmt::format(
          "Tensor::set on a {} tensor: fp8/e8m0 values need an explicit encode mode; use set_code", dtype_name(t)));
  }
}
}  // namespace

double Tensor::get(std::span<const std::int64_t> idx) const {
  return decode_value(dtype_, load_code(data() + element_offset(idx) * element_bytes(), element_bytes()));
}
void Tensor::set(std::span<const std::int64_t> idx, double v) {
  store_code(data() + element_offset(idx) * element_bytes(), element_bytes(), encode_value(dtype_, v));
}
std::uint64_t Tensor::code(std::span<const std::int64_t> idx) const {
  return load_code(data() + element_offset(idx) * element_bytes(), element_bytes());
}
void Tensor::set_code(std::span<const std::int64_t> idx, std::uint64_t c) {
  store_code(data() + element_offset(idx) * element_bytes(), element_bytes(), c);
}

void Tensor::linear_to_index(std::int64_t i, std::int64_t* idx) const {
  if (i < 0 || i >= numel()) throw std::out_of_range(fmt::format("linear index {} of {} elements", i, numel()));
  for (int d = dim() - 1; d >= 0; --d) {
    idx[d] = i % shape_[d];
    i /= shape_[d];
  }
}

namespace {
// A multi-index of a tensor's rank on the stack (heap only past 16 dimensions): the linear accessors
// allocate nothing per element.
class IndexBuffer {
 public:
  explicit IndexBuffer(int rank) : rank_(rank) {
    if (rank > kStackDims) heap_.resize(static_cast<std::size_t>(rank));
  }
  std::int64_t* data() { return rank_ > kStackDims ? heap_.data() : stack_; }
  std::span<const std::int64_t> span() { return {data(), static_cast<std::size_t>(rank_)}; }

 private:
  static constexpr int kStackDims = 16;
  int rank_;
  std::int64_t stack_[kStackDims];
  std::vector<std::int64_t> heap_;
};
}  // namespace

double Tensor::get_linear(std::int64_t i) const {
  IndexBuffer idx(dim());
  linear_to_index(i, idx.data());
  return get(idx.span());
}
void Tensor::set_linear(std::int64_t i, double v) {
  IndexBuffer idx(dim());
  linear_to_index(i, idx.data());
  set(idx.span(), v);
}
std::uint64_t Tensor::code_linear(std::int64_t i) const {
  IndexBuffer idx(dim());
  linear_to_index(i, idx.data());
  return code(idx.span());
}
void Tensor::set_code_linear(std::int64_t i, std::uint64_t c) {
  IndexBuffer idx(dim());
  linear_to_index(i, idx.data());
  set_code(idx.span(), c);
}

std::vector<double> Tensor::to_f64() const {
  std::vector<double> r(numel());
  if (is_contiguous()) {
    const std::size_t eb = element_bytes();
    for (std::int64_t i = 0; i < numel(); ++i) r[i] = decode_value(dtype_, load_code(data() + i * eb, eb));
    return r;
  }
  for (std::int64_t i = 0; i < numel(); ++i) r[i] = get_linear(i);
  return r;
}

std::vector<std::uint64_t> Tensor::to_codes() const {
  std::vector<std::uint64_t> r(numel());
  for (std::int64_t i = 0; i < numel(); ++i) r[i] = code_linear(i);
  return r;
}

Tensor Tensor::transpose(int d0, int d1) const {
  if (d0 < 0) d0 += dim();
  if (d1 < 0) d1 += dim();
  if (d0 < 0 || d1 < 0 || d0 >= dim() || d1 >= dim()) throw std::out_of_range("transpose: bad dimensions");
  Tensor r = *this;
  std::swap(r.shape_[d0], r.shape_[d1]);
  std::swap(r.strides_[d0], r.strides_[d1]);
  return r;
}

Tensor Tensor::slice(int d, std::int64_t start, std::int64_t length) const {
  if (d < 0) d += dim();
  if (d < 0 || d >= dim() || start < 0 || length < 0 || start + length > shape_[d])
    throw std::out_of_range(fmt::format("slice(dim {}, start {}, length {}) of shape {}", d, start, length, shape_str(shape_)));
  Tensor r = *this;
  r.offset_ += start * strides_[d];
  r.shape_[d] = length;
  return r;
}

Tensor Tensor::select(int d, std::int64_t index) const {
  Tensor r = slice(d, index, 1);
  if (d < 0) d += dim();
  r.shape_.erase(r.shape_.begin() + d);
  r.strides_.erase(r.strides_.begin() + d);
  return r;
}

Tensor Tensor::as_strided(Shape shape, Shape strides, std::int64_t offset) const {
  if (shape.size() != strides.size()) throw std::invalid_argument("as_strided: shape and strides differ in rank");
  std::int64_t hi = offset, lo = offset;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) throw std::invalid_argument("as_strided: negative size");
    if (shape[i] == 0) { hi = lo = offset; break; }
    (strides[i] >= 0 ? hi : lo) += (shape[i] - 1) * strides[i];
  }
  const auto cap = static_cast<std::int64_t>(storage_bytes() / element_bytes());
  if (lo < 0 || (shape_numel(shape) > 0 && hi >= cap))
    throw std::out_of_range(fmt::format("as_strided: view {} strides {} offset {} exceeds storage of {} elements",
                                        shape_str(shape), shape_str(strides), offset, cap));
  Tensor r = *this;
  r.shape_ = std::move(shape);
  r.strides_ = std::move(strides);
  r.offset_ = offset;
  return r;
}

Tensor Tensor::reshape(Shape shape) const {
  if (!is_contiguous()) throw std::invalid_argument("reshape: tensor is not contiguous");
  if (shape_numel(shape) != numel())
    throw std::invalid_argument(fmt::format("reshape: {} to {}", shape_str(shape_), shape_str(shape)));
  Tensor r = *this;
  r.strides_ = contiguous_strides(shape);
  r.shape_ = std::move(shape);
  return r;
}

Tensor Tensor::view_as(DType t) const {
  if (element_size(t) != element_bytes())
    throw std::invalid_argument(fmt::format("view_as: {} and {} differ in element size", dtype_name(dtype_), dtype_name(t)));
  Tensor r = *this;
  r.dtype_ = t;
  return r;
}

Tensor Tensor::contiguous() const {
  Tensor r = empty(dtype_, shape_);
  const std::size_t eb = element_bytes();
  if (is_contiguous()) {
    if (numel()) std::memcpy(r.data(), data(), numel() * eb);
    return r;
  }
  for (std::int64_t i = 0; i < numel(); ++i) r.set_code_linear(i, code_linear(i));
  return r;
}

void Tensor::fill_bytes(std::uint8_t byte) {
  if (is_contiguous()) {
    std::memset(data(), byte, numel() * element_bytes());
    return;
  }
  std::uint64_t c = 0;
  std::memset(&c, byte, element_bytes());
  for (std::int64_t i = 0; i < numel(); ++i) set_code_linear(i, c);
}

void Tensor::fill(double v) {
  const std::uint64_t c = encode_value(dtype_, v);
  const std::size_t eb = element_bytes();
  if (is_contiguous()) {
    std::byte* p = data();
    for (std::int64_t i = 0; i < numel(); ++i) store_code(p + i * eb, eb, c);
    return;
  }
  for (std::int64_t i = 0; i < numel(); ++i) set_code_linear(i, c);
}

std::string describe(const Tensor& t) {
  if (!t.defined()) return "<undefined tensor>";
  std::string s = fmt::format("{}{}", dtype_name(t.dtype()), shape_str(t.shape()));
  if (!t.is_contiguous()) s += " (strides " + shape_str(t.strides()) + ")";
  return s;
}

}  // namespace dsv4
