// Test kernel of kernels/nvidia/port/named_barrier.hpp: two groups of warps exchanging words through LDS, each ordered by
// its own named barrier only.
#include "kernels/port/hip_port.hpp"
#include "kernels/nvidia/port/named_barrier.hpp"
#include "tests/kernels/nvidia/port/named_barrier_test_kernel.hpp"

namespace dsv4::test::namedk {

#if !defined(DSV4_BACKEND_HIP)
namespace {

__global__ void named_barrier_kernel(const int* in, int* out, int rounds, int misuse) {
  DSV4_LDS(int, words, 128);
  const int tid = static_cast<int>(threadIdx.x);
  const int g = tid / 64, t = tid % 64;
  const int id = (g == 1 && misuse == static_cast<int>(Misuse::reserved_id)) ? 0 : 1 + g;
  const int count = (g == 1 && t >= 32 && misuse == static_cast<int>(Misuse::count_mismatch)) ? 96 : 64;
  for (int round = 0; round < rounds; ++round) {
    words[g * 64 + t] = in[g * 64 + t] + round;
    if (!(g == 0 && misuse == static_cast<int>(Misuse::missing_sync))) port::named_barrier_sync(id, count);
    out[(round * 2 + g) * 64 + t] = words[g * 64 + (t + 1) % 64];
    port::named_barrier_sync(id, count);  // every read is done before the next round's writes
  }
}

}  // namespace
#endif

void exchange(const int* in, int* out, int rounds, port::Stream& s, Misuse misuse) {
#if defined(DSV4_BACKEND_HIP)
  (void)in, (void)out, (void)rounds, (void)s, (void)misuse;
  throw port::Error("namedk::exchange: named barriers exist on cuda (sm_90) and sim only");
#else
  port::LaunchConfig cfg{port::Dim3(1), port::Dim3(128), 0, &s, "named_barrier_test",
                         {port::reads(in, 128 * sizeof(int), "in"),
                          port::writes(out, static_cast<std::size_t>(rounds) * 128 * sizeof(int), "out")}};
  port::launch(&named_barrier_kernel, cfg, in, out, rounds, static_cast<int>(misuse));
#endif
}

}  // namespace dsv4::test::namedk
