// Zoo entries of the split-K skinny GEMM's own buggy variants (kernels/skinny_gemm):
//  1  readback_one_pass: every K-shard staged in LDS in one pass; caught by the sim's LDS report (the
//     readback staging array) and by the oracle, localised to the overflowing N-tile's rows;
//  2  optimistic_workspace_predicate: ceil(K/512) slabs while the kernel writes ceil(K·CHUNKK/512);
//     caught by the plan property workspace_bytes >= counters + slabs·tiles_m·tile_m·n_p2·4, with the
//     slab count re-derived from K and the kernel's own shard size.
#include <fmt/format.h>

#include "fuzz/zoo/zoo_detail.hpp"
#include "kernels/port/arch.hpp"
#include "kernels/skinny_gemm/skinny_plan.hpp"

namespace dsv4::fuzz::zoo::detail {

namespace {

using namespace dsv4::kernels::skinny;

ZooEntry readback_entry() {
  ZooEntry e;
  e.id = "1";
  e.title = "split-K readback staged in one pass overflows LDS";
  e.known_bugs_ref = "known-bugs #1";
  e.enable = "skinny_gemm kernel variant readback_one_pass (sim, gfx950)";
  e.expected = Detector::lds_violation;
  e.diagnosis_must_contain = {"readback", "N-tile"};
  // k swept towards the N >= 65 onset (k = 5248 with CHUNKK = 2); small M keeps the sim fast.
  for (int k : {1032, 2056, 4104, 5248}) {
    const Json shape = {{"N", 65}, {"K", k}, {"M", 16}, {"dtype", "bf16"}, {"bias", "none"}};
    e.cases.push_back({fmt::format("N=65 K={} M=16", k), {{"shape", shape}, {"seed", 1000 + k}}});
  }
  e.probe = [](const ZooCase& c, bool buggy) {
    return probe_kernel("skinny_gemm", c.params["shape"], c.params["seed"].get<std::uint64_t>(),
                        buggy ? "readback_one_pass" : "default");
  };
  return e;
}

ZooEntry workspace_predicate_entry() {
  ZooEntry e;
  e.id = "2";
  e.title = "workspace predicate 2x optimistic (ceil(k/512) shards, kernel uses ceil(k*CHUNKK/512))";
  e.known_bugs_ref = "known-bugs #2";
  e.enable = "skinny_gemm plan variant optimistic_workspace_predicate (plan only, no launch)";
  e.expected = Detector::plan_property;
  e.diagnosis_must_contain = {"CHUNKK=2", "workspace_bytes"};
  // An (n, m, k) table in the order an exhaustive sweep visits it: large M first (CHUNKK = 1), then
  // the small-M shapes where the CHUNKK rule halves the shard.
  for (int m : {1024, 256, 64, 16})
    for (int n : {16, 32, 64, 128})
      for (int k : {1024, 4096})
        e.cases.push_back({fmt::format("N={} M={} K={}", n, m, k), {{"n", n}, {"m", m}, {"k", k}}});
  e.probe = [](const ZooCase& c, bool buggy) {
    SkinnyShape s;
    s.n = c.params["n"].get<int>();
    s.m = c.params["m"].get<int>();
    s.k = c.params["k"].get<int>();
    SkinnyOptions o;
    o.variant = buggy ? SkinnyVariant::optimistic_workspace_predicate : SkinnyVariant::fixed;
    const SkinnyPlan p = make_plan(s, dsv4::port::profile(dsv4::port::Arch::gfx950), o);
    Probe r;
    if (!p.ok) return r;  // not admitted: nothing to check
    const std::int64_t slabs = (s.k + p.k_shard - 1) / p.k_shard;
    const std::size_t need = kCounterRegionBytes + static_cast<std::size_t>(slabs * p.tiles_m * p.tile_m * p.n_p2) * 4;
    if (p.workspace_bytes < need || workspace_size(s, dsv4::port::profile(dsv4::port::Arch::gfx950), o) < need)
      r.findings.push_back(
          {Detector::plan_property,
           fmt::format("workspace_bytes {} < required {} (counters {} + {} slabs of K-shard {} x tiles_m {} x tile_m "
                       "{} x n_p2 {} x 4 B) [CHUNKK={} k_rnd={}] [{}]",
                       p.workspace_bytes, need, kCounterRegionBytes, slabs, p.k_shard, p.tiles_m, p.tile_m, p.n_p2,
                       p.chunkk, p.k_rnd, p.describe())});
    return r;
  };
  return e;
}

}  // namespace

std::vector<ZooEntry> skinny_entries() { return {readback_entry(), workspace_predicate_entry()}; }

}  // namespace dsv4::fuzz::zoo::detail
