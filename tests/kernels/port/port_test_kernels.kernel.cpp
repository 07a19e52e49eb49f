// Backend-neutral test kernels of the portability layer: the same file runs on sim (g++), cuda (nvcc) and hip.
#include "tests/kernels/port/port_test_kernels.hpp"

#include "kernels/port/hip_port.hpp"

namespace dsv4::test::portk {
using namespace dsv4::port;

__global__ void axpy_kernel(float a, const float* x, float* y, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) y[i] = a * x[i] + y[i];
}
void axpy(float a, const float* x, float* y, int n, Stream& s) {
  const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(n);
  launch(axpy_kernel,
         LaunchConfig{Dim3((n + 255) / 256), Dim3(256), 0, &s, "axpy", {reads(x, bytes, "x"), reads_writes(y, bytes, "y")}},
         a, x, y, n);
}

__global__ void block_sum_kernel(const float* x, float* out, float* total) {
  DSV4_LDS(float, wave_sums, 32);
  const int t = static_cast<int>(threadIdx.x);
  const int lane = t % warpSize, wave = t / warpSize, waves = static_cast<int>(blockDim.x) / warpSize;
  float v = x[blockIdx.x * blockDim.x + t];
  for (int m = warpSize / 2; m >= 1; m /= 2) v += __shfl_xor(v, m);
  if (lane == 0) wave_sums[wave] = v;
  __syncthreads();
  if (t == 0) {
    float s = 0.0f;
    for (int w = 0; w < waves; ++w) s += wave_sums[w];
    out[blockIdx.x] = s;
    atomicAdd(total, s);
  }
}
void block_sum(const float* x, float* out, float* total, int blocks, int threads, Stream& s) {
  launch(block_sum_kernel,
         LaunchConfig{Dim3(blocks), Dim3(threads), 0, &s, "block_sum",
                      {reads(x, sizeof(float) * std::size_t(blocks) * threads, "x"),
                       writes(out, sizeof(float) * std::size_t(blocks), "out"), reads_writes(total, sizeof(float), "total")}},
         x, out, total);
}

__global__ void reverse_kernel(const float* x, float* y, int n) {
  DSV4_LDS_DYNAMIC(float, slots);
  const int t = static_cast<int>(threadIdx.x);
  slots[t] = x[t];
  __syncthreads();
  y[t] = slots[n - 1 - t];
}
void reverse_in_lds(const float* x, float* y, int n, Stream& s) {
  const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(n);
  launch(reverse_kernel, LaunchConfig{Dim3(1), Dim3(n), bytes, &s, "reverse_in_lds", {reads(x, bytes), writes(y, bytes)}},
         x, y, n);
}

__global__ void wave_facts_kernel(int* lanes, int* ballot_count) {
  const int lane = static_cast<int>(threadIdx.x) % warpSize;
  const unsigned long long b = __ballot(lane % 2 == 1);
  if (threadIdx.x == 0) {
    *lanes = warpSize;
    int c = 0;
    for (int i = 0; i < 64; ++i) c += static_cast<int>((b >> i) & 1ull);
    *ballot_count = c;
  }
}
void wave_facts(int* lanes, int* ballot_count, Stream& s) {
  launch(wave_facts_kernel, LaunchConfig{Dim3(1), Dim3(64), 0, &s, "wave_facts", {writes(lanes, 4), writes(ballot_count, 4)}},
         lanes, ballot_count);
}

}  // namespace dsv4::test::portk
