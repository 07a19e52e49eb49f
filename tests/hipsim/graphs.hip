// Stream capture into graphs, in plain HIP: captured pipelines replayed with hipGraphLaunch on another stream and
// checked against a float64 host computation, the graph's internal order as the stream_race check sees it, and the
// HIP errors of calls a capture forbids.
// Usage: graphs MODE N [SEED]; MODE:
//   pipeline: H2D copy, y = a*x + b, z[i] = y[i]*y[i] + y[n-1-i], D2H copy captured on stream 1; instantiated and
//             launched 3 times on stream 2 with fresh inputs in the captured host buffer;
//   pipeline_after, pipeline_unordered: the same after a kernel on stream 3 that reads x and writes y, which
//             stream 2 waits for through an event (quiet) or not at all (a stream_race with the graph's nodes);
//   fork:     y = a*x + b, then a fork (event on stream 1, waited on stream 2): w = 2*y on stream 1, v = y + 1 on
//             stream 2, a join (event on stream 2, waited on stream 1), v += w on stream 1, D2H copy; 2 launches on
//             stream 3. BUG_UNJOINED_BRANCH: the join comes after v += w, so two branches write v unordered;
//   unjoined: the fork without any join: hipStreamEndCapture fails;
//   sync, memcpy: hipStreamSynchronize / hipMemcpy during a global-mode capture: refused, capture invalidated, the
//             graph never comes to be (instantiate and launch of it refused); relaxed_memcpy: hipMemcpy during a
//             relaxed-mode capture: allowed.
// Exit 0: values right, HIP results as expected; 1: a wrong value; 2: bad usage; 3: an unexpected HIP error.
#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

__global__ void affine(const float* x, float* y, float a, float b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}
__global__ void mirror_square(const float* y, float* z, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = y[i] * y[i] + y[n - 1 - i];
}
__global__ void branch_a(const float* y, float* w, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] = 2.0f * y[i];
}
__global__ void branch_b(const float* y, float* v, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = y[i] + 1.0f;
}
__global__ void combine(const float* w, float* v, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += w[i];
}

static int g_unexpected = 0;
#define CHECK(call)                                                                                 \
  do {                                                                                              \
    const hipError_t e_ = (call);                                                                   \
    if (e_ != hipSuccess) {                                                                         \
      std::printf("HIP error %s at line %d: %s\n", hipGetErrorName(e_), __LINE__, #call);           \
      ++g_unexpected;                                                                               \
    }                                                                                               \
  } while (0)
#define EXPECT(call, want)                                                                          \
  do {                                                                                              \
    const hipError_t e_ = (call);                                                                   \
    std::printf("%s -> %s\n", #call, hipGetErrorName(e_));                                          \
    if (e_ != (want)) {                                                                             \
      std::printf("expected %s\n", hipGetErrorName(want));                                          \
      ++g_unexpected;                                                                               \
    }                                                                                               \
  } while (0)

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);  // in order with hipsim's messages on stderr
  if (argc < 3) {
    std::fprintf(stderr, "usage: graphs pipeline|pipeline_after|pipeline_unordered|fork|unjoined|sync|memcpy|relaxed_memcpy N [SEED]\n");
    return 2;
  }
  const std::string mode = argv[1];
  const int n = std::atoi(argv[2]);
  const unsigned long long seed = argc > 3 ? std::strtoull(argv[3], nullptr, 0) : 1;
  if (n <= 0 || n > 1 << 16) return 2;
  std::printf("graphs mode=%s n=%d seed=%llu\n", mode.c_str(), n, seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  const float a = 1.5f, b = -0.25f;
  const dim3 block(64), grid((n + 63) / 64);
  const std::size_t bytes = std::size_t(n) * sizeof(float);

  std::vector<float> host_in(static_cast<std::size_t>(n)), host_out(static_cast<std::size_t>(n));
  float *x, *y, *z, *w, *v;
  CHECK(hipMalloc(&x, bytes));
  CHECK(hipMalloc(&y, bytes));
  CHECK(hipMalloc(&z, bytes));
  CHECK(hipMalloc(&w, bytes));
  CHECK(hipMalloc(&v, bytes));
  hipStream_t s1, s2, s3;
  CHECK(hipStreamCreate(&s1));
  CHECK(hipStreamCreate(&s2));
  CHECK(hipStreamCreate(&s3));
  hipEvent_t fork, join;
  CHECK(hipEventCreate(&fork));
  CHECK(hipEventCreate(&join));
  hipGraph_t graph = nullptr;
  hipGraphExec_t exec = nullptr;
  int bad = 0;

  if (mode == "pipeline" || mode == "pipeline_after" || mode == "pipeline_unordered") {
    CHECK(hipStreamBeginCapture(s1, hipStreamCaptureModeGlobal));
    hipStreamCaptureStatus st = hipStreamCaptureStatusNone;
    unsigned long long id = 0;
    CHECK(hipStreamGetCaptureInfo(s1, &st, &id));
    if (st != hipStreamCaptureStatusActive || id == 0) { std::printf("capture info: status %d id %llu\n", int(st), id); ++bad; }
    CHECK(hipStreamIsCapturing(s2, &st));
    if (st != hipStreamCaptureStatusNone) { std::printf("stream 2 reported capturing\n"); ++bad; }
    CHECK(hipMemcpyAsync(x, host_in.data(), bytes, hipMemcpyHostToDevice, s1));
    hipLaunchKernelGGL(affine, grid, block, 0, s1, x, y, a, b, n);
    mirror_square<<<grid, block, 0, s1>>>(y, z, n);
    CHECK(hipMemcpyAsync(host_out.data(), z, bytes, hipMemcpyDeviceToHost, s1));
    CHECK(hipStreamEndCapture(s1, &graph));
    CHECK(hipStreamIsCapturing(s1, &st));
    if (st != hipStreamCaptureStatusNone) { std::printf("stream 1 still capturing\n"); ++bad; }
    CHECK(hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
    if (mode != "pipeline") {
      CHECK(hipMemset(x, 0, bytes));
      affine<<<grid, block, 0, s3>>>(x, y, a, b, n);
      if (mode == "pipeline_after") {
        CHECK(hipEventRecord(fork, s3));
        CHECK(hipStreamWaitEvent(s2, fork, 0));
      }
    }
    for (int rep = 0; rep < 3; ++rep) {
      for (float& e : host_in) e = dist(rng);
      CHECK(hipGraphLaunch(exec, s2));
      CHECK(hipStreamSynchronize(s2));
      for (int i = 0; i < n; ++i) {
        const double yi = double(a) * host_in[std::size_t(i)] + b, ym = double(a) * host_in[std::size_t(n - 1 - i)] + b;
        const double want = yi * yi + ym;
        if (std::fabs(host_out[std::size_t(i)] - want) > 1e-5 * (1.0 + std::fabs(want))) {
          if (bad++ < 5) std::printf("launch %d z[%d] = %.7g, want %.7g\n", rep, i, host_out[std::size_t(i)], want);
        }
      }
    }
  } else if (mode == "fork" || mode == "unjoined") {
    CHECK(hipStreamBeginCapture(s1, hipStreamCaptureModeGlobal));
    CHECK(hipMemcpyAsync(x, host_in.data(), bytes, hipMemcpyHostToDevice, s1));
    affine<<<grid, block, 0, s1>>>(x, y, a, b, n);
    CHECK(hipEventRecord(fork, s1));
    CHECK(hipStreamWaitEvent(s2, fork, 0));
    hipStreamCaptureStatus st = hipStreamCaptureStatusNone;
    unsigned long long id1 = 0, id2 = 0;
    CHECK(hipStreamGetCaptureInfo(s1, &st, &id1));
    CHECK(hipStreamGetCaptureInfo(s2, &st, &id2));
    if (st != hipStreamCaptureStatusActive || id1 != id2) { std::printf("stream 2 did not join capture %llu\n", id1); ++bad; }
    branch_a<<<grid, block, 0, s1>>>(y, w, n);
    branch_b<<<grid, block, 0, s2>>>(y, v, n);
    if (mode == "unjoined") {
      EXPECT(hipStreamEndCapture(s1, &graph), hipErrorStreamCaptureUnjoined);
      if (graph) { std::printf("a graph came out of an unjoined capture\n"); ++bad; }
      EXPECT(hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0), hipErrorInvalidValue);
    } else {
#ifndef BUG_UNJOINED_BRANCH
      CHECK(hipEventRecord(join, s2));
      CHECK(hipStreamWaitEvent(s1, join, 0));
#endif
      combine<<<grid, block, 0, s1>>>(w, v, n);
#ifdef BUG_UNJOINED_BRANCH
      CHECK(hipEventRecord(join, s2));
      CHECK(hipStreamWaitEvent(s1, join, 0));
#endif
      CHECK(hipMemcpyAsync(host_out.data(), v, bytes, hipMemcpyDeviceToHost, s1));
      CHECK(hipStreamEndCapture(s1, &graph));
      CHECK(hipGraphInstantiate(&exec, graph, 0ull));
      CHECK(hipGraphDestroy(graph));  // the exec keeps its own copy
      graph = nullptr;
      for (int rep = 0; rep < 2; ++rep) {
        for (float& e : host_in) e = dist(rng);
        CHECK(hipGraphLaunch(exec, s3));
        CHECK(hipStreamSynchronize(s3));
        for (int i = 0; i < n; ++i) {
          const double yi = double(a) * host_in[std::size_t(i)] + b, want = (yi + 1.0) + 2.0 * yi;
          if (std::fabs(host_out[std::size_t(i)] - want) > 1e-5 * (1.0 + std::fabs(want))) {
            if (bad++ < 5) std::printf("launch %d v[%d] = %.7g, want %.7g\n", rep, i, host_out[std::size_t(i)], want);
          }
        }
      }
    }
  } else if (mode == "sync" || mode == "memcpy" || mode == "relaxed_memcpy") {
    const bool relaxed = mode == "relaxed_memcpy";
    CHECK(hipStreamBeginCapture(s1, relaxed ? hipStreamCaptureModeRelaxed : hipStreamCaptureModeGlobal));
    affine<<<grid, block, 0, s1>>>(x, y, a, b, n);
    if (mode == "sync") {
      EXPECT(hipStreamSynchronize(s1), hipErrorStreamCaptureUnsupported);
    } else {
      for (float& e : host_in) e = dist(rng);
      EXPECT(hipMemcpy(x, host_in.data(), bytes, hipMemcpyHostToDevice),
             relaxed ? hipSuccess : hipErrorStreamCaptureUnsupported);
    }
    hipStreamCaptureStatus st = hipStreamCaptureStatusNone;
    CHECK(hipStreamIsCapturing(s1, &st));
    std::printf("capture status after it: %s\n", st == hipStreamCaptureStatusActive ? "active"
                                                 : st == hipStreamCaptureStatusInvalidated ? "invalidated" : "none");
    if (relaxed) {
      CHECK(hipStreamEndCapture(s1, &graph));
      CHECK(hipGraphInstantiateWithFlags(&exec, graph, 0));
      CHECK(hipGraphLaunch(exec, s2));
      CHECK(hipMemcpy(host_out.data(), y, bytes, hipMemcpyDeviceToHost));
      for (int i = 0; i < n; ++i) {
        const double want = double(a) * host_in[std::size_t(i)] + b;
        if (std::fabs(host_out[std::size_t(i)] - want) > 1e-6 * (1.0 + std::fabs(want)) && bad++ < 5)
          std::printf("y[%d] = %.7g, want %.7g\n", i, host_out[std::size_t(i)], want);
      }
    } else {
      EXPECT(hipStreamEndCapture(s1, &graph), hipErrorStreamCaptureInvalidated);
      EXPECT(hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0), hipErrorInvalidValue);
      EXPECT(hipGraphLaunch(exec, s2), hipErrorInvalidValue);
    }
  } else {
    std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
    return 2;
  }
  if (exec) CHECK(hipGraphExecDestroy(exec));
  if (graph) CHECK(hipGraphDestroy(graph));
  CHECK(hipDeviceSynchronize());
  std::printf(bad ? "FAIL (seed %llu)\n" : g_unexpected ? "HIP errors (seed %llu)\n" : "PASS\n", seed);
  return bad ? 1 : g_unexpected ? 3 : 0;
}
