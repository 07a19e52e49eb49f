// Throughput of the float64 GEMM-like references (skinny_gemm, fp8_gemm_blockscaled, fp8_einsum)
// and of the indexer (indexer_logits, indexer_logits_paged) on this machine, against an estimate of
// its float64 peak: (a) a tight Eigen double GEMM with all OpenMP threads, (b) the nominal FMA peak
// = cores × clock × (2 FMA units × SIMD doubles × 2 flops). Not a test: prints a table.
// Usage: bench_gemm [--quick]
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include <Eigen/Core>
#include <omp.h>

#include "reference/registry/registry.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double g_last_cpu = 0;  // process CPU seconds of the best run (all threads), robust to a shared machine

template <typename F>
double best_seconds(int reps, F&& f) {
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = Clock::now();
    const std::clock_t c0 = std::clock();
    f();
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    if (wall < best) best = wall, g_last_cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  }
  return best;
}

int build_simd_doubles() {
#if defined(__AVX512F__)
  return 8;
#elif defined(__AVX__)
  return 4;
#else
  return 2;
#endif
}

double cpu_mhz() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("cpu MHz", 0) == 0) return std::stod(line.substr(line.find(':') + 1));
  return 0;
}

int simd_doubles() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("flags", 0) == 0) return line.find(" avx512f") != std::string::npos ? 8 : line.find(" avx2") != std::string::npos ? 4 : 2;
  return 2;
}

void bench_op(const char* name, const dsv4::Json& shape, double flops, int reps, double peak, const char* unit = nullptr,
              double units = 0) {
  std::mt19937_64 rng(1234);
  const auto& d = dsv4::Registry::instance().get(name);
  const dsv4::OpCase c = d.generate(rng, shape);
  const double s = best_seconds(reps, [&] { (void)dsv4::run_reference(name, c); });
  std::printf("%-22s %-70s %8.3f s %7.2f GFLOP/s (%5.1f%% of Eigen) %7.2f GFLOP/cpu-s", name, shape.dump().c_str(), s,
              flops / s * 1e-9, 100.0 * flops / s * 1e-9 / peak, flops / g_last_cpu * 1e-9);
  if (unit) std::printf("  %.3g %s/s", units / s, unit);
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const int threads = omp_get_max_threads();
  const double mhz = cpu_mhz();
  const int lanes = simd_doubles();
  const double nominal = threads * mhz * 1e-3 * 2 * lanes * 2;  // GFLOP/s, 2 FMA ports assumed
  const int n = quick ? 512 : 1536;
  Eigen::MatrixXd A = Eigen::MatrixXd::Random(n, n), B = Eigen::MatrixXd::Random(n, n), C(n, n);
  const double gemm_s = best_seconds(3, [&] { C.noalias() = A * B; });
  const double eigen_peak = 2.0 * n * n * n / gemm_s * 1e-9;
  const double eigen_cpu = 2.0 * n * n * n / g_last_cpu * 1e-9;
  const double nominal_build = threads * mhz * 1e-3 * 2 * build_simd_doubles() * 2;
  std::printf("threads %d, %.0f MHz; nominal FMA peak: CPU flags (%d doubles/SIMD) %.1f GFLOP/s, this build's SIMD (%d doubles) %.1f GFLOP/s\n",
              threads, mhz, lanes, nominal, build_simd_doubles(), nominal_build);
  std::printf("Eigen dgemm %dx%d: %.2f GFLOP/s wall (%.0f%% of build nominal), %.2f GFLOP per CPU-second (%.0f%% of one core's nominal)\n",
              n, n, eigen_peak, 100 * eigen_peak / nominal_build, eigen_cpu, 100 * eigen_cpu / (nominal_build / threads));
  const int reps = quick ? 1 : 3;
  using dsv4::Json;
  const double N = 64, K = quick ? 1024 : 4096, M = quick ? 1024 : 4096;
  bench_op("skinny_gemm", Json{{"N", 64}, {"K", std::int64_t(K)}, {"M", std::int64_t(M)}, {"dtype", "bf16"}, {"bias", "m"}}, 2 * N * K * M, reps, eigen_peak);
  const double fm = 64, fk = quick ? 1024 : 7168, fn = quick ? 512 : 2048;
  bench_op("fp8_gemm_blockscaled", Json{{"M", std::int64_t(fm)}, {"N", std::int64_t(fn)}, {"K", std::int64_t(fk)}, {"scale", "packed_ue8m0"}}, 2 * fm * fn * fk, reps, eigen_peak);
  const double eb = quick ? 16 : 64, eh = 8, er = quick ? 1024 : 4096, ed = quick ? 256 : 1024;
  bench_op("fp8_einsum", Json{{"B", std::int64_t(eb)}, {"H", std::int64_t(eh)}, {"R", std::int64_t(er)}, {"D", std::int64_t(ed)}, {"scale", "fp32"}}, 2 * eb * eh * er * ed, reps, eigen_peak);
  // Indexer: S queries × S_kv keys (full rows), H = 64, D = 128 (V3.2/V4 sizes).
  const double S = quick ? 16 : 64, Skv = quick ? 1024 : 4096;
  {
    std::mt19937_64 rng(7);
    const auto& d = dsv4::Registry::instance().get("indexer_logits");
    dsv4::OpCase c = d.generate(rng, Json{{"S", std::int64_t(S)}, {"S_kv", std::int64_t(Skv)}, {"H", 64}, {"D", 128}});
    double keys = 0;
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(S); ++i)
      keys += c.in("cu_seq_len_k_end").get({i}) - c.in("cu_seq_len_k_start").get({i});
    const double s = best_seconds(reps, [&] { (void)dsv4::run_reference("indexer_logits", c); });
    std::printf("%-22s %-70s %8.3f s %7.2f GFLOP/s (%5.1f%% of Eigen) %7.2f GFLOP/cpu-s  %.3g logits/s\n", "indexer_logits",
                Json({{"S", std::int64_t(S)}, {"S_kv", std::int64_t(Skv)}, {"H", 64}, {"D", 128}}).dump().c_str(), s,
                2 * keys * 64 * 128 / s * 1e-9, 100 * 2 * keys * 64 * 128 / s * 1e-9 / eigen_peak,
                2 * keys * 64 * 128 / g_last_cpu * 1e-9, keys / s);
  }
  {
    std::mt19937_64 rng(8);
    const auto& d = dsv4::Registry::instance().get("indexer_logits_paged");
    const Json shape{{"B", quick ? 2 : 8}, {"next_n", 2}, {"H", 64}, {"D", 128}, {"block_kv", 64}, {"max_context_len", quick ? 1024 : 4096}};
    dsv4::OpCase c = d.generate(rng, shape);
    double keys = 0;
    const auto& ctx = c.in("context_lens");
    for (std::int64_t i = 0; i < ctx.numel(); ++i) keys += ctx.get_linear(i);
    const double s = best_seconds(reps, [&] { (void)dsv4::run_reference("indexer_logits_paged", c); });
    std::printf("%-22s %-70s %8.3f s %7.2f GFLOP/s (%5.1f%% of Eigen) %7.2f GFLOP/cpu-s  %.3g logits/s\n",
                "indexer_logits_paged", shape.dump().c_str(), s, 2 * keys * 64 * 128 / s * 1e-9,
                100 * 2 * keys * 64 * 128 / s * 1e-9 / eigen_peak, 2 * keys * 64 * 128 / g_last_cpu * 1e-9, keys / s);
  }
  return 0;
}
