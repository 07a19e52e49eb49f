// Sweeps of the portable skinny GEMM plan that the generic tools use: the AMD budget check's plan sweep (the
// kernel of skinny_gemm.kernel.cpp, the one AMD code objects hold: the fixed variant over N 1..128, a K grid
// through every shard-count and CHUNKK boundary up to 64 Ki, M from one tile to many, both CHUNKK choices forced
// and the rule; all of its LDS is the dynamic lds_alloc_bytes), and the fuzzer's move of a campaign shape onto the
// plan's boundaries: for a random arch profile (the portable kernel's gfx942, 64 KiB LDS, and gfx950, 160 KiB, then
// the profile of each registered arch path, skinny_arch_layout.hpp) K on, or one vector (8) either side of, a K where
// the plan changes any of its dispatch numbers (shard count, CHUNKK, readback batches, chunks per shard, admission,
// an arch layout's words), M on the plan's tile_m multiples.
#include <algorithm>
#include <cstdint>
#include <tuple>
#include <vector>

#include "kernels/plan_sweep.hpp"
#include "kernels/skinny_gemm/skinny_arch_layout.hpp"
#include "kernels/skinny_gemm/skinny_plan.hpp"
#include "reference/ops/common/fuzz_draw.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::kernels::skinny {

namespace {

// Ks (multiples of 8) where the skinny plan for (n, m) on `arch` changes any of its dispatch numbers.
std::vector<std::int64_t> k_boundaries(std::int64_t n, std::int64_t m, const port::ArchProfile& arch,
                                       std::int64_t k_max) {
  std::vector<std::int64_t> out;
  SkinnyShape s;
  s.n = n;
  s.m = m;
  auto key = [&](std::int64_t k) {
    s.k = k;
    const SkinnyPlan p = make_plan(s, arch);
    return std::tuple(p.ok, p.k_rnd, p.chunkk, p.readback_batches, p.chunks_per_shard, p.k_chunk, p.tile_m,
                      p.layout_text());
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

PlanSweep skinny_plan_sweep() {
  return {"dsv4::kernels::skinny::skinny_gemm_kernel", [](const port::ArchProfile& prof) {
    PlanTally t;
    for (std::int64_t n = 1; n <= 128; ++n)
      for (std::int64_t k : {8, 64, 520, 1024, 2048, 3080, 4096, 5120, 7168, 8192, 12288, 16384, 24576, 32768, 65536})
        for (std::int64_t m : {16, 64, 256, 1024, 4096, 16384})
          for (int chunkk : {0, 1, 2}) {
            SkinnyShape s;
            s.n = n;
            s.k = k;
            s.m = m;
            SkinnyOptions o;
            o.force_chunkk = chunkk;
            const SkinnyPlan p = make_plan(s, prof, o);
            if (p.ok) t.add(p.lds_alloc_bytes, 0, p.block);
          }
    return t.finish("skinny_gemm", prof);
  }};
}

Json onto_plan_boundaries(std::mt19937_64& rng, Json s) {
  std::vector<const port::ArchProfile*> profiles = {&port::kGfx942, &port::kGfx950};
  for (const port::ArchProfile* p : arch_path_profiles()) profiles.push_back(p);
  const port::ArchProfile& arch = *draw::pick(rng, profiles);
  const std::int64_t n = s.at("N").get<std::int64_t>();
  SkinnyShape probe;
  probe.n = std::min<std::int64_t>(n, 128);
  probe.k = 512;
  const std::int64_t tile_m = make_plan(probe, arch).tile_m;
  std::int64_t m = draw::coin(rng, 0.5) ? draw::align_edge(rng, tile_m, 16) : draw::align_edge(rng, 16, 64);
  const std::int64_t k_max = 32768;
  const auto bounds = k_boundaries(std::min<std::int64_t>(n, 128), m, arch, k_max);
  std::int64_t k = bounds.empty() || draw::coin(rng, 0.1)
                       ? 8 * draw::uniform(rng, 1, k_max / 8)
                       : draw::pick(rng, bounds) + 8 * draw::pick_int(rng, {-1, 0, 0, 1});
  k = std::max<std::int64_t>(8, k);
  // Keep the float64 reference and the inputs affordable: N·M·K <= 2^28 and M·K <= 2^23 (M shrinks, staying >= one
  // tile; K <= 32768 keeps one tile's b at <= 2^21 elements).
  while ((n * m * k > (std::int64_t{1} << 28) || m * k > (std::int64_t{1} << 23)) && m > tile_m)
    m = std::max(tile_m, m / 2);
  if (s.contains("Kap")) s["Kap"] = k + (s["Kap"].get<std::int64_t>() - s["K"].get<std::int64_t>());  // same padding
  s["M"] = m;
  s["K"] = k;
  return s;
}

}  // namespace dsv4::kernels::skinny
