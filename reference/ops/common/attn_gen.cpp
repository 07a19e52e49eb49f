// Random-case helpers for the attention generators; see attn_gen.hpp.
#include "reference/ops/common/attn_gen.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <unordered_set>

namespace dsv4::attn {

double gen_value(std::mt19937_64& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  std::uniform_real_distribution<double> u(-0.05, 0.05);
  return n(rng) / 10.0 + u(rng);
}

Tensor gen_bf16(std::mt19937_64& rng, const Shape& shape, std::int64_t pad) {
  Shape alloc = shape;
  if (pad > 0 && alloc.size() >= 2) alloc[alloc.size() - 2] += pad;
  Tensor base = Tensor::empty(DType::BF16, alloc);
  base.fill(std::numeric_limits<double>::quiet_NaN());  // padding holds NaN: it must never be read
  Tensor t = base.as_strided(shape, base.strides(), 0);
  for (std::int64_t i = 0; i < t.numel(); ++i) t.set_linear(i, gen_value(rng));
  return t;
}

std::vector<std::int64_t> gen_index_row(std::mt19937_64& rng, std::int64_t n_keys, std::int64_t topk,
                                        std::int64_t n_valid, const std::vector<std::int64_t>& invalid_values) {
  std::vector<std::int64_t> row(static_cast<std::size_t>(topk));
  n_valid = std::min({n_valid, topk, n_keys});
  if (n_keys > 4 * n_valid) {
    // Sparse draw: rejection sampling of distinct keys (O(topk) instead of O(n_keys) per row).
    std::unordered_set<std::int64_t> seen;
    std::uniform_int_distribution<std::int64_t> d(0, n_keys - 1);
    for (std::int64_t i = 0; i < n_valid;) {
      const std::int64_t k = d(rng);
      if (seen.insert(k).second) row[i++] = k;
    }
  } else {
    // Partial Fisher-Yates over [0, n_keys) for a unique prefix.
    std::vector<std::int64_t> perm(static_cast<std::size_t>(n_keys));
    std::iota(perm.begin(), perm.end(), 0);
    for (std::int64_t i = 0; i < n_valid; ++i) {
      std::uniform_int_distribution<std::int64_t> d(i, n_keys - 1);
      std::swap(perm[i], perm[d(rng)]);
      row[i] = perm[i];
    }
  }
  std::uniform_int_distribution<std::size_t> pick(0, invalid_values.size() - 1);
  for (std::int64_t i = n_valid; i < topk; ++i) row[i] = invalid_values[pick(rng)];
  return row;
}

Tensor gen_sink(std::mt19937_64& rng, std::int64_t h) {
  Tensor s = Tensor::empty(DType::F32, {h});
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> n(0.0, 1.0);
  for (std::int64_t i = 0; i < h; ++i) {
    const double r = u(rng);
    const double inf = std::numeric_limits<double>::infinity();
    s.set({i}, r < 0.3 ? -inf : r < 0.6 ? inf : n(rng));
  }
  return s;
}

}  // namespace dsv4::attn
