// The watchdog on plain HIP: a kernel whose last thread waits for a count no block reaches (every thread of the one
// block checks in, the waiter expects one more) while the other threads wait at the __syncthreads after it. Run
// with DSV4_SIM_TIMEOUT=2 it must be stopped and reported (kernel, block, where each wave is) instead of hanging; a
// one-past-the-end read in an earlier launch must stay in the same report, and a launch after the stopped one must
// still run and give its result. Mode lds: wave 0 spins on an LDS flag that wave 1, waiting at a __syncthreads,
// never sets (the lanes of wave 0 take turns at every LDS access, so the block never stops running).
// Usage: spin global|lds [SEED]. Prints the HIP status of the synchronisation and "later launch: ok" when the third launch's
// values are right.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

constexpr int kThreads = 128;

__global__ void read_past_end(const int* in, int* out, int n) {
  const int i = threadIdx.x;
  if (i <= n) out[i] = in[i];  // thread n reads one element past the end of in
}

__global__ void wait_for_all(int* arrived, int* out) {
  atomicAdd(arrived, 1);
  if (threadIdx.x == kThreads - 1)
    while (atomicAdd(arrived, 0) < kThreads + 1) {  // one more than there are threads: never true
    }
  __syncthreads();
  out[threadIdx.x] = threadIdx.x;
}

__global__ void wait_for_flag(int* out) {
  __shared__ int flag;
  if (threadIdx.x == 0) flag = 0;
  __syncthreads();
  if (threadIdx.x < 64)
    while (*static_cast<volatile int*>(&flag) == 0) {  // set by no one
    }
  __syncthreads();
  out[threadIdx.x] = flag;
}

__global__ void add_one(const int* in, int* out) { out[threadIdx.x] = in[threadIdx.x] + 1; }

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "global" && mode != "lds") {
    std::fprintf(stderr, "usage: %s global|lds [SEED]\n", argv[0]);
    return 2;
  }
  const unsigned long long seed = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : 1;
  std::printf("spin mode=%s seed=%llu\n", mode.c_str(), seed);
  std::mt19937_64 rng(seed);
  std::vector<int> host(kThreads);
  for (int& v : host) v = int(rng() % 1000) + 1;
  int *in, *out, *arrived, *later;
  hipMalloc(&in, sizeof(int) * kThreads);
  hipMalloc(&out, sizeof(int) * (kThreads + 1));
  hipMalloc(&later, sizeof(int) * kThreads);
  hipMalloc(&arrived, sizeof(int));
  hipMemcpy(in, host.data(), sizeof(int) * kThreads, hipMemcpyHostToDevice);
  hipMemset(arrived, 0, sizeof(int));
  read_past_end<<<1, kThreads + 1>>>(in, out, kThreads);
  if (mode == "global") wait_for_all<<<1, kThreads>>>(arrived, out);
  else wait_for_flag<<<1, kThreads>>>(out);
  const hipError_t e = hipDeviceSynchronize();
  std::printf("hipDeviceSynchronize: %s\n", hipGetErrorName(e));
  add_one<<<1, kThreads>>>(in, later);
  std::vector<int> got(kThreads);
  hipMemcpy(got.data(), later, sizeof(int) * kThreads, hipMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < kThreads; ++i) bad += got[std::size_t(i)] != host[std::size_t(i)] + 1;
  std::printf(bad ? "later launch: %d wrong\n" : "later launch: ok\n", bad);
  return 0;
}
