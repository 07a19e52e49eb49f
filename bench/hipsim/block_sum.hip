// bench_hipsim_vs_port: one kernel, a block tree sum in LDS (1024 threads, __syncthreads between steps), run on the
// sim two ways with every check on: as plain HIP through hipsim (this file, clang++-22 + the pass) and written
// against kernels/port on the existing sim path (port_block_sum.kernel.cpp). `bench_hipsim_vs_port ROWS REPS` runs
// each path in a child process of its own and prints seconds, peak resident memory and the ratios hipsim / port;
// `... ROWS REPS hipsim|port` runs one path (what the children do). Results: bench/hipsim/RESULTS_hipsim.md.
#include <hip/hip_runtime.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench/hipsim/port_block_sum.hpp"

__global__ void block_sum(const float* x, float* out, int cols) {
  extern __shared__ float buf[];
  const int tid = threadIdx.x;
  buf[tid] = tid < cols ? x[std::size_t(blockIdx.x) * cols + tid] : 0.0f;
  __syncthreads();
  for (int s = int(blockDim.x) / 2; s > 0; s >>= 1) {
    if (tid < s) buf[tid] += buf[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = buf[0];
}

static std::vector<float> run_hipsim(const std::vector<float>& x, int rows, int cols, int reps) {
  float *dx, *dout;
  if (hipMalloc(&dx, x.size() * 4) != hipSuccess || hipMalloc(&dout, std::size_t(rows) * 4) != hipSuccess) std::exit(3);
  hipMemcpy(dx, x.data(), x.size() * 4, hipMemcpyHostToDevice);
  for (int r = 0; r < reps; ++r) hipLaunchKernelGGL(block_sum, dim3(rows), dim3(1024), 1024 * 4, nullptr, dx, dout, cols);
  if (hipDeviceSynchronize() != hipSuccess) std::exit(3);
  std::vector<float> out(rows);
  hipMemcpy(out.data(), dout, out.size() * 4, hipMemcpyDeviceToHost);
  hipFree(dx);
  hipFree(dout);
  return out;
}

static int run_one(const char* path, int rows, int reps) {
  const int cols = 1024;
  std::mt19937_64 rng(1);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> x(std::size_t(rows) * cols);
  for (float& v : x) v = dist(rng);
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<float> out = std::strcmp(path, "port") == 0 ? dsv4::bench::run_port_block_sum(x, rows, cols, reps)
                                                                 : run_hipsim(x, rows, cols, reps);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Checked against the float64 sums (fp32 in any order: gamma_n * sum |x|), so a broken path cannot look fast.
  const double u = std::ldexp(1.0, -24), gamma = cols * u / (1 - cols * u);
  for (int r = 0; r < rows; ++r) {
    double sum = 0, abs_sum = 0;
    for (int c = 0; c < cols; ++c) sum += x[std::size_t(r) * cols + c], abs_sum += std::fabs(x[std::size_t(r) * cols + c]);
    if (!(std::fabs(out[r] - sum) <= gamma * abs_sum)) {
      std::printf("%s: row %d wrong (%g vs %g)\n", path, r, out[r], sum);
      return 1;
    }
  }
  std::printf("%.6f\n", s);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s ROWS REPS [hipsim|port]\n", argv[0]);
    return 2;
  }
  const int rows = std::atoi(argv[1]), reps = std::atoi(argv[2]);
  if (argc > 3) return run_one(argv[3], rows, reps);
  double secs[2] = {0, 0};
  long rss[2] = {0, 0};
  const char* paths[2] = {"hipsim", "port"};
  for (int i = 0; i < 2; ++i) {
    int fds[2];
    if (pipe(fds) != 0) return 3;
    const pid_t pid = fork();
    if (pid == 0) {
      dup2(fds[1], 1);
      execl("/proc/self/exe", argv[0], argv[1], argv[2], paths[i], static_cast<char*>(nullptr));
      std::_Exit(127);
    }
    close(fds[1]);
    char buf[256] = {};
    const ssize_t n = read(fds[0], buf, sizeof buf - 1);
    close(fds[0]);
    int status = 0;
    rusage ru{};
    wait4(pid, &status, 0, &ru);
    if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "%s path failed: %s\n", paths[i], buf);
      return 1;
    }
    secs[i] = std::atof(buf);
    rss[i] = ru.ru_maxrss;
  }
  std::printf("block_sum, %d rows x 1024 threads, %d launches, every check on\n", rows, reps);
  std::printf("  hipsim (plain HIP): %.3f s, peak RSS %ld KiB\n", secs[0], rss[0]);
  std::printf("  port (kernels/port): %.3f s, peak RSS %ld KiB\n", secs[1], rss[1]);
  std::printf("  hipsim / port: time %.2fx, peak RSS %.2fx (goal: time within 3x)\n", secs[0] / secs[1],
              double(rss[0]) / double(rss[1]));
  return 0;
}
