// Argument checks shared by the op references: each failure throws InputError naming the op, the
// argument and the rule it broke, before anything is computed.
#pragma once
#include <initializer_list>
#include <string>

#include <fmt/format.h>

#include "reference/registry/op_descriptor.hpp"

namespace dsv4::checks {

// t must have exactly `rank` dimensions.
inline void rank(const std::string& op, const std::string& arg, const Tensor& t, int r, const std::string& rule) {
  if (t.dim() != r)
    throw InputError(fmt::format("{}: argument '{}' must be {} (rank {}), got shape {}", op, arg, rule, r, shape_str(t.shape())));
}

// t.size(d) must equal `expected`; `what` names the symbol (e.g. "h_q").
inline void dim_eq(const std::string& op, const std::string& arg, const Tensor& t, int d, std::int64_t expected,
                   const std::string& what) {
  if (t.size(d) != expected)
    throw InputError(fmt::format("{}: argument '{}' dim {} must equal {} = {}, got {} (shape {})", op, arg, d, what,
                                 expected, t.size(d), shape_str(t.shape())));
}

inline void dtype_in(const std::string& op, const std::string& arg, const Tensor& t, std::initializer_list<DType> ok) {
  for (DType d : ok) if (t.dtype() == d) return;
  std::string s;
  for (DType d : ok) s += (s.empty() ? "" : ", ") + std::string(dtype_name(d));
  throw InputError(fmt::format("{}: argument '{}' has dtype {}, must be one of: {}", op, arg, dtype_name(t.dtype()), s));
}

inline void require(bool ok, const std::string& op, const std::string& arg, const std::string& rule) {
  if (!ok) throw InputError(fmt::format("{}: argument '{}': {}", op, arg, rule));
}

// The last dimension must be contiguous (stride 1).
inline void last_dim_contiguous(const std::string& op, const std::string& arg, const Tensor& t) {
  if (t.dim() > 0 && t.size(-1) > 1 && t.stride(-1) != 1)
    throw InputError(fmt::format("{}: argument '{}' must have a contiguous last dimension, strides {}", op, arg,
                                 shape_str(t.strides())));
}

}  // namespace dsv4::checks
