// Test kernel of kernels/nvidia/port/tma.hpp's barriers as a producer/consumer ring (the warp-specialized pipeline's
// protocol): "full" and "empty" transaction barriers per slot, no block barrier in the loop.
#include "kernels/port/hip_port.hpp"
#include "kernels/nvidia/port/tma.hpp"
#include "tests/kernels/nvidia/port/ring_test_kernel.hpp"

namespace dsv4::test::ringk {

#if !defined(DSV4_BACKEND_HIP)
namespace {

__global__ void ring_kernel(const std::uint32_t* in, std::uint32_t* out, int steps, int slots, int consumers,
                            int misuse) {
  DSV4_LDS_DYNAMIC(std::uint32_t, smem);
  const int tid = static_cast<int>(threadIdx.x);
  auto ring = port::lds_carve<std::uint32_t>(smem, 0, static_cast<std::size_t>(slots) * kRingWords, "ring_slots");
  auto full = port::lds_carve<std::uint64_t>(smem, static_cast<std::size_t>(slots) * kRingWords * 4, slots, "ring_full");
  auto empty = port::lds_carve<std::uint64_t>(smem, static_cast<std::size_t>(slots) * kRingWords * 4 + slots * 8,
                                              slots, "ring_empty");
  if (tid == 0) {
    for (int s = 0; s < slots; ++s) {
      port::mbarrier_init(full, s, 1);
      port::mbarrier_init(empty, s, consumers);
    }
    port::mbarrier_init_fence();
  }
  __syncthreads();
  if (tid == 0) {  // the producer
    for (int i = 0; i < steps; ++i) {
      const int slot = i % slots;
      if (i >= slots) port::mbarrier_wait(empty, slot, (i / slots - 1) & 1);  // every consumer is done with it
      for (int w = 0; w < kRingWords; ++w) ring[slot * kRingWords + w] = in[static_cast<std::size_t>(i) * kRingWords + w];
      port::mbarrier_arrive(full, slot);
    }
  } else if (tid >= 32 && tid < 32 + consumers) {
    const int c = tid - 32;
    for (int i = 0; i < steps; ++i) {
      const int slot = i % slots;
      std::uint32_t sum = 0;
      auto read = [&] {
        for (int j = 0; j < kRingReads; ++j) sum += ring[slot * kRingWords + (c + 32 * j) % kRingWords];
      };
      if (misuse == static_cast<int>(Misuse::read_before_full_wait)) read();
      port::mbarrier_wait(full, slot, (i / slots) & 1);
      if (misuse == static_cast<int>(Misuse::release_before_read)) port::mbarrier_arrive(empty, slot);
      if (misuse == static_cast<int>(Misuse::none)) read();
      if (misuse == static_cast<int>(Misuse::release_before_read)) read();
      else port::mbarrier_arrive(empty, slot);
      out[static_cast<std::size_t>(i) * consumers + c] = sum;
    }
  }
  __syncthreads();  // every wait has returned: the barriers can go
  if (tid == 0)
    for (int s = 0; s < slots; ++s) {
      port::mbarrier_inval(full, s);
      port::mbarrier_inval(empty, s);
    }
}

}  // namespace
#endif

void run_ring(const std::uint32_t* in, std::uint32_t* out, int steps, int slots, int consumers, port::Stream& s,
              Misuse misuse) {
#if defined(DSV4_BACKEND_HIP)
  (void)in, (void)out, (void)steps, (void)slots, (void)consumers, (void)s, (void)misuse;
  throw port::Error("run_ring: transaction barriers exist on cuda (sm_90) and sim only");
#else
  const std::size_t lds = static_cast<std::size_t>(slots) * (kRingWords * 4 + 16);
  const std::size_t out_bytes = static_cast<std::size_t>(steps) * consumers * 4;
  port::LaunchConfig cfg{port::Dim3(1), port::Dim3(32 + ((consumers + 31) / 32) * 32), lds, &s, "mbarrier_ring_test",
                         {port::reads(in, static_cast<std::size_t>(steps) * kRingWords * 4, "in"),
                          port::writes(out, out_bytes, "out")}};
  port::launch(&ring_kernel, cfg, in, out, steps, slots, consumers, static_cast<int>(misuse));
#endif
}

}  // namespace dsv4::test::ringk
