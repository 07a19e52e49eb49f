// Two launches of one row-sum kernel on two streams, in plain HIP, for the cross-launch race check. Each block sums
// one row of its matrix through a global workspace (each thread stores a strided partial, thread 0 adds them after
// a __syncthreads) and counts itself on a counter both launches update atomically. Workspace: one slot per stream;
// BUG_SHARED_WORKSPACE: one region shared by both streams (a static workspace), so two unordered launches write the
// same bytes; BUG_STATIC_WORKSPACE: a file-scope __device__ array the kernel uses directly. The harness checks the sums against a float64 host sum of the seeded inputs and the block count.
// Usage: two_streams MODE ROWS COLS [SEED]; MODE: plain (two blocking streams, nothing between the launches), event
// (the second stream waits on an event recorded after the first launch), sync (hipStreamSynchronize between them),
// null (the first launch on the null stream, the second on a blocking stream), nonblocking (the same with a
// hipStreamNonBlocking stream), memset (hipMemsetAsync of the first launch's workspace on the second stream),
// shared_input (like plain, both launches reading the first matrix: reads only, no race).
// Exit 0: sums and count right and no HIP error; 1: a wrong value; 2: bad usage; 3: a HIP error (a finding).
#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

constexpr int kThreads = 64;
constexpr int kMaxRows = 64;

#ifdef BUG_STATIC_WORKSPACE
__device__ float g_workspace[kMaxRows * kThreads];
#endif

__global__ void row_sums(const float* x, float* workspace, float* out, int* blocks_done, int cols) {
#ifdef BUG_STATIC_WORKSPACE
  workspace = g_workspace;
#endif
  const int row = blockIdx.x, t = threadIdx.x;
  float part = 0.0f;
  for (int c = t; c < cols; c += kThreads) part += x[std::size_t(row) * cols + c];
  workspace[row * kThreads + t] = part;
  __syncthreads();
  if (t == 0) {
    float s = 0.0f;
    for (int i = 0; i < kThreads; ++i) s += workspace[row * kThreads + i];
    out[row] = s;
    atomicAdd(blocks_done, 1);
  }
}

#define CHECK(call)                                                                          \
  do {                                                                                       \
    const hipError_t e_ = (call);                                                            \
    if (e_ != hipSuccess) {                                                                  \
      std::fprintf(stderr, "%s failed: %s\n", #call, hipGetErrorName(e_));                   \
      return 3;                                                                              \
    }                                                                                        \
  } while (0)

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s plain|event|sync|null|nonblocking|memset|shared_input ROWS COLS [SEED]\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  const int rows = std::atoi(argv[2]), cols = std::atoi(argv[3]);
  const unsigned long long seed = argc > 4 ? std::strtoull(argv[4], nullptr, 0) : 1;
  if (rows < 1 || rows > kMaxRows || cols < 1 || (mode != "plain" && mode != "event" && mode != "sync" && mode != "null" &&
                               mode != "nonblocking" && mode != "memset" && mode != "shared_input")) {
    std::fprintf(stderr, "bad MODE '%s', ROWS outside [1, %d] or COLS < 1\n", mode.c_str(), kMaxRows);
    return 2;
  }
  std::printf("two_streams mode=%s rows=%d cols=%d seed=%llu\n", mode.c_str(), rows, cols, seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(0.5f, 1.5f);
  std::vector<float> x[2];
  for (auto& m : x) {
    m.resize(std::size_t(rows) * cols);
    for (float& v : m) v = dist(rng);
  }
  const std::size_t mat = sizeof(float) * x[0].size(), slot = sizeof(float) * rows * kThreads;
  float *dx[2], *dout[2], *ws;
  int* blocks_done;
  for (int i = 0; i < 2; ++i) {
    CHECK(hipMalloc(&dx[i], mat));
    CHECK(hipMalloc(&dout[i], sizeof(float) * rows));
    CHECK(hipMemcpy(dx[i], x[i].data(), mat, hipMemcpyHostToDevice));
  }
  CHECK(hipMalloc(&ws, 2 * slot));
  CHECK(hipMalloc(&blocks_done, sizeof(int)));
  CHECK(hipMemset(blocks_done, 0, sizeof(int)));
#ifdef BUG_SHARED_WORKSPACE
  float* slots[2] = {ws, ws};
#else
  float* slots[2] = {ws, ws + rows * kThreads};
#endif
  hipStream_t s[2];
  CHECK(hipStreamCreate(&s[0]));
  CHECK(hipStreamCreateWithFlags(&s[1], mode == "nonblocking" ? hipStreamNonBlocking : hipStreamDefault));
  hipStream_t first = mode == "null" || mode == "nonblocking" ? nullptr : s[0];
  hipEvent_t done;
  CHECK(hipEventCreate(&done));

  row_sums<<<rows, kThreads, 0, first>>>(dx[0], slots[0], dout[0], blocks_done, cols);
  if (mode == "event") {
    CHECK(hipEventRecord(done, first));
    CHECK(hipStreamWaitEvent(s[1], done, 0));
  }
  if (mode == "sync") CHECK(hipStreamSynchronize(first));
  if (mode == "memset") CHECK(hipMemsetAsync(slots[0], 0x3F, slot, s[1]));
  const int second = mode == "shared_input" ? 0 : 1;  // the matrix the second launch reads
  row_sums<<<rows, kThreads, 0, s[1]>>>(dx[second], slots[1], dout[1], blocks_done, cols);
  CHECK(hipDeviceSynchronize());

  int bad = 0, count = 0;
  CHECK(hipMemcpy(&count, blocks_done, sizeof(int), hipMemcpyDeviceToHost));
  if (count != 2 * rows) {
    std::printf("FAIL: blocks_done %d, expected %d\n", count, 2 * rows);
    ++bad;
  }
  for (int i = 0; i < 2; ++i) {
    std::vector<float> got(static_cast<std::size_t>(rows));
    CHECK(hipMemcpy(got.data(), dout[i], sizeof(float) * rows, hipMemcpyDeviceToHost));
    for (int r = 0; r < rows; ++r) {
      double want = 0;
      const std::vector<float>& m = x[i == 0 ? 0 : second];
      for (int c = 0; c < cols; ++c) want += m[std::size_t(r) * cols + c];
      if (std::fabs(got[std::size_t(r)] - want) > 1e-5 * want + 1e-5) {
        if (bad++ < 5) std::printf("FAIL: matrix %d row %d: %.7g, expected %.7g\n", i, r, got[std::size_t(r)], want);
      }
    }
  }
  std::printf(bad ? "FAIL (seed %llu)\n" : "PASS\n", seed);
  return bad ? 1 : 0;
}
