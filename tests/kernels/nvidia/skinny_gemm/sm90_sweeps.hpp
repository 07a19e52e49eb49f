// The sm_90 skinny kernels' device sweeps (kernels/nvidia/skinny_gemm on an sm_90 profile: a device, or the sim
// emulating it): every warpgroup layout, output-row slicing and cluster reduction, and the producer-warp kernel,
// each case run through the pool and checked per row against the float64 reference (skinny_test_util.hpp).
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/nvidia/skinny_gemm/sm90_plan.hpp"
#include "tests/kernels/skinny_gemm/skinny_test_util.hpp"

namespace dsv4::test::skinny {

// The shape of case `idx` of the warpgroup sweeps: M = 200 (a partial M-tile for every tile width), K = 1032,
// padded a on every fourth case, fp16 on every third, the given bias.
inline sk::SkinnyShape sweep_shape(std::int64_t n, int idx, sk::BiasShape bias) {
  sk::SkinnyShape s;
  s.n = n;
  s.m = 200;
  s.k = 1032;
  s.lda = idx % 4 == 1 ? 1072 : 0;
  s.dtype = idx % 3 ? sk::ElemType::bf16 : sk::ElemType::f16;
  s.bias = bias;
  return s;
}

struct LayoutSweep {
  int cases = 0, one_per_sm = 0, refused = 0;  // run, of which planned for one workgroup per SM; refused as expected
  int three_slots = 0;                          // run with a ring of 3 slots (the others have 4)
  std::vector<std::string> failures;  // wrong results, and refusals other than the expected ones
};

// The warpgroup kernel (sk::sm90_layout(plan).wgmma, sm_90 profiles): every layout (1 or 2 tiles of 64 rows of b per warpgroup x 2
// or 1 warpgroups along M) for every padded N (8, 16, 32, 64, 128 rows of a), each with a split (k_rnd = 3) and
// without, M = 200 (a partial M-tile for every tile width), both dtypes, padded a, two bias shapes, and both
// residencies (force_resident 1 and 2: the ring of one or of two workgroups per SM), hence both ring slot counts.
// Refusals expected: two per SM for instances built for one.
inline LayoutSweep sweep_wgmma_layouts(const port::ArchProfile& arch, sk::SkinnyWorkspacePool& pool, port::Stream& st,
                                       std::mt19937_64& rng) {
  LayoutSweep r;
  int idx = 0;
  for (std::int64_t n : {1, 9, 20, 40, 100})
    for (int mt : {4, 8})
      for (int wm : {2, 1})
        for (int cps : {1, 3})
        for (int res : {2, 1}) {
          const sk::SkinnyShape s = sweep_shape(n, idx, idx % 2 ? sk::BiasShape::nm : sk::BiasShape::m);
          ++idx;
          const sk::SkinnyPlan plan =
              sk::make_plan(s, arch, sk::Sm90Options{{sk::SkinnyVariant::fixed, 1}, wm, cps, mt, sk::TensorCoreKernel::wgmma, res,
                                               sk::wgmma_unsliced_rows(n)});
          if (!plan.ok) {
            ++r.refused;
            const bool built_for_one = res == 2 && plan.reason.find("force_resident=2") != std::string::npos;
            if (!built_for_one) r.failures.push_back("unexpected refusal: " + plan.describe());
            continue;
          }
          if (!sk::sm90_layout(plan).wgmma || plan.tile_m != 16 * mt * wm || plan.k_rnd != (cps == 1 ? 3 : 1) ||
              sk::sm90_layout(plan).mma_resident != res) {
            r.failures.push_back("not the forced layout: " + plan.describe());
            continue;
          }
          ++r.cases;
          if (res == 1) ++r.one_per_sm;
          if (sk::sm90_layout(plan).mma_stages == 3) ++r.three_slots;
          // Every third case with out, every fifth with bias misaligned for 16-byte accesses (narrow epilogue).
          const std::string f = run_plan_and_check(plan, pool, st, rng, idx % 3 == 2, idx % 5 == 4);
          if (!f.empty()) r.failures.push_back(f);
        }
  return r;
}

// The warpgroup kernel with the output rows split into slices (force_slice_rows): slices of 8 to 64 rows, a last
// slice partly or mostly past N (N = 20, 65, 100), with a split (k_rnd = 3) and without, layouts rotating over
// 64/128-row tiles and 1/2 warpgroups along M, M = 200, both dtypes, bias [N, M] (offset per slice) or [M], padded
// a, some misaligned outputs. Every case must plan exactly the forced slicing.
inline LayoutSweep sweep_wgmma_slices(const port::ArchProfile& arch, sk::SkinnyWorkspacePool& pool, port::Stream& st,
                                      std::mt19937_64& rng) {
  LayoutSweep r;
  int idx = 0;
  const int layouts[4][2] = {{4, 1}, {8, 2}, {4, 2}, {8, 1}};  // (16-row tiles of b per warpgroup, warpgroups along M)
  for (const auto& [n, rows] : std::initializer_list<std::pair<std::int64_t, int>>{
           {16, 8}, {20, 8}, {20, 16}, {40, 16}, {65, 32}, {65, 64}, {100, 32}, {128, 64}, {128, 16}})
    for (int cps : {1, 3}) {
      const sk::SkinnyShape s = sweep_shape(n, idx, idx % 2 ? sk::BiasShape::m : sk::BiasShape::nm);
      const int mt = layouts[idx % 4][0], wm = layouts[idx % 4][1];
      ++idx;
      const sk::SkinnyPlan plan = sk::make_plan(s, arch, sk::Sm90Options{{sk::SkinnyVariant::fixed, 1}, wm, cps, mt, sk::TensorCoreKernel::wgmma, 0, rows});
      if (!plan.ok) {
        r.failures.push_back("unexpected refusal: " + plan.describe());
        continue;
      }
      const std::int64_t slices = (n + rows - 1) / rows;
      if (!sk::sm90_layout(plan).wgmma || plan.slice_rows != rows || plan.n_slices != slices || plan.k_rnd != (cps == 1 ? 3 : 1) ||
          plan.grid != plan.tiles_m * slices * plan.k_rnd) {
        r.failures.push_back("not the forced slicing: " + plan.describe());
        continue;
      }
      ++r.cases;
      if (sk::sm90_layout(plan).mma_stages == 3) ++r.three_slots;
      const std::string f = run_plan_and_check(plan, pool, st, rng, idx % 3 == 2, 0);
      if (!f.empty()) r.failures.push_back(f);
    }
  return r;
}

// The warpgroup kernel's split plans with the shards of each tile reduced through a thread-block cluster
// (force_cluster_reduce = 2) against the same layout and shard count reduced through the workspace (= 1): both must
// match the float64 reference per row and each other bit for bit (the same partials summed in the same order).
// 2, 3, 5 and 8 shards (K = 1032 in chunks of 512 or 256, K = 2048 in chunks of 256), N from 1 to 128 (some
// sliced), layouts rotating over 64/128-row tiles and 1/2 warpgroups along M (two k-groups), M = 200, both dtypes,
// every bias shape, padded a, some misaligned outputs; every other cluster plan launched with no workspace at all.
// Both plans of a pair have the same ring (3 or 4 slots). cases counts the pairs run.
inline LayoutSweep sweep_wgmma_clusters(const port::ArchProfile& arch, sk::SkinnyWorkspacePool& pool, port::Stream& st,
                                        std::mt19937_64& rng) {
  LayoutSweep r;
  int idx = 0;
  const int layouts[4][2] = {{4, 1}, {8, 2}, {4, 2}, {8, 1}};  // (16-row tiles of b per warpgroup, warpgroups along M)
  struct Split {
    std::int64_t k;
    int chunkk, cps, shards;
  };
  const Split splits[] = {{1032, 1, 2, 2}, {1032, 1, 1, 3}, {1032, 2, 1, 5}, {2048, 2, 1, 8}};
  const sk::BiasShape biases[] = {sk::BiasShape::none, sk::BiasShape::m, sk::BiasShape::nm, sk::BiasShape::one_m};
  for (const auto& [n, rows] : std::initializer_list<std::pair<std::int64_t, int>>{
           {1, 0}, {9, 0}, {40, 16}, {100, 0}, {128, 64}})
    for (const Split& sp : splits) {
      sk::SkinnyShape s = sweep_shape(n, idx, biases[idx % 4]);
      s.k = sp.k;
      if (s.lda != 0) s.lda = sp.k + 40;
      const int mt = layouts[idx % 4][0], wm = layouts[idx % 4][1];  // (8, 1) with 128 rows of a: 3 ring slots
      const std::size_t out_offset = idx % 3 == 2;
      ++idx;
      sk::Sm90Options o{{sk::SkinnyVariant::fixed, sp.chunkk}, wm, sp.cps, mt, sk::TensorCoreKernel::wgmma, 0,
                          rows != 0 ? rows : sk::wgmma_unsliced_rows(n)};
      o.force_cluster_reduce = 2;
      const sk::SkinnyPlan cl = sk::make_plan(s, arch, o);
      o.force_cluster_reduce = 1;
      const sk::SkinnyPlan ws = sk::make_plan(s, arch, o);
      if (!cl.ok || !ws.ok) {
        r.failures.push_back("unexpected refusal: " + (cl.ok ? ws : cl).describe());
        continue;
      }
      if (!sk::sm90_layout(cl).cluster_reduce || cl.k_rnd != sp.shards || sk::sm90_layout(cl).cluster_blocks != sp.shards || cl.workspace_bytes != 0 ||
          sk::sm90_layout(ws).cluster_reduce || ws.k_rnd != sp.shards || ws.grid != cl.grid || ws.tile_m != cl.tile_m ||
          sk::sm90_layout(ws).mma_stages != sk::sm90_layout(cl).mma_stages || sk::sm90_layout(ws).mma_panels != sk::sm90_layout(cl).mma_panels) {
        r.failures.push_back("not the forced pair: " + cl.describe() + " | " + ws.describe());
        continue;
      }
      ++r.cases;
      if (sk::sm90_layout(cl).mma_stages == 3) ++r.three_slots;
      const HostCase c = make_case(s, rng);
      const RefResult ref = reference(c);
      std::vector<std::uint16_t> outs[2];
      for (int which = 0; which < 2; ++which) {
        const sk::SkinnyPlan& plan = which ? ws : cl;
        DeviceCase d(c, out_offset, 0);
        if (which == 0 && idx % 2 == 0)  // a cluster-reduced plan needs no workspace: caller-owned, none given
          sk::launch_skinny_gemm(plan, d.io(), nullptr, 0, st);
        else
          sk::run_skinny_gemm(plan, d.io(), pool, st);
        st.synchronize();
        outs[which] = d.result();
        const RowCheck rc = check_rows(c, ref, outs[which]);
        if (!rc.ok()) r.failures.push_back(plan.describe() + ": " + std::to_string(rc.failures) + " mismatches (first " + rc.first + ")");
      }
      if (outs[0] != outs[1]) r.failures.push_back("cluster and workspace reductions differ bitwise: " + cl.describe());
    }
  return r;
}

// The producer-warp kernel (force_kernel = producer_warp, sm_90 profiles): every row count of a (N = 1..32 over 8, 16 and 32
// padded rows, N = 33..128 over 64 and 128), both rings of pw_ring (K % 64 == 0 with the grid's SMs mostly free:
// several panels per copy; K % 64 != 0: one 2-D box per operand), one step only (the second consumer warpgroup
// idle; K = 64, and K = 8 with the box mostly past K), M = 200 (a partial 64-row tile), both dtypes, every bias
// shape, padded a, some misaligned outputs and bias (the epilogue's narrow stores); each with one shard, and the
// K = 1024/1032 cases also split into 2-8 shards reduced through a cluster (force_chunks_per_shard); output-row
// slices (force_slice_rows: 2-4 slices, the last partly past N, with and without a split); and the
// plan's own choice at the smallest grid its unsplit rule takes (ceil(M / 64) = SMs / kPwMinGridDivisor), at
// its split rule's smallest K and at its sliced rule's smallest grid. cases counts the runs, wide and deep those with each ring, split those with a
// cluster split, chosen the plan's own choices.
struct PwSweep {
  int cases = 0, wide = 0, deep = 0, one_step = 0, split = 0, sliced = 0, chosen = 0, wide_tile = 0;
  std::vector<std::string> failures;
};
inline PwSweep sweep_producer_warp(const port::ArchProfile& arch, sk::SkinnyWorkspacePool& pool, port::Stream& st,
                                   std::mt19937_64& rng) {
  PwSweep r;
  int idx = 0;
  const sk::BiasShape biases[] = {sk::BiasShape::none, sk::BiasShape::m, sk::BiasShape::nm, sk::BiasShape::one_m};
  auto run = [&](const sk::SkinnyShape& s, const sk::Sm90Options& o, std::int64_t shards, bool chosen) {
    const sk::SkinnyPlan plan = sk::make_plan(s, arch, o);
    if (!plan.ok || !sk::sm90_layout(plan).producer_warp || plan.grid != (s.m + plan.tile_m - 1) / plan.tile_m * plan.n_slices * plan.k_rnd ||
        (shards != 0 && plan.k_rnd != shards) || sk::sm90_layout(plan).cluster_reduce != (plan.k_rnd > 1)) {
      r.failures.push_back("not the producer-warp plan with " + std::to_string(shards) + " shard(s): " + plan.describe());
      return;
    }
    ++r.cases;
    r.chosen += chosen;
    r.split += plan.k_rnd > 1;
    r.wide_tile += plan.tile_m == sk::kPwWideTileM;
    const sk::PwRing wide = sk::pw_ring(plan.slice_rows, true, plan.tile_m),
                     deep = sk::pw_ring(plan.slice_rows, false, plan.tile_m);
    r.wide += sk::sm90_layout(plan).mma_stages == wide.stages && sk::sm90_layout(plan).mma_panels == wide.panels;
    r.deep += sk::sm90_layout(plan).mma_stages == deep.stages && sk::sm90_layout(plan).mma_panels == deep.panels;
    r.one_step += plan.chunks_per_shard == 1 && plan.k_rnd == 1;
    const std::string f = run_plan_and_check(plan, pool, st, rng, idx % 5 == 3, idx % 7 == 5);
    if (!f.empty()) r.failures.push_back(f);
  };
  const int split_to[] = {2, 3, 5, 8};
  for (std::int64_t n : {1, 5, 8, 9, 16, 17, 31, 32, 33, 64, 100, 128})
    for (std::int64_t k : {1024, 1032, 64, 8}) {
      if ((k == 64 || k == 8) && n % 2 == 0) continue;  // one-step cases for half the row counts
      sk::SkinnyShape s = sweep_shape(n, idx, biases[idx % 4]);
      s.k = k;
      if (s.lda != 0) s.lda = k + 40;
      sk::Sm90Options o;
      o.force_kernel = sk::TensorCoreKernel::producer_warp;
      o.force_chunks_per_shard = 1 << 20;  // one shard
      run(s, o, 1, false);
      if (k >= 1024) {
        const std::int64_t steps = k % 64 == 0 ? (k + 127) / 128 : (k + 63) / 64;  // 8 steps of 2 panels, 17 of 1
        o.force_chunks_per_shard = static_cast<int>((steps + split_to[idx % 4] - 1) / split_to[idx % 4]);
        run(s, o, (steps + o.force_chunks_per_shard - 1) / o.force_chunks_per_shard, false);
      }
      ++idx;
    }
  // Output-row slices (force_slice_rows): the last slice partly or mostly past N, with and without a split.
  for (const auto& [n, rows, cps] : std::initializer_list<std::tuple<std::int64_t, int, int>>{
           {100, 32, 0}, {40, 16, 3}, {128, 64, 0}, {20, 8, 2}}) {
    sk::SkinnyShape sl = sweep_shape(n, idx, idx % 2 ? sk::BiasShape::nm : sk::BiasShape::m);
    sl.k = 1024;  // 8 steps of 2 panels
    if (sl.lda != 0) sl.lda = 1064;
    ++idx;
    sk::Sm90Options o;
    o.force_kernel = sk::TensorCoreKernel::producer_warp;
    o.force_slice_rows = rows;
    o.force_chunks_per_shard = cps == 0 ? 1 << 20 : cps;
    const sk::SkinnyPlan plan = sk::make_plan(sl, arch, o);
    if (plan.n_slices != (n + rows - 1) / rows) r.failures.push_back("not the forced slicing: " + plan.describe());
    r.sliced += plan.n_slices > 1;
    run(sl, o, cps == 0 ? 1 : (8 + cps - 1) / cps, false);
  }
  // The wide tile (force_pw_tile_m = 128): M = 200 is one whole and one partial 128-row tile; both rings (K = 1024
  // and 1032), one shard and a cluster split, and 64-row slices of 128 rows of a with a split.
  // (Its own case index: the rule's cases below keep their shapes.)
  int wi = idx;
  for (std::int64_t n : {5, 16, 17, 33, 64, 100, 128})
    for (std::int64_t k : {1024, 1032}) {
      sk::SkinnyShape s = sweep_shape(n, wi, biases[wi % 4]);
      s.k = k;
      if (s.lda != 0) s.lda = k + 40;
      ++wi;
      sk::Sm90Options o;
      o.force_kernel = sk::TensorCoreKernel::producer_warp;
      o.force_pw_tile_m = sk::kPwWideTileM;
      o.force_chunks_per_shard = k == 1024 ? 3 : 1 << 20;  // 8 steps of 2 panels in 3 shards; 17 of 1 unsplit
      run(s, o, k == 1024 ? 3 : 1, false);
    }
  {
    sk::SkinnyShape s = sweep_shape(128, wi, sk::BiasShape::nm);
    if (s.lda != 0) s.lda = 1064;
    s.k = 1024;
    sk::Sm90Options o;
    o.force_kernel = sk::TensorCoreKernel::producer_warp;
    o.force_pw_tile_m = sk::kPwWideTileM;
    o.force_slice_rows = 64;
    o.force_chunks_per_shard = 4;
    r.sliced += sk::make_plan(s, arch, o).n_slices == 2;
    run(s, o, 2, false);
  }
  sk::SkinnyShape s = sweep_shape(20, idx, sk::BiasShape::m);
  s.m = 64 * ((arch.compute_units + sk::kPwMinGridDivisor - 1) / sk::kPwMinGridDivisor);
  s.k = 128;
  run(s, {}, 1, true);
  s.m = 200;  // 4 tiles: the rule's split, into 8 shards
  s.k = sk::kPwMinKSplit;
  run(s, {}, 8, true);
  s.n = 100;  // kPwSliceMinTiles tiles, N > 32, a short K: the rule's slices of 32 rows
  s.m = 64 * sk::kPwSliceMinTiles;
  s.k = 128;
  const sk::SkinnyPlan sliced = sk::make_plan(s, arch);
  r.sliced += sliced.n_slices == 4 && sliced.slice_rows == sk::kPwSliceRows;
  run(s, {}, 1, true);
  return r;
}

}  // namespace dsv4::test::skinny
