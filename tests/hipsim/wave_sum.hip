// Row sums in plain HIP with dynamic LDS and wave-synchronous code, written here for the hipsim tests: one
// workgroup of (64, W) threads per row of x; each wave stages its 64 values in `extern __shared__` LDS and reduces
// them with a tree that has no barrier inside the wave (it relies on the lanes of a wave running in lockstep, as on
// CDNA: no race finding may come of it); after one __syncthreads wave 0 adds the W wave sums in wave order, and
// adds the row sum to a grand total with __hip_atomic_fetch_add (agent scope) and the count of waves that bumped an
// LDS counter with atomicAdd (atomics of several waves on one LDS word are no race).
// Planted bug (-D BUG_DYNAMIC_TOO_SMALL): the launch asks for one wave's worth of dynamic LDS too little, so the last
// wave's stores run past the dynamic region, into the static counter after it and past the allocation (CDNA:
// dropped, read 0).
#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

template <int kLanes>  // a template, so its __shared__ variable is a template's static (linkonce) as well
__global__ void row_sum(const float* x, float* out, float* total, int* waves_seen, int cols) {
  extern __shared__ float buf[];
  __shared__ int arrived;  // waves that finished their tree (an LDS atomic from every wave: no race finding)
  if (threadIdx.x == 0 && threadIdx.y == 0) arrived = 0;
  __syncthreads();
  const int lane = threadIdx.x, wave = threadIdx.y, waves = blockDim.y;
  const int col = wave * kLanes + lane;
  float* mine = buf + wave * kLanes;
  mine[lane] = col < cols ? x[std::size_t(blockIdx.x) * cols + col] : 0.0f;
  for (int s = kLanes / 2; s > 0; s >>= 1)  // wave-synchronous: no barrier between one step's stores and the next's loads
    if (lane < s) mine[lane] += mine[lane + s];
  if (lane == 0) atomicAdd(&arrived, 1);
  __syncthreads();
  if (wave == 0 && lane == 0) {
    float sum = 0.0f;
    for (int w = 0; w < waves; ++w) sum += buf[w * kLanes];
    out[blockIdx.x] = sum;
    __hip_atomic_fetch_add(total, sum, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);  // every block, any order
    atomicAdd(waves_seen, __hip_atomic_load(&arrived, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP));
  }
}

// Usage: wave_sum ROWS COLS [SEED]; exit 0 when every row sum is within the fp32 summation bound of the float64 sum.
int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s ROWS COLS [SEED]\n", argv[0]);
    return 2;
  }
  const int rows = std::atoi(argv[1]), cols = std::atoi(argv[2]);
  const unsigned long long seed = argc > 3 ? std::strtoull(argv[3], nullptr, 0) : 1;
  const int waves = (cols + 63) / 64;
  if (rows < 1 || cols < 1 || waves > 16) {
    std::fprintf(stderr, "need rows >= 1 and 1 <= cols <= 1024\n");
    return 2;
  }
  hipDeviceProp_t prop;
  if (hipGetDeviceProperties(&prop, 0) != hipSuccess) return 3;
  std::printf("wave_sum rows=%d cols=%d seed=%llu on %s (%zu B LDS per block, warpSize %d), %d CUs, GFXIP %d.%d\n", rows,
              cols, seed, prop.gcnArchName, prop.sharedMemPerBlock, prop.warpSize, prop.multiProcessorCount, prop.major,
              prop.minor);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> x(std::size_t(rows) * cols);
  for (float& v : x) v = dist(rng);
  float *dx, *dout, *dtotal;
  int* dseen;
  if (hipMalloc(&dx, x.size() * 4) != hipSuccess || hipMalloc(&dout, rows * 4) != hipSuccess ||
      hipMalloc(&dtotal, 4) != hipSuccess || hipMalloc(&dseen, 4) != hipSuccess)
    return 3;
  if (hipMemset(dtotal, 0, 4) != hipSuccess || hipMemset(dseen, 0, 4) != hipSuccess) return 3;
  if (hipMemcpy(dx, x.data(), x.size() * 4, hipMemcpyHostToDevice) != hipSuccess) return 3;
  if (hipMemset(dout, 0xFF, rows * 4) != hipSuccess) return 3;  // poison: NaN
  std::size_t lds = std::size_t(waves) * 64 * sizeof(float);
#ifdef BUG_DYNAMIC_TOO_SMALL
  lds -= 64 * sizeof(float);
#endif
  hipLaunchKernelGGL(row_sum<64>, dim3(rows), dim3(64, waves), lds, nullptr, dx, dout, dtotal, dseen, cols);
  hipError_t e = hipDeviceSynchronize();
  if (e != hipSuccess) {
    std::printf("hipDeviceSynchronize: %s\n", hipGetErrorString(e));
    return 3;
  }
  std::vector<float> got(rows);
  float total = 0;
  int seen = 0;
  if (hipMemcpy(got.data(), dout, rows * 4, hipMemcpyDeviceToHost) != hipSuccess ||
      hipMemcpy(&total, dtotal, 4, hipMemcpyDeviceToHost) != hipSuccess ||
      hipMemcpy(&seen, dseen, 4, hipMemcpyDeviceToHost) != hipSuccess)
    return 3;
  // float64 reference; fp32 sums in any order of n terms: |err| <= gamma_n * sum |x| (Higham), u = 2^-24.
  int bad = 0;
  const double u = std::ldexp(1.0, -24), gamma = cols * u / (1 - cols * u);
  for (int r = 0; r < rows; ++r) {
    double sum = 0, abs_sum = 0;
    for (int c = 0; c < cols; ++c) {
      sum += x[std::size_t(r) * cols + c];
      abs_sum += std::fabs(x[std::size_t(r) * cols + c]);
    }
    if (!(std::fabs(got[r] - sum) <= gamma * abs_sum)) {
      if (bad++ < 8) std::printf("mismatch row %d: %.9g, reference %.9g, bound %.3g\n", r, got[r], sum, gamma * abs_sum);
    }
  }
  // The grand total: every row's fp32 sum added atomically in any order, rows + cols terms per element at most.
  double all = 0, all_abs = 0;
  for (float v : x) all += v, all_abs += std::fabs(v);
  const double gamma_all = (cols + rows) * u / (1 - (cols + rows) * u);
  if (!(std::fabs(total - all) <= gamma_all * all_abs)) {
    std::printf("mismatch total: %.9g, reference %.9g, bound %.3g\n", total, all, gamma_all * all_abs);
    ++bad;
  }
  if (seen != rows * waves) {
    std::printf("mismatch: %d waves counted in LDS, %d launched\n", seen, rows * waves);
    ++bad;
  }
  hipFree(dtotal);
  hipFree(dseen);
  hipFree(dx);
  hipFree(dout);
  std::printf("%s: %d of %d rows outside the bound\n", bad ? "FAIL" : "PASS", bad, rows);
  return bad ? 1 : 0;
}
