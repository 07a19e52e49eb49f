// Benchmark of the indexer top-k kernel (radix select, one block per row): per shape the floor (compulsory bytes:
// every logit read once, the indices written once, at the H200's measured copy bandwidth 4214 GB/s), the measured
// median per launch and ratio = floor / measured; also the bytes the 4-pass kernel actually reads. Logits are N(0,1)
// fp32 over full rows. Shapes as bench_topk_torch.py (torch.topk baseline, sorted=False). On sim it runs one small
// shape and reports simulator CPU time (not a device number).
#include <cstdio>
#include <random>
#include <vector>

#include "bench/kernels/bench_kernel_timing.hpp"
#include "kernels/topk/topk_kernel.hpp"

namespace tk = dsv4::kernels::topk;
namespace port = dsv4::port;

int main() {
  const bool sim = port::backend() == port::Backend::sim;
  constexpr double kCopyGBs = 4214.0;
  struct Case { long r, c, k; };
  const std::vector<Case> cases =
      sim ? std::vector<Case>{{2, 4096, 256}}
          : std::vector<Case>{{1, 131072, 2048}, {64, 65536, 2048}, {128, 131072, 2048}, {256, 32768, 2048},
                              {64, 65536, 1024}, {1024, 8192, 512},  {4096, 4096, 512},   {128, 16384, 2048}};
  std::printf("backend %s, device %s%s\n", std::string(port::backend_name()).c_str(),
              std::string(port::device_profile().name).c_str(), sim ? " (sim: CPU time of the simulator)" : "");
  std::printf("%6s %7s %5s %6s %12s %11s %11s %7s %14s\n", "R", "C", "topk", "block", "bytes", "floor_us",
              "median_us", "ratio", "kernel_GB/s");
  std::mt19937_64 rng(11);
  std::normal_distribution<float> nd(0.f, 1.f);
  for (const Case& cs : cases) {
    tk::TopkShape s;
    s.rows = cs.r;
    s.cols = cs.c;
    s.topk = cs.k;
    const tk::TopkPlan plan = tk::make_topk_plan(s, port::device_profile());
    if (!plan.ok) {
      std::printf("refused: %s\n", plan.reason.c_str());
      continue;
    }
    std::vector<float> x(static_cast<std::size_t>(cs.r * cs.c));
    for (auto& v : x) v = nd(rng);
    std::vector<int> starts(static_cast<std::size_t>(cs.r), 0);
    std::vector<int> ends(static_cast<std::size_t>(cs.r), static_cast<int>(cs.c));
    port::DeviceBuffer dx(x.size() * 4), ds(starts.size() * 4), de(ends.size() * 4),
        dout(static_cast<std::size_t>(cs.r * cs.k) * 4);
    dx.copy_from_host(x.data(), x.size() * 4);
    ds.copy_from_host(starts.data(), starts.size() * 4);
    de.copy_from_host(ends.data(), ends.size() * 4);
    port::Stream st;
    const tk::TopkBuffers io{static_cast<const float*>(dx.data()), static_cast<const int*>(ds.data()),
                             static_cast<const int*>(de.data()), static_cast<int*>(dout.data())};
    const double ms = dsv4::bench::median_ms([&] { tk::launch_topk(plan, io, st); }, st, sim ? 3 : 21, sim ? 1 : 20);
    const double bytes = plan.bytes_compulsory();
    const double floor_ms = bytes / (kCopyGBs * 1e6);  // GB/s = 1e6 bytes per ms
    std::printf("%6ld %7ld %5ld %6d %12.0f %11.2f %11.2f %7.3f %14.1f\n", cs.r, cs.c, cs.k, plan.block, bytes,
                floor_ms * 1e3, ms * 1e3, floor_ms / ms, plan.bytes_moved() / (ms * 1e6));
  }
  return 0;
}
