// Benchmark of the merge_attn_states kernel: median time per launch and achieved memory bandwidth (two [T,H,D]
// inputs read, one written, LSEs) for DeepSeek-V4-like shapes, bf16 and fp32, with and without FP8 output. On sim
// it runs a small shape and reports simulator CPU time (not a device number).
#include <cstdio>
#include <random>
#include <vector>

#include "bench/kernels/bench_kernel_timing.hpp"
#include "kernels/merge_attn_states/merge_attn_states.hpp"

namespace mg = dsv4::kernels::merge;
namespace port = dsv4::port;

int main() {
  const bool sim = port::backend() == port::Backend::sim;
  struct Case { long t, h, d; mg::ElemType dt; bool fp8; };
  std::vector<Case> cases;
  if (sim) {
    cases = {{64, 8, 128, mg::ElemType::bf16, false}, {64, 8, 128, mg::ElemType::f32, true}};
  } else {
    for (long t : {512L, 4096L, 16384L})
      for (auto [h, d] : {std::pair{16L, 512L}, std::pair{64L, 128L}}) {
        cases.push_back({t, h, d, mg::ElemType::bf16, false});
        cases.push_back({t, h, d, mg::ElemType::bf16, true});
      }
    cases.push_back({4096, 64, 128, mg::ElemType::f32, false});
  }
  std::printf("backend %s, device %s%s\n", std::string(port::backend_name()).c_str(),
              std::string(port::device_profile().name).c_str(), sim ? " (sim: CPU time of the simulator)" : "");
  std::printf("%6s %4s %4s %5s %4s %10s %10s\n", "T", "H", "D", "dtype", "fp8", "ms", "GB/s");
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-4.f, 4.f);
  for (const Case& c : cases) {
    mg::MergeShape s;
    s.t = c.t;
    s.h = c.h;
    s.d = c.d;
    s.dtype = c.dt;
    mg::MergeOptions o;
    if (c.fp8) o.output_scale = 0.05;
    const mg::MergePlan plan = mg::make_merge_plan(s, port::device_profile(), o);
    if (!plan.ok) {
      std::printf("refused: %s\n", plan.reason.c_str());
      continue;
    }
    port::DeviceBuffer P(plan.in_bytes), S(plan.in_bytes), out(plan.out_bytes);
    P.memset(0x3c);  // finite values of either dtype
    S.memset(0x3d);
    std::vector<float> lse(static_cast<std::size_t>(c.t * c.h));
    for (float& v : lse) v = u(rng);
    port::DeviceBuffer pl = port::DeviceBuffer::from_host<float>(lse), sl = port::DeviceBuffer::from_host<float>(lse),
                       ol(lse.size() * 4);
    port::Stream st;
    const mg::MergeBuffers io{P.data(), pl.as<float>(), S.data(), sl.as<float>(), out.data(), ol.as<float>()};
    const double ms = dsv4::bench::median_ms([&] { mg::launch_merge_attn_states(plan, io, st); }, st, sim ? 3 : 21,
                                             sim ? 1 : 50);
    const double bytes = 2.0 * plan.in_bytes + plan.out_bytes + 3.0 * lse.size() * 4;
    std::printf("%6ld %4ld %4ld %5s %4s %10.4f %10.1f\n", c.t, c.h, c.d, c.dt == mg::ElemType::f32 ? "f32" : "bf16",
                c.fp8 ? "yes" : "no", ms, bytes / (ms * 1e6));
  }
  return 0;
}
