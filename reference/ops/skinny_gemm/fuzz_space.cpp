// The fuzz space of skinny_gemm (ops.md §6): N on the n_p2 row classes and the 10..128 range ends, M on 16-row
// edges, K on multiples of 8 with the float64 reference kept affordable; optional padded rows of a (Kap, also not
// 16-byte rows). The kernel entry moves campaign shapes onto its own plan's boundaries
// (KernelEntry::onto_plan_boundaries). Specials: exactly cancelling rows, zero and negative-zero rows, a large bias
// (single rounding).
#include <algorithm>
#include <cmath>

#include "reference/ops/common/fuzz_draw.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops {

using namespace draw;

FuzzSpace skinny_gemm_fuzz_space() {
  FuzzSpace g;
  g.value_inputs = {"a", "b", "bias"};
  g.scale_inputs = {"a"};
  g.deterministic = true;
  g.determinism_note = "ops.md §6: the deterministic mode is bit-reproducible";
  g.shapes = [](std::mt19937_64& rng, ShapeScale sc) {
    Json s;
    s["dtype"] = coin(rng) ? "bf16" : "fp16";
    s["bias"] = pick<std::string>(rng, {"none", "m", "nm", "1m"});
    if (sc == ShapeScale::test) {
      s["N"] = pick_int(rng, {1, 9, 16, 17, 33});
      s["M"] = pick_int(rng, {1, 15, 16, 17, 64});
      s["K"] = pick_int(rng, {8, 16, 64, 504, 512, 520});
      if (coin(rng, 0.3)) s["Kap"] = s["K"].get<std::int64_t>() + 8 * uniform(rng, 1, 2);
      return s;
    }
    const std::int64_t n = coin(rng, 0.03) ? 129 : pick_int(rng, {1, 9, 10, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128});
    std::int64_t m = align_edge(rng, 16, 64);
    const std::int64_t k = std::max<std::int64_t>(8, align_edge(rng, pick_int(rng, {64, 512}), 64, 8));
    // Keep the float64 reference and the inputs affordable: N·M·K <= 2^28 and M·K <= 2^23.
    while ((n * m * k > (std::int64_t{1} << 28) || m * k > (std::int64_t{1} << 23)) && m > 16)
      m = std::max<std::int64_t>(16, m / 2);
    s["N"] = n;
    s["M"] = m;
    s["K"] = k;
    if (coin(rng, 0.25)) s["Kap"] = k + (coin(rng, 0.9) ? 8 * uniform(rng, 1, 4) : 4);  // 4: not 16-byte rows
    return s;
  };
  g.specials = [](OpCase& c, const Json&, std::mt19937_64& rng) {
    Tensor& a = c.inputs.at("a");
    Tensor& b = c.inputs.at("b");
    const std::int64_t N = a.size(0), K = a.size(1), M = b.size(0);
    // b row 0 constant: a row of alternating ±x then cancels exactly against it (K is even).
    for (std::int64_t k = 0; k < K; ++k) b.set({0, k}, 0.5);
    for (std::int64_t n = 0; n < N; ++n) {
      const std::int64_t kind = uniform(rng, 0, 3);
      for (std::int64_t k = 0; k < K; ++k) {
        if (kind == 0) a.set({n, k}, 0.0);
        else if (kind == 1) a.set({n, k}, -0.0);
        else if (kind == 2) a.set({n, k}, (k % 2 ? -1.0 : 1.0) * std::ldexp(1.0, static_cast<int>(n % 8)));
      }
    }
    if (c.has("bias")) {
      Tensor& bias = c.inputs.at("bias");
      for (std::int64_t i = 0; i < bias.numel(); ++i)
        if (coin(rng, 0.3)) store(bias, i, (coin(rng) ? 1 : -1) * 4096.0 * (1 + i % 3));
    }
    (void)M;
  };
  return g;
}

}  // namespace dsv4::ops
