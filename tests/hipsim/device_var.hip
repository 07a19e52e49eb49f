// A file-scope __device__ table on the sim: one launch fills it from a hipMalloc'd input, a second copies it out on
// the same stream (ordered: no race). The values must come back unchanged. BUG_PAST_TABLE: the copy kernel runs one
// thread more than the table has entries, so its last thread reads one element past the variable: a
// global_out_of_range naming the variable.
// Usage: device_var [SEED]. Exit 0: values right, no HIP error; 1: a wrong value; 3: a HIP error (a finding).
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

constexpr int kEntries = 64;
__device__ int g_table[kEntries];

__global__ void fill_table(const int* in) { g_table[threadIdx.x] = in[threadIdx.x]; }
__global__ void copy_table(int* out) { out[threadIdx.x] = g_table[threadIdx.x]; }

int main(int argc, char** argv) {
  const unsigned long long seed = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : 1;
  std::printf("device_var seed=%llu\n", seed);
  std::mt19937_64 rng(seed);
  std::vector<int> host(kEntries);
  for (int& v : host) v = int(rng() % 100000) + 1;
  int *in, *out;
  hipMalloc(&in, sizeof(int) * kEntries);
  hipMalloc(&out, sizeof(int) * (kEntries + 1));
  hipMemcpy(in, host.data(), sizeof(int) * kEntries, hipMemcpyHostToDevice);
  fill_table<<<1, kEntries>>>(in);
#ifdef BUG_PAST_TABLE
  copy_table<<<1, kEntries + 1>>>(out);
#else
  copy_table<<<1, kEntries>>>(out);
#endif
  if (hipDeviceSynchronize() != hipSuccess) return 3;
  std::vector<int> got(kEntries);
  hipMemcpy(got.data(), out, sizeof(int) * kEntries, hipMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < kEntries; ++i) bad += got[std::size_t(i)] != host[std::size_t(i)];
  std::printf(bad ? "FAIL: %d wrong (seed %llu)\n" : "PASS\n", bad, seed);
  return bad ? 1 : 0;
}
