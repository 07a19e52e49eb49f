// Benchmark of the fused inverse RoPE + FP8 quantization kernel (V4 attention output, ops.md §7.2): per shape the
// bytes-moved floor at the H200's measured copy bandwidth (4214 GB/s: o read as bf16, codes and scales written,
// positions and the touched cos/sin rows read), the measured median per launch and the ratio floor / measured.
// Shapes: V4-Flash (64 heads x 512, 8 groups) and a V4-Pro-sized 128 heads (inferred) at decode / prefill token
// counts. On sim it runs one tiny shape and reports simulator CPU time (not a device number).
#include <cstdio>
#include <vector>

#include "bench/kernels/bench_kernel_timing.hpp"
#include "kernels/inv_rope_fp8_quant/inv_rope_fp8_quant.hpp"

namespace ir = dsv4::kernels::inv_rope;
namespace port = dsv4::port;

namespace {
struct Shape {
  const char* name;
  long t, h;
};
}  // namespace

int main() {
  const bool sim = port::backend() == port::Backend::sim;
  constexpr double kCopyGBs = 4214.0;
  constexpr long kMaxPos = 8192;
  const std::vector<Shape> shapes =
      sim ? std::vector<Shape>{{"sim-tiny", 4, 8}}
          : std::vector<Shape>{{"flash", 1, 64},   {"flash", 64, 64},   {"flash", 1024, 64}, {"flash", 8192, 64},
                               {"pro(H=128)", 64, 128}, {"pro(H=128)", 1024, 128}, {"pro(H=128)", 8192, 128}};
  std::printf("backend %s, device %s%s\n", std::string(port::backend_name()).c_str(),
              std::string(port::device_profile().name).c_str(), sim ? " (sim: CPU time of the simulator)" : "");
  std::printf("%-11s %6s %4s %-12s %12s %12s %8s %10s\n", "shape", "T", "H", "layout", "floor_ms", "median_ms",
              "ratio", "GB/s");
  for (const Shape& sh : shapes)
    for (auto layout : {ir::ScaleLayout::mn_major, ir::ScaleLayout::packed_ue8m0}) {
      ir::InvRopeShape s;
      s.t = sh.t;
      s.h = sh.h;
      s.max_pos = sim ? 16 : kMaxPos;
      ir::InvRopeOptions o;
      o.layout = layout;
      o.n_groups = 8;
      const ir::InvRopePlan plan = ir::make_inv_rope_plan(s, port::device_profile(), o);
      if (!plan.ok) {
        std::printf("refused: %s\n", plan.reason.c_str());
        continue;
      }
      std::vector<long long> pos(static_cast<std::size_t>(sh.t));
      for (long t = 0; t < sh.t; ++t) pos[t] = (t * 37) % s.max_pos;
      port::DeviceBuffer d_o(plan.out_bytes * 2), d_pos = port::DeviceBuffer::from_host<long long>(pos),
          d_cs(static_cast<std::size_t>(s.max_pos * 64) * 4), q(plan.out_bytes),
          sc(std::max<std::size_t>(4, plan.scale_bytes));
      d_o.memset(0x3f);
      d_cs.memset(0x3e);
      port::Stream st;
      const ir::InvRopeBuffers io{d_o.data(), d_pos.data(), static_cast<const float*>(d_cs.data()), q.data(),
                                  sc.data()};
      const double ms = dsv4::bench::median_ms([&] { ir::launch_inv_rope_fp8_quant(plan, io, st); }, st,
                                               sim ? 3 : 21, sim ? 1 : 20);
      const double bytes = 3.0 * static_cast<double>(plan.out_bytes) + static_cast<double>(plan.scale_bytes) +
                           8.0 * sh.t + 256.0 * sh.t;
      const double floor_ms = bytes / (kCopyGBs * 1e6);
      std::printf("%-11s %6ld %4ld %-12s %12.5f %12.5f %8.3f %10.1f\n", sh.name, sh.t, sh.h,
                  layout == ir::ScaleLayout::mn_major ? "mn_major" : "packed_ue8m0", floor_ms, ms, floor_ms / ms,
                  bytes / (ms * 1e6));
    }
  return 0;
}
