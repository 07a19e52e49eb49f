// hipEventElapsedTime on the sim: host wall time between two events' records completing. Three events around two
// launches, the second doing several times the first's work: both intervals are > 0, the whole is longer than each
// part, and swapped events give the negative of the interval. Before any synchronisation the time of a record not
// yet run is hipErrorNotReady; an event never recorded is an error. The launches' results are checked too.
// Usage: event_time [SEED]. Exit 0: all hold; 1: one does not (named).
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

constexpr int kThreads = 64;

__global__ void repeat_add(const float* in, float* out, int rounds) {
  float v = 0.0f;
  for (int r = 0; r < rounds; ++r) v += in[(threadIdx.x + r) % kThreads];
  out[threadIdx.x] = v;
}

int main(int argc, char** argv) {
  const unsigned long long seed = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : 1;
  std::printf("event_time seed=%llu\n", seed);
  std::mt19937_64 rng(seed);
  std::vector<float> host(kThreads);
  for (float& v : host) v = float(rng() % 64 + 1);  // small integers: every sum below is exact in float
  float *in, *out;
  hipMalloc(&in, sizeof(float) * kThreads);
  hipMalloc(&out, sizeof(float) * 2 * kThreads);
  hipMemcpy(in, host.data(), sizeof(float) * kThreads, hipMemcpyHostToDevice);
  hipStream_t s;
  hipStreamCreate(&s);
  hipEvent_t e[3], never;
  for (hipEvent_t& x : e) hipEventCreate(&x);
  hipEventCreate(&never);
  const int rounds[2] = {kThreads * 4, kThreads * 64};
  hipEventRecord(e[0], s);
  repeat_add<<<1, kThreads, 0, s>>>(in, out, rounds[0]);
  hipEventRecord(e[1], s);
  repeat_add<<<1, kThreads, 0, s>>>(in, out + kThreads, rounds[1]);
  hipEventRecord(e[2], s);
  int bad = 0;
  auto expect = [&bad](bool ok, const char* what) {
    if (!ok) ++bad;
    std::printf("%s: %s\n", ok ? "ok" : "FAIL", what);
  };
  float t = -1;
  expect(hipEventElapsedTime(&t, e[0], e[2]) == hipErrorNotReady, "not yet run: hipErrorNotReady");
  expect(hipEventElapsedTime(&t, never, e[0]) == hipErrorInvalidResourceHandle, "never recorded: an error");
  hipEventSynchronize(e[2]);
  float t01 = 0, t12 = 0, t02 = 0, t10 = 0;
  expect(hipEventElapsedTime(&t01, e[0], e[1]) == hipSuccess, "elapsed(e0, e1) succeeds");
  expect(hipEventElapsedTime(&t12, e[1], e[2]) == hipSuccess, "elapsed(e1, e2) succeeds");
  expect(hipEventElapsedTime(&t02, e[0], e[2]) == hipSuccess, "elapsed(e0, e2) succeeds");
  expect(hipEventElapsedTime(&t10, e[1], e[0]) == hipSuccess, "elapsed(e1, e0) succeeds");
  std::printf("elapsed ms: e0-e1 %.4f, e1-e2 %.4f, e0-e2 %.4f, e1-e0 %.4f\n", t01, t12, t02, t10);
  expect(t01 > 0 && t12 > 0, "both intervals > 0");
  expect(t02 > t01 && t02 > t12, "the whole longer than each part");
  expect(t10 == -t01, "swapped events: the negative");
  std::vector<float> got(2 * kThreads);
  hipMemcpy(got.data(), out, sizeof(float) * got.size(), hipMemcpyDeviceToHost);
  int wrong = 0;
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < kThreads; ++i) {
      float want = 0;
      for (int r = 0; r < rounds[k]; ++r) want += host[std::size_t((i + r) % kThreads)];
      wrong += got[std::size_t(k * kThreads + i)] != want;
    }
  expect(wrong == 0, "the launches' sums");
  std::printf(bad ? "FAIL (seed %llu)\n" : "PASS\n", seed);
  return bad ? 1 : 0;
}
