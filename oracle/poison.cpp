// Poison patterns and the written-check. See poison.hpp for the choice of patterns and the NaN rule.
#include "oracle/poison.hpp"

#include <cmath>

#include "reference/registry/op_descriptor.hpp"

namespace dsv4::oracle {

std::uint64_t poison_code(DType t, PoisonPattern p) {
  bool alt = p == PoisonPattern::alternate;
  switch (t) {
    case DType::F64: return alt ? 0xFFF4A5A5A5A5A5A5ull : 0x7FF4A5A5A5A5A5A5ull;
    case DType::F32: return alt ? 0xFFA5A5A5u : 0x7FA5A5A5u;
    case DType::F16: return alt ? 0xFDA5u : 0x7DA5u;
    case DType::BF16: return alt ? 0xFFA5u : 0x7FA5u;
    case DType::F8_E4M3FN: return alt ? 0x7Fu : 0xFFu;
    case DType::F8_E4M3FNUZ: return 0x80u;
    case DType::F8_E5M2: return alt ? 0xFFu : 0xFDu;
    case DType::F8_E5M2FNUZ: return 0x80u;
    case DType::F8_E8M0: return 0xFFu;
    case DType::I64: return alt ? 0x5A5A5A5A5A5A5A5Aull : 0xA5A5A5A5A5A5A5A5ull;
    case DType::I32: return alt ? 0x5A5A5A5Au : 0xA5A5A5A5u;
    case DType::I16: return alt ? 0x5A5Au : 0xA5A5u;
    case DType::I8:
    case DType::U8: return alt ? 0x5Au : 0xA5u;
  }
  throw InputError("poison: unsupported dtype");
}

void poison(Tensor& t, PoisonPattern p) {
  if (!t.defined()) throw InputError("poison: the output tensor is undefined");
  std::uint64_t c = poison_code(t.dtype(), p);
  for (std::int64_t i = 0; i < t.numel(); ++i) t.set_code_linear(i, c);
}

WriteCheck check_written(const Tensor& actual, PoisonPattern p, const Tensor* expected) {
  if (expected && expected->shape() != actual.shape())
    throw InputError("check_written: expected shape " + shape_str(expected->shape()) + " differs from actual " +
                     shape_str(actual.shape()));
  WriteCheck w;
  std::uint64_t c = poison_code(actual.dtype(), p);
  // Only fp8/e8m0 poisons are the format's ordinary NaN code; wider floats use a signalling NaN.
  bool nan_is_ambiguous = format_of(actual.dtype()).has_value() && actual.dtype() != DType::F16 &&
                          actual.dtype() != DType::BF16;
  const bool every_code_legal = actual.dtype() == DType::U8 || actual.dtype() == DType::I8;
  for (std::int64_t i = 0; i < actual.numel(); ++i) {
    if (actual.code_linear(i) != c) continue;
    if (expected && nan_is_ambiguous && std::isnan(expected->get_linear(i))) w.indeterminate.push_back(i);
    // Byte outputs (U8/I8, e.g. a KV cache): every code is legal, so where the reference expects the poison byte
    // itself a single run cannot tell written from unwritten (unwritten_in_both decides it with two runs).
    else if (expected && every_code_legal && expected->code_linear(i) == c) w.indeterminate.push_back(i);
    else w.unwritten.push_back(i);
  }
  return w;
}

std::vector<std::int64_t> unwritten_in_both(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype())
    throw InputError("unwritten_in_both: the two runs' outputs differ in shape or dtype");
  std::uint64_t c1 = poison_code(a.dtype(), PoisonPattern::primary);
  std::uint64_t c2 = poison_code(a.dtype(), PoisonPattern::alternate);
  std::vector<std::int64_t> r;
  for (std::int64_t i = 0; i < a.numel(); ++i)
    if (a.code_linear(i) == c1 && b.code_linear(i) == c2) r.push_back(i);
  return r;
}

}  // namespace dsv4::oracle
