// GoogleTest checks of the sm_90 kernels' sweeps (sm90_sweeps.hpp), shared by the device test (test_sm90_device)
// and the sim test (test_skinny_mma_sim): run the sweep on the current device through a fresh pool and stream,
// report every failing case, expect the case counts the sweep must reach, and every split-K counter back at zero.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>
#include <random>
#include <string>

#include "tests/kernels/nvidia/skinny_gemm/sm90_sweeps.hpp"

namespace dsv4::test::skinny {

enum class WgmmaSweep { layouts, slices, clusters };

inline void check_wgmma_sweep(WgmmaSweep which, const std::string& label, std::mt19937_64& rng) {
  sk::SkinnyWorkspacePool pool(2, std::size_t{32} << 20, 0);
  port::Stream st;
  const bool layouts = which == WgmmaSweep::layouts;
  const LayoutSweep r = layouts ? sweep_wgmma_layouts(port::device_profile(), pool, st, rng)
                        : which == WgmmaSweep::slices ? sweep_wgmma_slices(port::device_profile(), pool, st, rng)
                                                      : sweep_wgmma_clusters(port::device_profile(), pool, st, rng);
  for (const auto& f : r.failures) ADD_FAILURE() << f;
  std::cout << label << (layouts ? " wgmma layouts: " : which == WgmmaSweep::slices ? " wgmma slices: " : " wgmma clusters: ")
            << r.cases << " cases (" << r.three_slots << " with 3 ring slots), " << r.failures.size() << " failing\n";
  if (which == WgmmaSweep::clusters) {
    EXPECT_EQ(r.cases, 20);  // every (N, shard count) pair admitted both ways
    EXPECT_GE(r.three_slots, 1);  // 3-slot rings are reduced through clusters too (4 of the 20 pairs by the ring rule)
  } else if (layouts) {
    // Every one of the 40 layouts at one workgroup per SM, 12 of them also at two (the rest are built for one and
    // refused at two); 14 of the 52 keep more panels in flight with 3 ring slots (the rule, recomputed by hand).
    EXPECT_EQ(r.cases, 52);
    EXPECT_EQ(r.one_per_sm, 40);
    EXPECT_EQ(r.refused, 28);
    EXPECT_EQ(r.three_slots, 14);
  } else {
    EXPECT_EQ(r.cases, 18);  // every forced slicing admitted
  }
  for (std::int32_t v : pool.read_all_counters(sk::kCounterRegionBytes)) ASSERT_EQ(v, 0);
}

// The producer-warp kernel's sweep (sweep_producer_warp): every case right, both rings, cluster splits and one-step
// runs reached, the plan's own choice taken at its rules' edges.
inline void check_producer_warp_sweep(const std::string& label, std::mt19937_64& rng) {
  sk::SkinnyWorkspacePool pool(1, std::size_t{16} << 20, 0);
  port::Stream st;
  const PwSweep r = sweep_producer_warp(port::device_profile(), pool, st, rng);
  for (const auto& f : r.failures) ADD_FAILURE() << f;
  std::cout << label << " producer warp: " << r.cases << " cases (" << r.wide << " with the wide ring, " << r.deep
            << " with the deep one, " << r.split << " split in a cluster, " << r.sliced << " sliced, " << r.one_step
            << " of one step, " << r.wide_tile << " with 128 rows of b), " << r.failures.size() << " failing\n";
  EXPECT_EQ(r.cases, 82);
  EXPECT_EQ(r.chosen, 3);
  EXPECT_EQ(r.split, 35);  // the K = 1024/1032 cases, two sliced ones, the rule's split, 8 of the wide tile
  EXPECT_EQ(r.sliced, 6);  // five forced, the rule's
  EXPECT_EQ(r.wide_tile, 15);
  EXPECT_EQ(r.wide + r.deep, r.cases);
  EXPECT_GE(r.wide, 10);  // K = 1024 and K = 64 at M = 200 (4 workgroups): several panels per copy
  EXPECT_GE(r.deep, 10);  // K % 64 != 0
  EXPECT_GE(r.one_step, 8);
}

}  // namespace dsv4::test::skinny
