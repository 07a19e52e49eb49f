// Benchmark of the block-scaled fp8 GEMM kernel (fp8_gemm_blockscaled: 1x128 activation and 128x128 weight fp32
// scales, bf16 out) on DeepSeek-V4-like shapes: per shape the floor max(bytes at 4214 GB/s, flops at 1580 TFLOP/s
// fp8 dense), the measured median and floor/measured. The kernel is a portable fp32-FMA tiling (no MMA), so the
// ratio is expected to be far below 1. On sim one tiny shape with simulator CPU time (not a device number).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/kernels/bench_kernel_timing.hpp"
#include "kernels/fp8_gemm_blockscaled/bs_gemm.hpp"

namespace bg = dsv4::kernels::bsgemm;
namespace port = dsv4::port;

int main() {
  const bool sim = port::backend() == port::Backend::sim;
  struct S { long m, n, k; };
  const std::vector<S> shapes = sim ? std::vector<S>{{16, 128, 256}}
                                    : std::vector<S>{{64, 4096, 7168},  {512, 4096, 7168}, {4096, 4096, 7168},
                                                     {64, 7168, 4096},  {4096, 7168, 4096}, {128, 1536, 7168},
                                                     {4096, 24576, 1536}};
  const port::ArchProfile& arch = port::device_profile();
  std::printf("backend %s, device %s%s\n", std::string(port::backend_name()).c_str(), std::string(arch.name).c_str(),
              sim ? " (sim: CPU time of the simulator)" : "");
  std::printf("%6s %6s %6s %10s %12s %12s %8s  %s\n", "M", "N", "K", "floor_ms", "median_ms", "TFLOP/s", "ratio", "plan");
  for (const S& s : shapes) {
    bg::BsGemmShape sh;
    sh.m = s.m;
    sh.n = s.n;
    sh.k = s.k;
    sh.fp8 = arch.fp8 == port::Fp8Flavor::fnuz ? bg::Fp8::e4m3fnuz : bg::Fp8::e4m3fn;
    const bg::BsGemmPlan plan = bg::make_plan(sh, arch);
    if (!plan.ok) {
      std::printf("refused: %s\n", plan.reason.c_str());
      continue;
    }
    const long G = (s.k + 127) / 128, NB = (s.n + 127) / 128;
    port::DeviceBuffer x(static_cast<std::size_t>(s.m * s.k)), w(static_cast<std::size_t>(s.n * s.k)),
        xs(static_cast<std::size_t>(s.m * G) * 4), ws(static_cast<std::size_t>(NB * G) * 4),
        d(static_cast<std::size_t>(s.m * s.n) * 2);
    x.memset(0x38);  // 1.0 (e4m3fn) / 0.5 (e4m3fnuz)
    w.memset(0x30);
    xs.memset(0x3c);  // 0.0117 fp32
    ws.memset(0x3c);
    bg::BsGemmBuffers io;
    io.x = {x.data(), 0, s.k};
    io.w = {w.data(), 0, s.k};
    io.x_sf = {xs.data(), 0, G, 1};
    io.w_sf = {ws.data(), 0, G, 1};
    io.d = {d.data(), 0, s.n, 1};
    port::Stream st;
    const double ms = dsv4::bench::median_ms([&] { bg::launch_fp8_gemm_blockscaled(plan, io, st); }, st,
                                             sim ? 3 : 11, sim ? 1 : 5);
    const double bytes = double(s.m) * s.k + double(s.n) * s.k + 4.0 * (s.m + NB) * G + 2.0 * s.m * s.n;
    const double flops = 2.0 * s.m * s.n * s.k;
    const double floor_ms = std::max(bytes / 4214e9, flops / 1580e12) * 1e3;
    std::printf("%6ld %6ld %6ld %10.4f %12.4f %12.2f %8.4f  tile %dx%d k_step %d\n", s.m, s.n, s.k, floor_ms, ms,
                flops / (ms * 1e9), floor_ms / ms, plan.bm, plan.bn, plan.k_step);
  }
  return 0;
}
