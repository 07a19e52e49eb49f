// bench_wgmma_rate: the warpgroup-MMA rate an H200 SM sustains from LDS operands at the skinny GEMM's MMA shapes
// (wgmma_rate/wgmma_rate.kernel.cpp), as TFLOP/s over all SMs and as a fraction of the dense bf16 peak
// (989 TFLOP/s on H100/H200 SXM). Cuda only. Usage: bench_wgmma_rate [iters]
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "bench/kernels/bench_kernel_timing.hpp"
#include "bench/kernels/nvidia/wgmma_rate/wgmma_rate.hpp"
#include "kernels/port/runtime.hpp"

int main(int argc, char** argv) {
  namespace port = dsv4::port;
  namespace wr = dsv4::bench::wgmma_rate;
  try {
    if (port::backend() != port::Backend::cuda) {
      std::fprintf(stderr, "bench_wgmma_rate: a cuda benchmark (this build's backend is not cuda)\n");
      return 2;
    }
    const int iters = argc > 1 ? std::atoi(argv[1]) : 4000;
    const int blocks = port::device_profile().compute_units;
    port::DeviceBuffer sink(static_cast<std::size_t>(blocks) * 4);
    port::Stream s;
    std::printf("SMs %d, %d steps per warpgroup; TFLOP/s over all SMs, %% of 989 dense bf16\n", blocks, iters);
    std::printf("    N  WGs panels sync |   us    TFLOP/s   %%peak\n");
    for (int n : {32, 64, 128, 256})
      for (int wg : {1, 2, 3})
        for (int p : {1, 2, 4})
          for (bool sync : {true, false}) {
            const wr::Case c{n, wg, p, sync};
            const std::size_t lds = static_cast<std::size_t>(p) * wg * (64 + n) * 128 + 1024;
            if (lds > 227 * 1024) continue;
            const double ms = dsv4::bench::median_ms(
                [&] { wr::run(c, blocks, iters, static_cast<float*>(sink.data()), s); }, s, 5, 2);
            const double flops = 2.0 * 64 * n * 16 * 4 * p * wg * static_cast<double>(iters) * blocks;
            const double tf = flops / (ms * 1e-3) / 1e12;
            std::printf("  %3d  %3d  %5d  %3s | %7.1f  %8.1f  %5.1f\n", n, wg, p, sync ? "yes" : "no", ms * 1e3, tf,
                        100.0 * tf / 989.0);
          }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_wgmma_rate: %s\n", e.what());
    return 1;
  }
}
