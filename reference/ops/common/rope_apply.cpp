// RoPE rotation; see rope_apply.hpp.
#include "reference/ops/common/rope_apply.hpp"

#include <stdexcept>

namespace dsv4::rope {

Pairing parse_pairing(const std::string& s) {
  if (s == "interleaved") return Pairing::interleaved;
  if (s == "neox") return Pairing::neox;
  throw std::invalid_argument("unknown RoPE pairing '" + s + "' (interleaved, neox)");
}

void apply(double* x, int rope_dim, const double* cos_sin, Pairing pairing, bool inverse) {
  const int half = rope_dim / 2;
  for (int i = 0; i < half; ++i) {
    const int ia = pairing == Pairing::interleaved ? 2 * i : i;
    const int ib = pairing == Pairing::interleaved ? 2 * i + 1 : i + half;
    const double a = x[ia], b = x[ib], c = cos_sin[i], s = cos_sin[half + i];
    if (inverse) {
      x[ia] = a * c + b * s;
      x[ib] = b * c - a * s;
    } else {
      x[ia] = a * c - b * s;
      x[ib] = a * s + b * c;
    }
  }
}

}  // namespace dsv4::rope
