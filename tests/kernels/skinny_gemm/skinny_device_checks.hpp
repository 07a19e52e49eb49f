// GoogleTest checks of the skinny GEMM on the current device that both the portable device test
// (test_skinny_gemm_device) and the sm_90 one (tests/kernels/nvidia/skinny_gemm/test_sm90_device) run, each with its
// own plan options: the issue-5 sweep, misaligned out and bias, and refusal before launch. A PlanOf makes the plan
// of a shape on the device's profile.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kernels/port/runtime.hpp"
#include "reference/registry/op_descriptor.hpp"
#include "tests/kernels/skinny_gemm/skinny_test_util.hpp"

namespace dsv4::test::skinny {

using PlanOf = std::function<sk::SkinnyPlan(const sk::SkinnyShape&)>;

inline bool on_sim() { return port::backend() == port::Backend::sim; }

inline sk::SkinnyShape device_shape(std::int64_t n, std::int64_t m, std::int64_t k, sk::ElemType t = sk::ElemType::bf16,
                                    sk::BiasShape b = sk::BiasShape::none, std::int64_t pad = 0) {
  sk::SkinnyShape s;
  s.n = n;
  s.m = m;
  s.k = k;
  s.lda = pad ? k + pad : 0;
  s.dtype = t;
  s.bias = b;
  return s;
}

// The N/K/M/dtype/bias/padding sweep of issue 5 (reduced on sim), each shape planned by every one of `plans` in
// turn and checked per row; returns the failures and counts the cases into *cases.
inline std::vector<std::string> issue5_sweep(const std::vector<PlanOf>& plans, sk::SkinnyWorkspacePool& pool,
                                             port::Stream& st, std::mt19937_64& rng, int* cases) {
  std::vector<std::int64_t> ns, ks;
  if (on_sim()) {
    ns = {1, 4, 16, 17, 33, 65, 128};
    ks = {512, 1032};
  } else {
    for (int n = 1; n <= 17; ++n) ns.push_back(n);
    for (int n : {31, 32, 33, 63, 64, 65, 127, 128}) ns.push_back(n);
    ks = {512, 2056, 5248, 10368, 16384};
  }
  const sk::BiasShape biases[] = {sk::BiasShape::none, sk::BiasShape::m, sk::BiasShape::nm, sk::BiasShape::one_m};
  int idx = 0;
  std::vector<std::string> failures;
  for (std::int64_t n : ns)
    for (std::int64_t k : ks) {
      const std::int64_t m = (idx % 2 == 0) ? (on_sim() ? 48 : 128) : (on_sim() ? 40 : 200);  // multiple of 16, or not
      const auto t = (idx / 2) % 2 == 0 ? sk::ElemType::bf16 : sk::ElemType::f16;
      const auto b = biases[idx % 4];
      const std::int64_t pad = (idx % 3 == 0) ? 24 : 0;
      ++idx;
      for (const PlanOf& plan_of : plans) {
        const sk::SkinnyPlan plan = plan_of(device_shape(n, m, k, t, b, pad));
        const std::string f = plan.ok ? run_plan_and_check(plan, pool, st, rng) : "refused: " + plan.reason;
        ++*cases;
        if (!f.empty()) failures.push_back(f);
      }
    }
  return failures;
}

// Out or bias one element past a 16-byte boundary, M a multiple of 8: the vector epilogue must not be used (a GPU
// faults on a misaligned 16-byte store; sim fails the launch the same way). Each of `plans` over three shapes;
// returns how many plans had one shard (the direct epilogue) and how many were split (the readback epilogue).
struct EpilogueCounts {
  int direct = 0, split = 0;
};
inline EpilogueCounts check_misaligned_out_and_bias(const std::vector<PlanOf>& plans, sk::SkinnyWorkspacePool& pool,
                                                    port::Stream& st, std::mt19937_64& rng) {
  EpilogueCounts n;
  for (const PlanOf& plan_of : plans)
    for (const auto& s : {device_shape(20, 128, 512, sk::ElemType::bf16, sk::BiasShape::nm),
                          device_shape(100, 64, 8192, sk::ElemType::f16, sk::BiasShape::m),
                          device_shape(3, 256, 16384, sk::ElemType::bf16, sk::BiasShape::one_m)}) {
      const sk::SkinnyPlan plan = plan_of(s);
      EXPECT_TRUE(plan.ok) << plan.reason;
      if (!plan.ok) continue;
      ++(plan.k_rnd == 1 ? n.direct : n.split);
      for (int bias_misaligned : {0, 1}) {  // out misaligned with an aligned bias, then the other way round
        const std::string f = run_plan_and_check(plan, pool, st, rng, 1 - bias_misaligned, bias_misaligned);
        EXPECT_TRUE(f.empty()) << (bias_misaligned ? "bias" : "out") << " misaligned: " << f;
      }
    }
  return n;
}

// N=129 is refused before launch; so is a caller-owned workspace one byte short of `ok` (an admitted plan that
// reduces its shards through the workspace) or not 16-byte aligned; nothing reaches the launch.
inline void check_refused_before_launch(const PlanOf& plan_of) {
  sk::SkinnyWorkspacePool pool(1, std::size_t{1} << 20, 0);
  port::Stream st;
  auto last_id = [] {
    const auto log = port::launch_log();
    return log.empty() ? std::uint64_t{0} : log.back().id;
  };
  const auto before = last_id();
  const auto bad = plan_of(device_shape(129, 64, 512));
  try {
    sk::run_skinny_gemm(bad, {}, pool, st);
    FAIL() << "N=129 was not refused";
  } catch (const dsv4::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("N=129"), std::string::npos) << e.what();
  }
  const auto ok = plan_of(device_shape(64, 64, 2048));
  ASSERT_TRUE(ok.ok && ok.workspace_bytes > 0) << ok.describe();
  port::DeviceBuffer ws(ok.workspace_bytes - 1), x(64 * 2048 * 2), y(64 * 2048 * 2), out(64 * 64 * 2);
  try {
    sk::launch_skinny_gemm(ok, {x.data(), y.data(), nullptr, out.data()}, ws.data(), ws.bytes(), st);
    FAIL() << "short workspace was not refused";
  } catch (const dsv4::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("workspace"), std::string::npos) << e.what();
  }
  port::DeviceBuffer ws2(ok.workspace_bytes + 16);
  try {
    sk::launch_skinny_gemm(ok, {x.data(), y.data(), nullptr, out.data()}, static_cast<char*>(ws2.data()) + 8,
                           ok.workspace_bytes, st);
    FAIL() << "misaligned workspace was not refused";
  } catch (const dsv4::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not 16-byte aligned"), std::string::npos) << e.what();
  }
  EXPECT_EQ(last_id(), before) << "a refused shape reached the launch";
}

}  // namespace dsv4::test::skinny
