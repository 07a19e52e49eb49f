// Benchmark of the per-block (128x128) FP8 weight quantization kernel: per shape the bytes-moved floor at the
// H200's measured copy bandwidth (4214 GB/s: w read as bf16, codes and scales written), the measured median per
// launch and the ratio floor / measured. Shapes are V4-Flash / V4-Pro sized weight matrices (ops.md §0: hidden
// 4096 / 7168, q_lora 1024 / 1536, 64 heads x 512; the Pro column is partly inferred). On sim it runs one tiny
// shape and reports simulator CPU time (not a device number).
#include <cstdio>
#include <vector>

#include "bench/kernels/bench_kernel_timing.hpp"
#include "kernels/per_block_quant_fp8/per_block_quant_fp8.hpp"

namespace bq = dsv4::kernels::block_quant;
namespace port = dsv4::port;

namespace {
struct Shape {
  const char* name;
  long n, k;
};
}  // namespace

int main() {
  const bool sim = port::backend() == port::Backend::sim;
  constexpr double kCopyGBs = 4214.0;
  const std::vector<Shape> shapes =
      sim ? std::vector<Shape>{{"sim-tiny", 256, 384}}
          : std::vector<Shape>{{"flash wq_a", 1024, 4096},   {"flash wq_b", 32768, 1024}, {"flash wo", 4096, 8192},
                               {"pro wq_a", 1536, 7168},     {"pro square", 7168, 7168},  {"pro ffn", 18432, 7168}};
  std::printf("backend %s, device %s%s\n", std::string(port::backend_name()).c_str(),
              std::string(port::device_profile().name).c_str(), sim ? " (sim: CPU time of the simulator)" : "");
  std::printf("%-12s %6s %6s %-12s %12s %12s %8s %10s\n", "shape", "N", "K", "layout", "floor_ms", "median_ms",
              "ratio", "GB/s");
  for (const Shape& sh : shapes)
    for (auto [recipe, layout] : {std::pair{"dsv4-act", bq::ScaleLayout::row_major},
                                  std::pair{"dg-ceil", bq::ScaleLayout::packed_ue8m0}}) {
      bq::BlockQuantShape s;
      s.n = sh.n;
      s.k = sh.k;
      bq::BlockQuantOptions o;
      o.recipe = recipe;
      o.layout = layout;
      const bq::BlockQuantPlan plan = bq::make_block_quant_plan(s, port::device_profile(), o);
      if (!plan.ok) {
        std::printf("refused: %s\n", plan.reason.c_str());
        continue;
      }
      const auto nk = static_cast<std::size_t>(sh.n * sh.k);
      port::DeviceBuffer w(nk * 2), q(nk), sc(std::max<std::size_t>(4, plan.scale_bytes));
      w.memset(0x3f);
      port::Stream st;
      const bq::BlockQuantBuffers io{w.data(), q.data(), sc.data()};
      const double ms = dsv4::bench::median_ms([&] { bq::launch_per_block_quant_fp8(plan, io, st); }, st,
                                               sim ? 3 : 21, sim ? 1 : 20);
      const double bytes = 3.0 * static_cast<double>(nk) + static_cast<double>(plan.scale_bytes);
      const double floor_ms = bytes / (kCopyGBs * 1e6);
      std::printf("%-12s %6ld %6ld %-12s %12.5f %12.5f %8.3f %10.1f\n", sh.name, sh.n, sh.k,
                  layout == bq::ScaleLayout::row_major ? "row_major" : "packed_ue8m0", floor_ms, ms, floor_ms / ms,
                  bytes / (ms * 1e6));
    }
  return 0;
}
