// Tensor: a dtype, a shape and element strides over shared host storage. Views (transpose, slice,
// as_strided) share storage, so non-contiguous inputs, as the real kernels receive them, are
// first-class. Element access goes through float64 (get/set) or raw codes (code/set_code).
//
// Storing a float64 into a low-precision tensor with set() rounds once, round-to-nearest-even with
// IEEE overflow (F32, F16, BF16); fp8 and e8m0 tensors refuse set() and need set_code() with an
// explicitly chosen encode mode (formats.md §0: no mode is chosen silently).
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "reference/tensor/dtype.hpp"

namespace dsv4 {

using Shape = std::vector<std::int64_t>;

std::string shape_str(const Shape& s);  // "[2, 3, 4]"
std::int64_t shape_numel(const Shape& s);
Shape contiguous_strides(const Shape& s);

class Tensor {
 public:
  Tensor() = default;

  // A new contiguous tensor. Contents are zero bytes unless filled; prefer poisoning outputs.
  static Tensor empty(DType t, Shape shape);
  static Tensor from_f64(DType t, Shape shape, const std::vector<double>& values);  // via set()
  static Tensor from_codes(DType t, Shape shape, const std::vector<std::uint64_t>& codes);

  bool defined() const { return storage_ != nullptr; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  const Shape& strides() const { return strides_; }  // in elements
  std::int64_t offset() const { return offset_; }     // in elements
  int dim() const { return static_cast<int>(shape_.size()); }
  std::int64_t size(int d) const;                     // negative d counts from the end
  std::int64_t stride(int d) const;
  std::int64_t numel() const { return shape_numel(shape_); }
  bool is_contiguous() const;
  std::size_t element_bytes() const { return element_size(dtype_); }

  // Storage access. data() points at element (0,...,0); storage_bytes() is the whole allocation.
  std::byte* data();
  const std::byte* data() const;
  std::size_t storage_bytes() const { return storage_ ? storage_->size() : 0; }
  template <typename T> T* ptr() { return reinterpret_cast<T*>(data()); }
  template <typename T> const T* ptr() const { return reinterpret_cast<const T*>(data()); }

  // Element offset (in elements, relative to data()) of a multi-index.
  std::int64_t element_offset(std::span<const std::int64_t> idx) const;

  // float64 access by multi-index. get() decodes exactly (fp8, e8m0, bf16, ...).
  double get(std::span<const std::int64_t> idx) const;
  double get(std::initializer_list<std::int64_t> idx) const { return get(std::span(idx.begin(), idx.size())); }
  void set(std::span<const std::int64_t> idx, double v);
  void set(std::initializer_list<std::int64_t> idx, double v) { set(std::span(idx.begin(), idx.size()), v); }
  // Raw code (bit pattern, zero-extended) by multi-index.
  std::uint64_t code(std::span<const std::int64_t> idx) const;
  void set_code(std::span<const std::int64_t> idx, std::uint64_t c);
  std::uint64_t code(std::initializer_list<std::int64_t> idx) const { return code(std::span(idx.begin(), idx.size())); }
  void set_code(std::initializer_list<std::int64_t> idx, std::uint64_t c) { set_code(std::span(idx.begin(), idx.size()), c); }

  // Linear (row-major logical order) access, for any strides.
  double get_linear(std::int64_t i) const;
  void set_linear(std::int64_t i, double v);
  std::uint64_t code_linear(std::int64_t i) const;
  void set_code_linear(std::int64_t i, std::uint64_t c);

  // All elements in row-major logical order as float64 (decoded) or raw codes.
  std::vector<double> to_f64() const;
  std::vector<std::uint64_t> to_codes() const;

  // Views sharing storage.
  Tensor transpose(int d0, int d1) const;
  Tensor slice(int d, std::int64_t start, std::int64_t length) const;
  Tensor select(int d, std::int64_t index) const;  // removes dimension d
  Tensor as_strided(Shape shape, Shape strides, std::int64_t offset) const;
  Tensor reshape(Shape shape) const;  // contiguous tensors only (a view)
  Tensor view_as(DType t) const;      // same element size only

  // A contiguous copy (same dtype); fill every element's bytes with a byte pattern.
  Tensor contiguous() const;
  Tensor clone() const { return contiguous(); }
  void fill_bytes(std::uint8_t byte);
  void fill(double v);

 private:
  void linear_to_index(std::int64_t i, std::int64_t* idx) const;
  std::shared_ptr<std::vector<std::byte>> storage_;
  DType dtype_ = DType::F32;
  Shape shape_, strides_;
  std::int64_t offset_ = 0;
};

// Convenience: a tensor with its dtype/shape printed, e.g. "BF16[2, 3] (strides [3, 1])".
std::string describe(const Tensor& t);

}  // namespace dsv4
