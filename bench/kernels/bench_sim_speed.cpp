// Benchmark of the simulator itself (sim backend only; issue 6's speed target, moved out of the tests by issue 35):
// the split-K skinny GEMM at N=65, K=5248, M=256 with every LDS check on, in CPU seconds against the 2-second
// target, and the executor's cost per fiber switch (a 256-thread barrier loop) against a bare Boost.Context fiber
// ping-pong measured in the same run (the peer: what a switch costs without the sim's bookkeeping). Results are
// also checked, so a fast wrong run is reported as wrong. Usage: bench_sim_speed [repeats, default 3].
#include <time.h>

#include <boost/context/fiber.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "kernels/port/runtime.hpp"
#include "kernels/port/sim.hpp"
#include "tests/kernels/sim/sim_test_kernels.hpp"
#include "tests/kernels/skinny_gemm/skinny_test_util.hpp"

namespace sk = dsv4::kernels::skinny;
namespace port = dsv4::port;
namespace sim = dsv4::port::sim;
namespace skinny = dsv4::test::skinny;

namespace {

constexpr double kSkinnyTargetSeconds = 2.0;  // issue 6: one case in under 2 s of one core

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// CPU seconds of one skinny GEMM launch; false when the result or the sim report is wrong.
bool skinny_case(std::uint64_t seed, double& cpu) {
  const sk::SkinnyShape s = skinny::sim_large_case_shape();
  const sk::SkinnyPlan plan = sk::make_plan(s, port::kGfx950, {});
  if (!plan.ok) {
    std::printf("skinny plan refused: %s\n", plan.reason.c_str());
    return false;
  }
  std::mt19937_64 rng(seed);
  const skinny::HostCase c = skinny::make_case(s, rng);
  port::Stream st;
  skinny::ReadyLaunch run(plan, c, st);
  const double t0 = thread_cpu_seconds();
  run.launch(st);
  cpu = thread_cpu_seconds() - t0;
  const sim::Report r = sim::take_report();
  const skinny::RowCheck rows = skinny::check_rows(c, skinny::reference(c), run.d.result());
  if (!r.empty() || rows.failures != 0) {
    std::printf("skinny case WRONG (seed %llu): %lld failing rows, report: %s\n",
                static_cast<unsigned long long>(seed), static_cast<long long>(rows.failures), r.to_string().c_str());
    return false;
  }
  return true;
}

// Seconds per switch of a bare Boost.Context fiber (two switches per round trip).
double bare_fiber_switch_seconds(int round_trips) {
  namespace ctx = boost::context;
  volatile int sink = 0;
  ctx::fiber f([&](ctx::fiber&& back) {
    for (;;) {
      sink = sink + 1;
      back = std::move(back).resume();
    }
    return std::move(back);
  });
  const double t0 = thread_cpu_seconds();
  for (int i = 0; i < round_trips; ++i) f = std::move(f).resume();
  return (thread_cpu_seconds() - t0) / (2.0 * round_trips);
}

// Seconds per fiber switch of the sim's barrier loop (256 threads x iters barriers); false when its result is wrong.
bool sim_switch_seconds(int iters, double& per_switch) {
  port::DeviceBuffer out(sizeof(int) * 256);
  const sim::Stats before = sim::stats();
  const double t0 = thread_cpu_seconds();
  dsv4::test::simk::barrier_loop(out.as<int>(), iters);
  const std::vector<int> v = out.to_host<int>();
  const double cpu = thread_cpu_seconds() - t0;
  const sim::Stats after = sim::stats();
  for (int x : v)
    if (x != iters) {
      std::printf("barrier loop WRONG: a thread counted %d of %d barriers\n", x, iters);
      return false;
    }
  per_switch = cpu / double(after.fiber_switches - before.fiber_switches);
  return true;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (port::backend() != port::Backend::sim) {
    std::printf("bench_sim_speed measures the simulator; this build's backend is %s\n",
                std::string(port::backend_name()).c_str());
    return 2;
  }
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
  std::vector<double> skinny_s, sim_sw, bare_sw;
  for (int r = 0; r < repeats; ++r) {
    double cpu = 0, sw = 0;
    if (!skinny_case(1000 + static_cast<std::uint64_t>(r), cpu) || !sim_switch_seconds(2000, sw)) return 1;
    skinny_s.push_back(cpu);
    sim_sw.push_back(sw);
    bare_sw.push_back(bare_fiber_switch_seconds(1 << 20));
  }
  const double sk_med = median(skinny_s), sim_med = median(sim_sw), bare_med = median(bare_sw);
  std::printf("sim speed, median of %d (CPU time of this thread)\n", repeats);
  std::printf("  skinny N=65 K=5248 M=256, all LDS checks: %.3f s = %.2f x the %.1f s target\n", sk_med,
              sk_med / kSkinnyTargetSeconds, kSkinnyTargetSeconds);
  std::printf("  fiber switch in a 256-thread barrier loop: %.1f ns = %.1f x a bare Boost.Context switch (%.1f ns)\n",
              sim_med * 1e9, sim_med / bare_med, bare_med * 1e9);
  return 0;
}
