// Error-model building blocks; see error_models.hpp.
#include "oracle/error_models.hpp"

#include <cmath>
#include <limits>

#include "reference/formats/format.hpp"

namespace dsv4::oracle {

double gamma_n(std::int64_t n, double u) {
  double nu = static_cast<double>(n) * u;
  return nu >= 1 ? std::numeric_limits<double>::infinity() : nu / (1 - nu);
}

double ulp_at(DType t, double v) {
  if (is_integer(t)) return 1;
  int mant = 0, emin = 0;
  switch (t) {
    case DType::F64: mant = 52, emin = -1022; break;
    case DType::F32: mant = 23, emin = -126; break;
    default: {
      auto f = format_of(t);
      if (!f) return 0;
      const auto& fi = formats::info(*f);
      mant = fi.mantissa_bits;
      emin = fi.kind == formats::SpecialKind::e8m0 ? -fi.bias : 1 - fi.bias;
    }
  }
  double m = std::fabs(v);
  int e = (m > 0 && std::isfinite(m)) ? std::ilogb(m) : emin;
  if (e < emin) e = emin;
  return std::ldexp(1.0, e - mant);
}

double dot_product_bound(std::int64_t K, double S, double exact, DType out, double u) {
  double acc = gamma_n(K, u) * S;
  return acc + ulp_at(out, std::fabs(exact) + acc);
}

double probabilistic_dot_product_bound(std::int64_t K, double S, double exact, DType out, double lambda, double u) {
  double acc = lambda * std::sqrt(static_cast<double>(K)) * u * S;
  return acc + ulp_at(out, std::fabs(exact) + acc);
}

}  // namespace dsv4::oracle
