// Stress (issue 8): N streams x M iterations of interleaved skinny GEMMs of different shapes with distinct inputs
// and no synchronisation between streams, each output checked bitwise against its single-stream result and against
// float64; a graph captured on A replayed on B while A runs; the shared-experts overlap and the CSA fork/join
// (eager with events and as captured graphs; CSA as one cross-stream graph); pool counters zero afterwards; the race checker attached throughout
// (silent with the pool) and catching the static shared workspace. Every case runs under a deadline
// (deadline_runner.hpp). Compiled twice: test_stress_sim (sim backend, random schedules) and test_stress_gpu
// (DSV4_STRESS_GPU, device backends, larger; skipped without a device).
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

#include "kernels/race/runtime_observer.hpp"
#include "tests/stress/deadline_runner.hpp"
#include "tests/stress/stress_fixture.hpp"
#include "tests/support/seed.hpp"

namespace {

using namespace dsv4::test::stress;
using dsv4::race::RuntimeRaceObserver;

// Distinct suite names, so the sim and gpu executables' ctest entries do not collide.
#ifdef DSV4_STRESS_GPU
#define STRESS_SUITE StressGpu
#else
#define STRESS_SUITE StressSim
#endif

#define STRESS_REQUIRE_BACKEND()                                 \
  do {                                                           \
    const std::string why = skip_reason();                       \
    if (!why.empty()) GTEST_SKIP() << why;                       \
  } while (0)

std::vector<std::uint16_t> fetch(const port::DeviceBuffer& b) { return b.to_host<std::uint16_t>(); }

void expect_counters_zero(sk::SkinnyWorkspacePool& pool, std::vector<std::string>& f) {
  int nonzero = 0;
  for (std::int32_t v : pool.read_all_counters(sk::kCounterRegionBytes)) nonzero += v != 0;
  if (nonzero) f.push_back(std::to_string(nonzero) + " workspace counters are not zero after the stress");
}

void expect_no_races(const RuntimeRaceObserver& obs, std::vector<std::string>& f) {
  if (!obs.races().empty()) f.push_back("race checker: " + obs.summary());
}

// ---- N streams x M iterations -----------------------------------------------------------------------------------
TEST(STRESS_SUITE, InterleavedStreamsThroughPool) {
  STRESS_REQUIRE_BACKEND();
  // Sim: three random schedules (three seeds, each its own child process); the device has its own timing.
  for (int round = 0; round < (kGpuVariant ? 1 : 3); ++round) {
  SCOPED_TRACE("schedule round " + std::to_string(round));
  const std::uint64_t seed = dsv4::test::test_seed("interleaved" + std::to_string(round));
  expect_passes_within([seed] {
    std::vector<std::string> f;
    const Scale& sc = scale();
    std::mt19937_64 rng(seed);
    // Three shapes of different N, M, K and dtype; each stream owns its own inputs of each shape.
    const std::vector<sk::SkinnyShape> shapes = {
        shape(16, sc.m_small, sc.k_small), shape(33, sc.m_large, sc.k_large, sk::ElemType::f16),
        shape(8, sc.m_small, sc.k_large, sk::ElemType::bf16, sk::BiasShape::m)};
    std::vector<std::vector<std::unique_ptr<GemmCase>>> cases(sc.streams);
    for (auto& per : cases)
      for (const auto& s : shapes) per.push_back(std::make_unique<GemmCase>(s, rng));
    std::vector<port::Stream> streams(sc.streams);
    sk::SkinnyWorkspacePool pool(sc.streams, std::size_t{16} << 20, 0);
    std::vector<std::vector<port::DeviceBuffer>> outs(sc.streams);
    for (int s = 0; s < sc.streams; ++s)
      for (int i = 0; i < sc.iterations; ++i) outs[s].emplace_back(cases[s][(i + s) % shapes.size()]->out_bytes());
    // A different op between the GEMMs: per-token-group FP8 quant of each stream's own input, every 5th step.
    std::vector<std::unique_ptr<QuantCase>> quants;
    std::vector<std::vector<port::DeviceBuffer>> q_out(sc.streams), s_out(sc.streams);
    for (int s = 0; s < sc.streams; ++s) {
      quants.push_back(std::make_unique<QuantCase>(8 + s, 512, rng));
      for (int i = 0; i < sc.iterations; i += 5) {
        q_out[s].emplace_back(quants[s]->q_bytes());
        s_out[s].emplace_back(quants[s]->plan.scale_bytes);
      }
    }
    random_schedule(seed);
    RuntimeRaceObserver obs;
    for (int i = 0; i < sc.iterations; ++i)  // round robin over streams, no synchronisation between them
      for (int s = 0; s < sc.streams; ++s) {
        const GemmCase& c = *cases[s][(i + s) % shapes.size()];
        sk::run_skinny_gemm(c.plan, c.io(outs[s][i].data()), pool, streams[s]);
        if (i % 5 == 0) quants[s]->launch(q_out[s][i / 5].data(), s_out[s][i / 5].data(), streams[s]);
      }
    for (auto& st : streams) st.synchronize();
    expect_no_races(obs, f);
    for (int s = 0; s < sc.streams; ++s) {
      for (int i = 0; i < sc.iterations; ++i)
        check_output(*cases[s][(i + s) % shapes.size()], fetch(outs[s][i]),
                     "stream " + std::to_string(s) + " iteration " + std::to_string(i), f);
      for (std::size_t j = 0; j < q_out[s].size(); ++j)
        check_quant(*quants[s], q_out[s][j].to_host<std::uint8_t>(), s_out[s][j].to_host<float>(),
                    "stream " + std::to_string(s) + " quant #" + std::to_string(j), f);
    }
    expect_counters_zero(pool, f);
    if (pool.stream_slots_used() != sc.streams) f.push_back("pool did not give each stream its own slot");
    return f;
  }, scale().timeout_s);
  }
}

// ---- graph captured on A, replayed on B while A runs --------------------------------------------------------------
TEST(STRESS_SUITE, GraphCapturedOnAReplayedOnBWhileARuns) {
  STRESS_REQUIRE_BACKEND();
  const std::uint64_t seed = dsv4::test::test_seed("graph_a_b");
  expect_passes_within([seed] {
    std::vector<std::string> f;
    const Scale& sc = scale();
    std::mt19937_64 rng(seed);
    GemmCase g(shape(24, sc.m_small, sc.k_large, sk::ElemType::bf16, sk::BiasShape::nm), rng);
    GemmCase live(shape(40, sc.m_large, sc.k_small, sk::ElemType::f16), rng);
    sk::SkinnyWorkspacePool pool(2, std::size_t{16} << 20, 2);
    port::Stream a, b;
    port::DeviceBuffer graph_out(g.out_bytes());
    std::vector<port::DeviceBuffer> live_outs;
    for (int i = 0; i < sc.iterations; ++i) live_outs.emplace_back(live.out_bytes());
    RuntimeRaceObserver obs;
    a.begin_capture();
    sk::run_skinny_gemm(g.plan, g.io(graph_out.data()), pool, a);
    port::GraphExec exec = a.end_capture().instantiate();
    random_schedule(seed);
    for (int i = 0; i < sc.iterations; ++i) {
      exec.launch(b);
      sk::run_skinny_gemm(live.plan, live.io(live_outs[i].data()), pool, a);
    }
    a.synchronize();
    b.synchronize();
    expect_no_races(obs, f);
    check_output(g, fetch(graph_out), "graph replayed on B", f);
    for (int i = 0; i < sc.iterations; ++i) check_output(live, fetch(live_outs[i]), "live on A #" + std::to_string(i), f);
    expect_counters_zero(pool, f);
    return f;
  }, scale().timeout_s);
}

// ---- shared-experts overlap: router gate and shared expert, two skinny GEMMs on two streams --------------------
// Eager: the main stream forks the aux stream with an event, both GEMMs run at once through the pool, the main
// stream joins with a second event. Graph: each side captured on its own stream, replayed with the same fork/join.
void shared_experts(bool as_graph, std::uint64_t seed) {
  expect_passes_within([as_graph, seed] {
    std::vector<std::string> f;
    const Scale& sc = scale();
    std::mt19937_64 rng(seed);
    const std::int64_t tokens = 16;
    GemmCase gate(shape(tokens, sc.m_large, sc.k_large), rng);          // hidden -> routed-expert logits
    GemmCase shared(shape(tokens, sc.m_small, sc.k_large), rng);        // hidden -> shared-expert projection
    sk::SkinnyWorkspacePool pool(2, std::size_t{16} << 20, 4);
    port::Stream main, aux;
    port::Event fork, join;
    const int steps = sc.iterations;
    std::vector<port::DeviceBuffer> g_out, s_out;
    for (int i = 0; i < steps; ++i) {
      g_out.emplace_back(gate.out_bytes());
      s_out.emplace_back(shared.out_bytes());
    }
    random_schedule(seed);
    RuntimeRaceObserver obs;
    if (!as_graph) {
      for (int i = 0; i < steps; ++i) {
        fork.record(main);
        aux.wait(fork);
        sk::run_skinny_gemm(shared.plan, shared.io(s_out[i].data()), pool, aux);
        sk::run_skinny_gemm(gate.plan, gate.io(g_out[i].data()), pool, main);
        join.record(aux);
        main.wait(join);
      }
    } else {
      port::DeviceBuffer g_tmp(gate.out_bytes()), s_tmp(shared.out_bytes());
      main.begin_capture();
      sk::run_skinny_gemm(gate.plan, gate.io(g_tmp.data()), pool, main);
      port::GraphExec gate_exec = main.end_capture().instantiate();
      aux.begin_capture();
      sk::run_skinny_gemm(shared.plan, shared.io(s_tmp.data()), pool, aux);
      port::GraphExec shared_exec = aux.end_capture().instantiate();
      for (int i = 0; i < steps; ++i) {
        fork.record(main);
        aux.wait(fork);
        shared_exec.launch(aux);
        gate_exec.launch(main);
        join.record(aux);
        main.wait(join);
        // the step's results leave the graph buffers in stream order (the next step overwrites them)
        port::copy_device_async(g_out[i], 0, g_tmp, 0, gate.out_bytes(), main);
        port::copy_device_async(s_out[i], 0, s_tmp, 0, shared.out_bytes(), main);
      }
    }
    main.synchronize();
    expect_no_races(obs, f);
    for (int i = 0; i < steps; ++i) {
      check_output(gate, fetch(g_out[i]), "router gate step " + std::to_string(i), f);
      check_output(shared, fetch(s_out[i]), "shared expert step " + std::to_string(i), f);
    }
    expect_counters_zero(pool, f);
    return f;
  }, scale().timeout_s);
}
TEST(STRESS_SUITE, SharedExpertsOverlapEagerWithEvents) {
  STRESS_REQUIRE_BACKEND();
  shared_experts(false, dsv4::test::test_seed("shared_experts_eager"));
}
TEST(STRESS_SUITE, SharedExpertsOverlapAsCapturedGraphs) {
  STRESS_REQUIRE_BACKEND();
  shared_experts(true, dsv4::test::test_seed("shared_experts_graph"));
}

// ---- CSA fork/join: one input, default stream + two aux streams each running a self-contained chain ------------
// Each chain is two GEMMs (the second consumes the first's output); the default stream forks both aux streams
// with one event and joins them with one event each. Graph form: the whole fork/join (fork event, three chains on
// three streams, join events) captured once on the lead stream as ONE cross-stream graph and replayed each step.
void csa_fork_join(bool as_graph, std::uint64_t seed) {
  expect_passes_within([as_graph, seed] {
    std::vector<std::string> f;
    const Scale& sc = scale();
    std::mt19937_64 rng(seed);
    const std::int64_t tokens = 12, hidden = sc.k_large;
    GemmCase first[3] = {GemmCase(shape(tokens, sc.m_large, hidden), rng),
                         GemmCase(shape(tokens, sc.m_small, hidden), rng),
                         GemmCase(shape(tokens, sc.m_small + 16, hidden), rng)};
    // One input: every chain reads the default chain's a (hidden_states).
    for (int c = 1; c < 3; ++c) {
      first[c].host.a = first[0].host.a;
      first[c].host.af = first[0].host.af;
    }
    std::vector<std::unique_ptr<GemmCase>> chain1, chain2;
    for (int c = 0; c < 3; ++c) {
      first[c] = GemmCase(first[c].host);  // re-run the single-stream result on the shared input
      const std::int64_t m2 = c == 0 ? sc.m_small : sc.m_large;
      chain2.push_back(std::make_unique<GemmCase>(
          chained_case(shape(tokens, m2, first[c].host.shape.m), first[c].solo, rng)));
    }
    const void* hidden_states = first[0].dev.a.data();
    sk::SkinnyWorkspacePool pool(3, std::size_t{16} << 20, 8);
    // Eager: the default stream leads. Graph form: a created stream leads (CUDA cannot capture the legacy
    // default stream).
    port::Stream lead, aux0, aux1;
    port::Stream& main = as_graph ? lead : port::Stream::default_stream();
    port::Stream* st[3] = {&main, &aux0, &aux1};
    port::Event fork, joined[2];
    port::DeviceBuffer mid[3] = {port::DeviceBuffer(first[0].out_bytes()), port::DeviceBuffer(first[1].out_bytes()),
                                 port::DeviceBuffer(first[2].out_bytes())};
    const int steps = std::max(2, sc.iterations / 5);
    std::vector<std::vector<port::DeviceBuffer>> outs(3);
    for (int c = 0; c < 3; ++c)
      for (int i = 0; i < steps; ++i) outs[c].emplace_back(chain2[c]->out_bytes());
    port::DeviceBuffer final_out[3] = {port::DeviceBuffer(chain2[0]->out_bytes()),
                                       port::DeviceBuffer(chain2[1]->out_bytes()),
                                       port::DeviceBuffer(chain2[2]->out_bytes())};
    random_schedule(seed);
    RuntimeRaceObserver obs;
    auto chain = [&](int c, void* out2) {
      sk::run_skinny_gemm(first[c].plan, first[c].io(mid[c].data(), hidden_states), pool, *st[c]);
      sk::run_skinny_gemm(chain2[c]->plan, chain2[c]->io(out2, mid[c].data()), pool, *st[c]);
    };
    auto fork_join = [&] {
      fork.record(main);
      for (int c = 1; c < 3; ++c) st[c]->wait(fork);
      for (int c = 2; c >= 0; --c) {  // aux chains issued first: the default chain overlaps them
        chain(c, final_out[c].data());
        if (c > 0) joined[c - 1].record(*st[c]);
      }
      for (int c = 0; c < 2; ++c) main.wait(joined[c]);
    };
    port::GraphExec step_graph;
    if (as_graph) {  // aux0 and aux1 join the lead stream's capture through `fork`, and are joined back
      main.begin_capture();
      fork_join();
      step_graph = main.end_capture().instantiate();
    }
    for (int i = 0; i < steps; ++i) {
      if (as_graph) step_graph.launch(main);
      else fork_join();
      for (int c = 0; c < 3; ++c) port::copy_device_async(outs[c][i], 0, final_out[c], 0, chain2[c]->out_bytes(), main);
    }
    main.synchronize();
    expect_no_races(obs, f);
    for (int c = 0; c < 3; ++c) {
      check_output(first[c], fetch(mid[c]), "chain " + std::to_string(c) + " first GEMM", f);
      for (int i = 0; i < steps; ++i)
        check_output(*chain2[c], fetch(outs[c][i]),
                     "chain " + std::to_string(c) + " second GEMM step " + std::to_string(i), f);
    }
    expect_counters_zero(pool, f);
    return f;
  }, scale().timeout_s);
}
TEST(STRESS_SUITE, CsaForkJoinEagerWithEvents) {
  STRESS_REQUIRE_BACKEND();
  csa_fork_join(false, dsv4::test::test_seed("csa_eager"));
}
TEST(STRESS_SUITE, CsaForkJoinAsOneCrossStreamGraph) {
  STRESS_REQUIRE_BACKEND();
  csa_fork_join(true, dsv4::test::test_seed("csa_graph"));
}

// ---- the buggy static shared workspace must be caught -------------------------------------------------------------
TEST(STRESS_SUITE, StaticSharedWorkspaceVariantIsCaught) {
  STRESS_REQUIRE_BACKEND();
  const std::uint64_t seed = dsv4::test::test_seed("static_ws");
  expect_passes_within([seed] {
    std::vector<std::string> f;
    const Scale& sc = scale();
    std::mt19937_64 rng(seed);
    GemmCase g1(shape(16, sc.m_small, sc.k_large), rng, sk::SkinnyVariant::static_shared_workspace);
    GemmCase g2(shape(24, sc.m_large, sc.k_large), rng, sk::SkinnyVariant::static_shared_workspace);
    sk::SkinnyWorkspacePool pool(2, std::size_t{16} << 20, 0);
    port::Stream a, b;
    port::DeviceBuffer o1(g1.out_bytes()), o2(g2.out_bytes());
    random_schedule(seed);
    RuntimeRaceObserver obs;
    for (int i = 0; i < 4; ++i) {
      sk::run_skinny_gemm(g1.plan, g1.io(o1.data()), pool, a);
      sk::run_skinny_gemm(g2.plan, g2.io(o2.data()), pool, b);
    }
    port::device_synchronize();
    const auto races = obs.races();
    const auto ws = reinterpret_cast<std::uintptr_t>(sk::static_shared_workspace().data());
    bool named = false;
    for (const auto& r : races)
      named |= r.first_what == "workspace" && r.begin >= ws && r.first.stream != r.second.stream;
    if (!named) f.push_back("the static shared workspace used by two streams was not reported: " + obs.summary());
    return f;
  }, scale().timeout_s);
}

#ifndef DSV4_STRESS_GPU  // the runner's own tests need no device: run them once, in the sim executable
// ---- the deadline runner itself ----------------------------------------------------------------------------------
TEST(StressRunner, HangIsReportedWithReproNotWaitedOut) {
  const auto t0 = std::chrono::steady_clock::now();
  const Outcome o = run_with_deadline([]() -> std::vector<std::string> {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }, 0.5, Isolation::fork_child);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(o.kind, Outcome::hung);
  EXPECT_LT(s, 5.0);
  ASSERT_FALSE(o.messages.empty());
  EXPECT_NE(o.messages[0].find("--gtest_filter='StressRunner.HangIsReportedWithReproNotWaitedOut'"), std::string::npos)
      << o.messages[0];
  EXPECT_NE(o.messages[0].find("DSV4_SEED="), std::string::npos) << o.messages[0];
}

TEST(StressRunner, FailureMessagesAndCrashesCrossTheFork) {
  const Outcome bad = run_with_deadline([] { return std::vector<std::string>{"out[3] differs"}; }, 5,
                                        Isolation::fork_child);
  EXPECT_EQ(bad.kind, Outcome::failed);
  ASSERT_EQ(bad.messages.size(), 1u);
  EXPECT_EQ(bad.messages[0], "out[3] differs");
  const Outcome crash = run_with_deadline([]() -> std::vector<std::string> { std::abort(); }, 5,
                                          Isolation::fork_child);
  EXPECT_EQ(crash.kind, Outcome::crashed);
  const Outcome ok = run_with_deadline([] { return std::vector<std::string>{}; }, 5, Isolation::thread);
  EXPECT_EQ(ok.kind, Outcome::passed);
}
#endif

}  // namespace
