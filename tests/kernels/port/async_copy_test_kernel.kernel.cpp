// Test kernels for kernels/port/async_copy.hpp: the same file runs on sim (deferred copies) and cuda (cp.async).
#include "tests/kernels/port/async_copy_test_kernel.hpp"

#include "kernels/port/hip_port.hpp"
#include "kernels/port/async_copy.hpp"

namespace dsv4::test::asyncc {
using namespace dsv4::port;

namespace {
constexpr int kThreads = 256;
constexpr int kWordsPerSlot = 4;  // 16 bytes
}  // namespace

__global__ void staged_reverse_kernel(const std::uint32_t* src, const int* valid, std::uint32_t* dst, int groups) {
  DSV4_LDS_DYNAMIC(std::uint32_t, slots);
  const int t = static_cast<int>(threadIdx.x);
  for (int g = 0; g < groups; ++g) {
    const int i = g * kThreads + t;
    async_copy16(slots, static_cast<std::ptrdiff_t>(i) * kWordsPerSlot, src + static_cast<std::ptrdiff_t>(i) * kWordsPerSlot,
                 valid[i] != 0);
    async_commit();
  }
  async_wait<0>();
  __syncthreads();
  const int n = groups * kThreads;
  for (int g = 0; g < groups; ++g) {
    const int i = g * kThreads + t;
    const uint4 v = lds_load_as<uint4>(slots, static_cast<std::ptrdiff_t>(n - 1 - i) * kWordsPerSlot);
    dst[i * kWordsPerSlot + 0] = v.x;
    dst[i * kWordsPerSlot + 1] = v.y;
    dst[i * kWordsPerSlot + 2] = v.z;
    dst[i * kWordsPerSlot + 3] = v.w;
  }
}
void staged_reverse(const std::uint32_t* src, const int* valid, std::uint32_t* dst, int groups, Stream& s) {
  const std::size_t n = static_cast<std::size_t>(groups) * kThreads;
  launch(staged_reverse_kernel,
         LaunchConfig{Dim3(1), Dim3(kThreads), n * 16, &s, "async_staged_reverse",
                      {reads(src, n * 16, "src"), reads(valid, n * sizeof(int), "valid"), writes(dst, n * 16, "dst")}},
         src, valid, dst, groups);
}

__global__ void wait_counts_kernel(const std::uint32_t* src, std::uint32_t* seen, std::uint32_t marker) {
  DSV4_LDS_DYNAMIC(std::uint32_t, slots);
  const int t = static_cast<int>(threadIdx.x);
  for (int g = 0; g < 4; ++g)
    lds_store_as<uint4>(slots, static_cast<std::ptrdiff_t>(g * kThreads + t) * kWordsPerSlot,
                        make_uint4(marker, marker, marker, marker));
  __syncthreads();
  for (int g = 0; g < 4; ++g) {
    const int i = g * kThreads + t;
    async_copy16(slots, static_cast<std::ptrdiff_t>(i) * kWordsPerSlot, src + static_cast<std::ptrdiff_t>(i) * kWordsPerSlot,
                 true);
    async_commit();
  }
  async_wait<2>();
  for (int g = 0; g < 2; ++g)  // landed: groups 0 and 1 (this thread's own copies, no barrier needed)
    seen[t * 8 + g] = slots[static_cast<std::ptrdiff_t>(g * kThreads + t) * kWordsPerSlot];
#if defined(DSV4_BACKEND_SIM)
  for (int g = 2; g < 4; ++g)  // still in flight: only the simulator makes this read well defined (stale marker)
    seen[t * 8 + g] = slots[static_cast<std::ptrdiff_t>(g * kThreads + t) * kWordsPerSlot];
#else
  for (int g = 2; g < 4; ++g) seen[t * 8 + g] = marker;
#endif
  async_wait<0>();
  for (int g = 0; g < 4; ++g)
    seen[t * 8 + 4 + g] = slots[static_cast<std::ptrdiff_t>(g * kThreads + t) * kWordsPerSlot];
}
void wait_counts(const std::uint32_t* src, std::uint32_t* seen, std::uint32_t marker, Stream& s) {
  launch(wait_counts_kernel,
         LaunchConfig{Dim3(1), Dim3(kThreads), 4 * kThreads * 16, &s, "async_wait_counts",
                      {reads(src, 4 * kThreads * 16, "src"), writes(seen, kThreads * 8 * 4, "seen")}},
         src, seen, marker);
}

__global__ void neighbour_kernel(const std::uint32_t* src, std::uint32_t* dst) {
  DSV4_LDS_DYNAMIC(std::uint32_t, slots);
  const int t = static_cast<int>(threadIdx.x);
  async_copy16(slots, static_cast<std::ptrdiff_t>(t) * kWordsPerSlot, src + static_cast<std::ptrdiff_t>(t) * kWordsPerSlot, true);
  async_commit();
  async_wait<0>();
  dst[t] = slots[static_cast<std::ptrdiff_t>((t + 1) % kThreads) * kWordsPerSlot];  // the planted missing barrier
}
void read_neighbour_without_barrier(const std::uint32_t* src, std::uint32_t* dst, Stream& s) {
  launch(neighbour_kernel,
         LaunchConfig{Dim3(1), Dim3(kThreads), kThreads * 16, &s, "async_read_neighbour_without_barrier",
                      {reads(src, kThreads * 16, "src"), writes(dst, kThreads * 4, "dst")}},
         src, dst);
}

__global__ void past_end_kernel(const std::uint32_t* src) {
  DSV4_LDS_DYNAMIC(std::uint32_t, slots);
  if (threadIdx.x == 0) async_copy16(slots, 1024, src, true);  // 4 KiB allocation = 1024 words: one past the end
  async_commit();
  async_wait<0>();
}
void copy_past_lds_end(const std::uint32_t* src, Stream& s) {
  launch(past_end_kernel,
         LaunchConfig{Dim3(1), Dim3(kThreads), 4096, &s, "async_copy_past_lds_end", {reads(src, 16, "src")}}, src);
}
}  // namespace dsv4::test::asyncc
