// Generator specs of the GEMM-like ops: skinny_gemm (ops.md §6), fp8_gemm_blockscaled (§7/§8) and
// fp8_einsum (§8). Skinny shapes come from the kernel's own plan (kernels/skinny_gemm/skinny_plan.hpp):
// for a random arch profile (gfx942 64 KiB LDS, gfx950 160 KiB, sm_90 227 KiB) K is put on, or one
// vector (8) either side of, a K where the plan changes (shard count, CHUNKK, readback batches, chunks
// per shard, admission, and on sm_90 the tensor-core layout: tile, warp tile, warps along M); N on the n_p2 row classes and the 10..128 range ends; M on the plan's tile_m
// multiples. fp8 GEMMs sit on the 128 scale-block edges. Specials: exactly cancelling rows, zero and
// negative-zero rows, a large bias (single rounding); E8M0 extremes 0x00 (2^-127, normal x) and 0xFE
// (2^127 over an all-zero x row) in typed or packed UE8M0 scales.
#include <algorithm>
#include <cmath>

#include "fuzz/generators/spec_helpers.hpp"
#include "kernels/skinny_gemm/skinny_plan.hpp"

namespace dsv4::fuzz::gen {

namespace {

namespace sk = kernels::skinny;

// Ks (multiples of 8) where the skinny plan for (n, m) on `arch` changes any of its dispatch numbers.
std::vector<std::int64_t> skinny_k_boundaries(std::int64_t n, std::int64_t m, const port::ArchProfile& arch,
                                              std::int64_t k_max) {
  std::vector<std::int64_t> out;
  sk::SkinnyShape s;
  s.n = n;
  s.m = m;
  auto key = [&](std::int64_t k) {
    s.k = k;
    const sk::SkinnyPlan p = sk::make_plan(s, arch);
    return std::tuple(p.ok, p.k_rnd, p.chunkk, p.readback_batches, p.chunks_per_shard, p.k_chunk, p.tile_m,
                      p.mma_m_tiles, p.mma_warps_m, p.wgmma);
  };
  auto prev = key(8);
  for (std::int64_t k = 16; k <= k_max; k += 8) {
    auto cur = key(k);
    if (cur != prev) out.push_back(k);
    prev = cur;
  }
  return out;
}

}  // namespace

OpGenSpec skinny_gemm_spec() {
  OpGenSpec g;
  g.op = "skinny_gemm";
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
    const port::ArchProfile& arch = pick<const port::ArchProfile*>(rng, {&port::kGfx942, &port::kGfx950, &port::kSm90})[0];
    const std::int64_t n = coin(rng, 0.03) ? 129 : pick_int(rng, {1, 9, 10, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128});
    sk::SkinnyShape probe;
    probe.n = std::min<std::int64_t>(n, 128);
    probe.k = 512;
    const std::int64_t tile_m = sk::make_plan(probe, arch).tile_m;
    std::int64_t m = coin(rng, 0.5) ? align_edge(rng, tile_m, 16) : align_edge(rng, 16, 64);
    const std::int64_t k_max = 32768;
    const auto bounds = skinny_k_boundaries(std::min<std::int64_t>(n, 128), m, arch, k_max);
    std::int64_t k = bounds.empty() || coin(rng, 0.1) ? 8 * uniform(rng, 1, k_max / 8)
                                                      : pick(rng, bounds) + 8 * pick_int(rng, {-1, 0, 0, 1});
    k = std::max<std::int64_t>(8, k);
    // Keep the float64 reference and the inputs affordable: N·M·K <= 2^28 and M·K <= 2^23 (M shrinks,
    // staying >= one tile; K <= 32768 keeps one tile's b at <= 2^21 elements).
    while ((n * m * k > (std::int64_t{1} << 28) || m * k > (std::int64_t{1} << 23)) && m > tile_m)
      m = std::max(tile_m, m / 2);
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

namespace {

// E8M0 extremes on the activation side: row r0 gets scale byte 0x00 (2^-127, x left normal), row r1
// gets 0xFE (2^127) with its fp8 codes zeroed, so every exact product stays finite.
void e8m0_extremes(OpCase& c, std::mt19937_64& rng) {
  Tensor& xs = c.inputs.at("x_sf");
  if (xs.dtype() != DType::F8_E8M0 && xs.dtype() != DType::I32) return;
  Tensor& x = c.inputs.at("x");
  const std::int64_t rows = xs.size(0);
  const std::int64_t r0 = uniform(rng, 0, rows - 1), r1 = uniform(rng, 0, rows - 1);
  set_e8m0_row(xs, r0, 0x00);
  if (r1 != r0) {
    set_e8m0_row(xs, r1, 0xFE);
    Tensor xr = x.select(0, r1);
    for (std::int64_t i = 0; i < xr.numel(); ++i) xr.set_code_linear(i, 0);
  }
}

void zero_rows(Tensor& x, std::mt19937_64& rng) {
  for (std::int64_t r = 0; r < x.size(0); ++r)
    if (coin(rng, 0.2)) {
      Tensor xr = x.select(0, r);
      for (std::int64_t i = 0; i < xr.numel(); ++i) xr.set_code_linear(i, 0);
    }
}

}  // namespace

OpGenSpec fp8_gemm_blockscaled_spec() {
  OpGenSpec g;
  g.op = "fp8_gemm_blockscaled";
  g.value_inputs = {"x", "w", "c"};
  g.scale_inputs = {"x"};
  g.deterministic = false;
  g.determinism_note = "ops.md §7/§8 state no bitwise-rerun requirement (split-K kernels may reorder)";
  g.shapes = [](std::mt19937_64& rng, ShapeScale sc) {
    const bool test = sc == ShapeScale::test;
    Json s{{"M", test ? pick_int(rng, {1, 3, 4}) : pick_int(rng, {1, 3, 7, 64, 127, 128, 129})},
           {"N", test ? pick_int(rng, {40, 64, 129}) : align_edge(rng, 128, 8, 1)},
           {"K", test ? pick_int(rng, {127, 128, 129, 256}) : align_edge(rng, 128, 16, pick_int(rng, {1, 44}))},
           {"scale", pick<std::string>(rng, {"fp32", "fp32_mn_major", "ue8m0", "packed_ue8m0"})},
           {"c", coin(rng, 0.3)}};
    if (s["scale"] == "ue8m0" && coin(rng, 0.3)) s["w_scale"] = "row";
    if (coin(rng, 0.2)) s["dtype"] = "e4m3fnuz";
    return s;
  };
  g.specials = [](OpCase& c, const Json&, std::mt19937_64& rng) {
    zero_rows(c.inputs.at("w"), rng);
    e8m0_extremes(c, rng);
  };
  return g;
}

OpGenSpec fp8_einsum_spec() {
  OpGenSpec g;
  g.op = "fp8_einsum";
  g.value_inputs = {"x", "w", "c"};
  g.scale_inputs = {"x"};
  g.deterministic = false;
  g.determinism_note = "ops.md §8 states no bitwise-rerun requirement";
  g.shapes = [](std::mt19937_64& rng, ShapeScale sc) {
    const bool test = sc == ShapeScale::test;
    Json s{{"B", test ? pick_int(rng, {1, 2, 3}) : pick_int(rng, {1, 3, 4, 64, 129})},
           {"H", test ? pick_int(rng, {1, 2}) : pick_int(rng, {1, 2, 8, 16})},
           {"R", test ? pick_int(rng, {127, 128, 200}) : align_edge(rng, 128, 8, pick_int(rng, {1, 72}))},
           {"D", test ? pick_int(rng, {40, 64}) : align_edge(rng, 64, 8)},
           {"scale", pick<std::string>(rng, {"fp32", "ue8m0", "packed_ue8m0"})},
           {"recipe", coin(rng) ? "1,128,128" : "1,1,128"},
           {"c", coin(rng, 0.3)}};
    return s;
  };
  g.specials = [](OpCase& c, const Json&, std::mt19937_64& rng) {
    zero_rows(c.inputs.at("w"), rng);
    e8m0_extremes(c, rng);
  };
  return g;
}

}  // namespace dsv4::fuzz::gen
