// Benchmark of the per-token-group FP8 quantization kernel: median time per launch and achieved memory bandwidth
// (x read, codes and scales written) for DeepSeek-V4 activation shapes (K = 7168, 1x128 groups), fp32 and packed
// UE8M0 scales. On sim it runs a small shape and reports simulator CPU time (not a device number).
#include <cstdio>
#include <vector>

#include "bench/kernels/bench_kernel_timing.hpp"
#include "kernels/quant_fp8/quant_fp8.hpp"

namespace qk = dsv4::kernels::quant;
namespace port = dsv4::port;

int main() {
  const bool sim = port::backend() == port::Backend::sim;
  std::vector<long> ms_list = sim ? std::vector<long>{16} : std::vector<long>{16, 128, 1024, 4096, 16384};
  const long K = sim ? 1024 : 7168;
  std::printf("backend %s, device %s%s\n", std::string(port::backend_name()).c_str(),
              std::string(port::device_profile().name).c_str(), sim ? " (sim: CPU time of the simulator)" : "");
  std::printf("%6s %6s %-12s %-12s %10s %10s\n", "M", "K", "recipe", "layout", "ms", "GB/s");
  for (long M : ms_list)
    for (auto [recipe, layout] : {std::pair{"plain-fp32", qk::ScaleLayout::row_major},
                                  std::pair{"dg-ceil", qk::ScaleLayout::packed_ue8m0}}) {
      qk::QuantShape s;
      s.m = M;
      s.k = K;
      qk::QuantOptions o;
      o.recipe = recipe;
      o.layout = layout;
      const qk::QuantPlan plan = qk::make_quant_plan(s, port::device_profile(), o);
      if (!plan.ok) {
        std::printf("refused: %s\n", plan.reason.c_str());
        continue;
      }
      port::DeviceBuffer x(static_cast<std::size_t>(M * K) * 2), q(static_cast<std::size_t>(M * K)),
          sc(std::max<std::size_t>(4, plan.scale_bytes));
      x.memset(0x3f);
      port::Stream st;
      const qk::QuantBuffers io{x.data(), q.data(), sc.data()};
      const double ms = dsv4::bench::median_ms([&] { qk::launch_per_token_group_quant_fp8(plan, io, st); }, st,
                                               sim ? 3 : 21, sim ? 1 : 50);
      const double bytes = 3.0 * M * K + plan.scale_bytes;
      std::printf("%6ld %6ld %-12s %-12s %10.4f %10.1f\n", M, K, recipe,
                  layout == qk::ScaleLayout::row_major ? "row_major" : "packed_ue8m0", ms, bytes / (ms * 1e6));
    }
  return 0;
}
