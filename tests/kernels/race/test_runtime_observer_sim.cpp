// The race checker wired to the runtime (RuntimeRaceObserver) on real skinny GEMM launches on sim streams: the
// static shared workspace is reported (both launches, both streams, the workspace range) on every schedule; the
// per-stream pool is silent; a graph captured on A and replayed on B races when its workspace is A's slot and is
// silent with B's slot or a capture slot; events, syncs and graph-internal events order as the runtime does.
#include <gtest/gtest.h>

#include "kernels/port/runtime.hpp"
#include "kernels/port/sim.hpp"
#include "kernels/race/runtime_observer.hpp"
#include "kernels/skinny_gemm/skinny_gemm.hpp"
#include "tests/kernels/skinny_gemm/skinny_test_util.hpp"
#include "tests/support/seed.hpp"

namespace {

namespace port = dsv4::port;
namespace sk = dsv4::kernels::skinny;
using dsv4::race::RaceReport;
using dsv4::race::RuntimeRaceObserver;
using namespace dsv4::test::skinny;

sk::SkinnyShape shape(std::int64_t n, std::int64_t m, std::int64_t k, sk::BiasShape b = sk::BiasShape::none) {
  sk::SkinnyShape s;
  s.n = n;
  s.m = m;
  s.k = k;
  s.bias = b;
  return s;
}

struct Gemm {
  sk::SkinnyPlan plan;
  HostCase host;
  DeviceCase dev;
  Gemm(const sk::SkinnyShape& s, std::mt19937_64& rng, sk::SkinnyVariant v = sk::SkinnyVariant::fixed)
      : plan(sk::make_plan(s, port::device_profile(), sk::SkinnyOptions{v, 0})), host(make_case(s, rng)), dev(host) {}
};

void random_schedule(const char* name) {
  port::sim::Options o = port::sim::options();
  o.schedule = port::sim::Schedule::random;
  o.seed = dsv4::test::test_seed(name);
  port::sim::set_options(o);
}

bool mentions(const std::vector<RaceReport>& rs, const std::string& what, std::uintptr_t lo, std::uintptr_t hi) {
  for (const RaceReport& r : rs)
    if (r.first_what == what && r.second_what == what && r.begin >= lo && r.end <= hi) return true;
  return false;
}

class RuntimeObserverSim : public ::testing::Test {
 protected:
  void SetUp() override {
    if (port::backend() != port::Backend::sim) GTEST_SKIP() << "runs the checker on sim streams";
    port::device_synchronize();
  }
  void TearDown() override { port::sim::reset_options(); }
};

TEST_F(RuntimeObserverSim, StaticSharedWorkspaceOnTwoStreamsIsReported) {
  auto rng = dsv4::test::rng_for_current_test();
  Gemm g1(shape(16, 32, 1024), rng, sk::SkinnyVariant::static_shared_workspace);
  Gemm g2(shape(24, 48, 2048), rng, sk::SkinnyVariant::static_shared_workspace);
  ASSERT_TRUE(g1.plan.ok && g2.plan.ok);
  ASSERT_GT(g1.plan.k_rnd, 1) << "the case must use its workspace";
  sk::SkinnyWorkspacePool pool(2, std::size_t{4} << 20, 0);
  port::Stream a, b;
  random_schedule("static_ws");
  RuntimeRaceObserver obs;
  sk::run_skinny_gemm(g1.plan, g1.dev.io(), pool, a);
  sk::run_skinny_gemm(g2.plan, g2.dev.io(), pool, b);
  a.synchronize();
  b.synchronize();
  const auto races = obs.races();
  ASSERT_FALSE(races.empty()) << "the shared static workspace must be flagged whatever the timing";
  const auto ws = reinterpret_cast<std::uintptr_t>(sk::static_shared_workspace().data());
  const RaceReport& r = races.front();
  EXPECT_EQ(r.first.stream, obs.id_of(a));
  EXPECT_EQ(r.second.stream, obs.id_of(b));
  EXPECT_EQ(r.first.kernel, "skinny_gemm<bf16>");
  EXPECT_EQ(r.second.kernel, "skinny_gemm<bf16>");
  EXPECT_EQ(r.first_what, "workspace");
  EXPECT_EQ(r.begin, ws);
  EXPECT_EQ(r.end, ws + std::min(g1.plan.workspace_bytes, g2.plan.workspace_bytes));
  EXPECT_NE(r.str().find("stream " + std::to_string(obs.id_of(b))), std::string::npos) << r.str();
  for (const RaceReport& x : races) EXPECT_EQ(x.first_what, "workspace") << x.str();  // nothing else is shared
}

TEST_F(RuntimeObserverSim, PerStreamPoolSlotsAreSilentAndCorrect) {
  auto rng = dsv4::test::rng_for_current_test();
  Gemm g1(shape(16, 32, 1024), rng), g2(shape(24, 48, 2048), rng);
  sk::SkinnyWorkspacePool pool(2, std::size_t{4} << 20, 0);
  port::Stream a, b;
  random_schedule("pool_ws");
  RuntimeRaceObserver obs;
  for (int i = 0; i < 3; ++i) {
    sk::run_skinny_gemm(g1.plan, g1.dev.io(), pool, a);
    sk::run_skinny_gemm(g2.plan, g2.dev.io(), pool, b);
  }
  a.synchronize();
  b.synchronize();
  EXPECT_TRUE(obs.races().empty()) << obs.summary();
  EXPECT_EQ(obs.launches(), 6u);
  EXPECT_TRUE(check_rows(g1.host, reference(g1.host), g1.dev.result()).ok());
  EXPECT_TRUE(check_rows(g2.host, reference(g2.host), g2.dev.result()).ok());
}

// Graph captured on A with a caller-owned workspace, replayed on B while A keeps launching with its own slot.
std::vector<RaceReport> graph_a_on_b(bool workspace_of_capture_stream, std::uintptr_t* ws_lo, std::uintptr_t* ws_hi) {
  auto rng = dsv4::test::rng_for_current_test();
  Gemm g(shape(16, 32, 1024), rng), live(shape(16, 32, 1024), rng);
  sk::SkinnyWorkspacePool pool(2, std::size_t{4} << 20, 0);
  port::Stream a, b;
  const auto slot_a = pool.acquire(a, g.plan.workspace_bytes), slot_b = pool.acquire(b, g.plan.workspace_bytes);
  const auto& slot = workspace_of_capture_stream ? slot_a : slot_b;
  *ws_lo = reinterpret_cast<std::uintptr_t>(slot.ptr);
  *ws_hi = *ws_lo + g.plan.workspace_bytes;
  RuntimeRaceObserver obs;
  a.begin_capture();
  sk::launch_skinny_gemm(g.plan, g.dev.io(), slot.ptr, slot.bytes, a);
  port::Graph graph = a.end_capture();
  port::GraphExec exec = graph.instantiate();
  exec.launch(b);                                          // replay on B ...
  sk::run_skinny_gemm(live.plan, live.dev.io(), pool, a);  // ... while A runs (slot of A)
  exec.launch(b);
  port::device_synchronize();
  return obs.races();
}

TEST_F(RuntimeObserverSim, GraphReplayedOnBWithCaptureStreamWorkspaceRaces) {
  std::uintptr_t lo = 0, hi = 0;
  const auto races = graph_a_on_b(true, &lo, &hi);
  ASSERT_FALSE(races.empty());
  EXPECT_TRUE(mentions(races, "workspace", lo, hi));
  bool replay_named = false;
  for (const RaceReport& r : races)
    replay_named |= r.first.kernel.find("graph replay") != std::string::npos ||
                    r.second.kernel.find("graph replay") != std::string::npos;
  EXPECT_TRUE(replay_named) << races.front().str();
}

TEST_F(RuntimeObserverSim, GraphReplayedOnBWithReplayStreamWorkspaceIsSilent) {
  std::uintptr_t lo = 0, hi = 0;
  const auto races = graph_a_on_b(false, &lo, &hi);
  EXPECT_TRUE(races.empty()) << races.front().str();
}

TEST_F(RuntimeObserverSim, PoolCaptureSlotGraphReplayedOnBIsSilent) {
  auto rng = dsv4::test::rng_for_current_test();
  Gemm g(shape(16, 32, 1024), rng), live(shape(16, 32, 1024), rng);
  sk::SkinnyWorkspacePool pool(2, std::size_t{4} << 20, 2);
  port::Stream a, b;
  RuntimeRaceObserver obs;
  a.begin_capture();
  sk::run_skinny_gemm(g.plan, g.dev.io(), pool, a);
  port::GraphExec exec = a.end_capture().instantiate();
  exec.launch(b);
  sk::run_skinny_gemm(live.plan, live.dev.io(), pool, a);
  port::device_synchronize();
  EXPECT_TRUE(obs.races().empty()) << obs.summary();
  EXPECT_TRUE(check_rows(g.host, reference(g.host), g.dev.result()).ok());
}

TEST_F(RuntimeObserverSim, EventsAndSyncsOrderTheWorkspaceUse) {
  auto rng = dsv4::test::rng_for_current_test();
  Gemm g1(shape(16, 32, 1024), rng, sk::SkinnyVariant::static_shared_workspace);
  Gemm g2(shape(16, 32, 1024), rng, sk::SkinnyVariant::static_shared_workspace);
  sk::SkinnyWorkspacePool pool(1, std::size_t{1} << 20, 0);
  port::Stream a, b;
  RuntimeRaceObserver obs;
  port::Event e;
  sk::run_skinny_gemm(g1.plan, g1.dev.io(), pool, a);
  e.record(a);
  b.wait(e);
  sk::run_skinny_gemm(g2.plan, g2.dev.io(), pool, b);  // ordered by the event
  b.synchronize();
  sk::run_skinny_gemm(g1.plan, g1.dev.io(), pool, a);  // ordered by the host sync of b
  EXPECT_TRUE(obs.races().empty()) << obs.summary();
  sk::run_skinny_gemm(g2.plan, g2.dev.io(), pool, b);  // not ordered after the last launch on a
  port::device_synchronize();
  EXPECT_FALSE(obs.races().empty());
}

TEST_F(RuntimeObserverSim, AsyncCopyIntoABufferAnotherStreamReadsIsReported) {
  std::vector<float> host(256, 1.5f), back(256);
  port::DeviceBuffer buf(256 * sizeof(float));
  port::Stream a, b;
  RuntimeRaceObserver obs;
  buf.copy_from_host_async(host.data(), host.size() * sizeof(float), a);
  buf.copy_to_host_async(back.data(), back.size() * sizeof(float), b);
  port::device_synchronize();
  const auto races = obs.races();
  ASSERT_EQ(races.size(), 1u) << obs.summary();
  EXPECT_EQ(races[0].first.kernel, "memcpy_async");
  EXPECT_EQ(races[0].kind, "write-read");
}

}  // namespace
