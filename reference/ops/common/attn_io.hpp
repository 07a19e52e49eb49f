// Small helpers shared by the attention references: fast bf16/fp32/int element loads through a
// tensor's real strides (the hot loops avoid Tensor::get's generic path), output stores rounded
// once, and typed attribute readers that raise InputError naming the attribute.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "reference/formats/format.hpp"
#include "reference/formats/rne_fast.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::attn {

// Element at element offset `off` (relative to t.data()) of a BF16 tensor, as float64.
inline double load_bf16(const Tensor& t, std::int64_t off) {
  return formats::bf16_to_double(t.ptr<std::uint16_t>()[off]);
}

inline void store_bf16(Tensor& t, std::int64_t off, double v) {
  t.ptr<std::uint16_t>()[off] = formats::bf16_rne(v);
}

inline void store_f32(Tensor& t, std::int64_t off, double v) { t.ptr<float>()[off] = static_cast<float>(v); }

// Integer element (I32 or I64) at element offset `off`.
inline std::int64_t load_index(const Tensor& t, std::int64_t off) {
  return t.dtype() == DType::I64 ? t.ptr<std::int64_t>()[off] : t.ptr<std::int32_t>()[off];
}

// Any floating tensor element (F32/F16/BF16/F64) through its strides, as float64.
inline double load_float(const Tensor& t, std::int64_t off) {
  switch (t.dtype()) {
    case DType::F32: return t.ptr<float>()[off];
    case DType::F64: return t.ptr<double>()[off];
    case DType::BF16: return load_bf16(t, off);
    default: {
      std::uint16_t c = t.ptr<std::uint16_t>()[off];
      return formats::decode(formats::Format::fp16, c);
    }
  }
}

inline std::string attr_string(const std::string& op, const Json& attrs, const std::string& name) {
  const Json& v = attrs.at(name);
  if (!v.is_string()) throw InputError(fmt::format("{}: attribute '{}' must be a string, got {}", op, name, v.dump()));
  return v.get<std::string>();
}

inline double attr_double(const std::string& op, const Json& attrs, const std::string& name) {
  if (!attrs.contains(name) || attrs.at(name).is_null())
    throw InputError(fmt::format("{}: attribute '{}' is required", op, name));
  const Json& v = attrs.at(name);
  if (!v.is_number()) throw InputError(fmt::format("{}: attribute '{}' must be a number, got {}", op, name, v.dump()));
  return v.get<double>();
}

inline std::int64_t attr_int(const std::string& op, const Json& attrs, const std::string& name) {
  if (!attrs.contains(name) || attrs.at(name).is_null())
    throw InputError(fmt::format("{}: attribute '{}' is required", op, name));
  const Json& v = attrs.at(name);
  if (!v.is_number_integer())
    throw InputError(fmt::format("{}: attribute '{}' must be an integer, got {}", op, name, v.dump()));
  return v.get<std::int64_t>();
}

inline bool attr_present(const Json& attrs, const std::string& name) {
  return attrs.contains(name) && !attrs.at(name).is_null();
}

// String attribute with a default when absent (references may be called without validate_case).
inline std::string attr_string_or(const std::string& op, const Json& attrs, const std::string& name,
                                  const std::string& dflt) {
  return attr_present(attrs, name) ? attr_string(op, attrs, name) : dflt;
}

}  // namespace dsv4::attn
