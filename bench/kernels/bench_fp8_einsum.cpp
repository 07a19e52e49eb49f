// Benchmark of the fp8_einsum 'bhr,hdr->bhd' kernel (block-scaled GEMM batched over heads) on the DeepSeek-V4-Flash
// wo_a shape (H = 8, R = 4096, D = 1024; ops.md §8) over token counts B: per shape the floor max(bytes at 4214 GB/s,
// flops at 1580 TFLOP/s fp8 dense), the measured median and floor/measured. On sim one tiny shape with simulator
// CPU time (not a device number).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/kernels/bench_kernel_timing.hpp"
#include "kernels/fp8_einsum/einsum_launch.hpp"

namespace ei = dsv4::kernels::einsum;
namespace bg = dsv4::kernels::bsgemm;
namespace port = dsv4::port;

int main() {
  const bool sim = port::backend() == port::Backend::sim;
  struct S { long b, h, r, d; };
  const std::vector<S> shapes = sim ? std::vector<S>{{8, 2, 256, 64}}
                                    : std::vector<S>{{1, 8, 4096, 1024},    {64, 8, 4096, 1024},
                                                     {512, 8, 4096, 1024},  {4096, 8, 4096, 1024},
                                                     {16384, 8, 4096, 1024}};
  const port::ArchProfile& arch = port::device_profile();
  std::printf("backend %s, device %s%s\n", std::string(port::backend_name()).c_str(), std::string(arch.name).c_str(),
              sim ? " (sim: CPU time of the simulator)" : "");
  std::printf("%6s %3s %5s %5s %10s %12s %12s %8s\n", "B", "H", "R", "D", "floor_ms", "median_ms", "TFLOP/s", "ratio");
  for (const S& s : shapes) {
    ei::EinsumShape sh;
    sh.b = s.b;
    sh.h = s.h;
    sh.r = s.r;
    sh.d = s.d;
    sh.fp8 = arch.fp8 == port::Fp8Flavor::fnuz ? bg::Fp8::e4m3fnuz : bg::Fp8::e4m3fn;
    const ei::EinsumPlan plan = ei::make_einsum_plan(sh, arch);
    if (!plan.ok) {
      std::printf("refused: %s\n", plan.reason.c_str());
      continue;
    }
    const long G = (s.r + 127) / 128, DB = (s.d + 127) / 128;
    port::DeviceBuffer x(static_cast<std::size_t>(s.b * s.h * s.r)), w(static_cast<std::size_t>(s.h * s.d * s.r)),
        xs(static_cast<std::size_t>(s.b * s.h * G) * 4), ws(static_cast<std::size_t>(s.h * DB * G) * 4),
        d(static_cast<std::size_t>(s.b * s.h * s.d) * 2);
    x.memset(0x38);
    w.memset(0x30);
    xs.memset(0x3c);
    ws.memset(0x3c);
    const ei::EinsumBuffers io{x.data(), xs.data(), w.data(), ws.data(), nullptr, d.data()};
    port::Stream st;
    const double ms = dsv4::bench::median_ms([&] { ei::launch_fp8_einsum(plan, io, st); }, st, sim ? 3 : 11, sim ? 1 : 5);
    const double bytes = double(s.b) * s.h * s.r + double(s.h) * s.d * s.r + 4.0 * (s.b + DB) * s.h * G +
                         2.0 * s.b * s.h * s.d;
    const double flops = 2.0 * s.b * s.h * s.d * s.r;
    const double floor_ms = std::max(bytes / 4214e9, flops / 1580e12) * 1e3;
    std::printf("%6ld %3ld %5ld %5ld %10.4f %12.4f %12.2f %8.4f\n", s.b, s.h, s.r, s.d, floor_ms, ms,
                flops / (ms * 1e9), floor_ms / ms);
  }
  return 0;
}
