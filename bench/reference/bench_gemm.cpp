// Throughput of the float64 GEMM-shaped references (skinny_gemm, fp8_gemm_blockscaled, fp8_einsum,
// indexer_logits, indexer_logits_paged, sparse_mla_prefill) at DSV4 shapes, against the box's measured
// float64 peak: a large dgemm in the BLAS the references use (OpenBLAS, all OpenMP threads, measured in
// the same run), next to a bare Eigen dgemm (this build's ISA) and the nominal FMA peak of the CPU flags;
// and the box's read bandwidth (a streaming read of 256 MiB on all threads), against which skinny_gemm
// reports the bytes of b it reads per second and its share of the roofline, min(peak, flops per byte x
// bandwidth): at N = 1 a GEMV, 1 flop per byte of b, bounded by memory, not by FMAs.
// Not a test: prints a table. Usage: bench_gemm [--quick] [--op NAME] [--crossover [--level L]]
// (NAME: run only that op, after the peak; --crossover: skinny_gemm's product through the small-row kernel
// and through the panel-decoded dgemm at N = 1..128, K = 7168, the data behind kSmallRowMaxRows; --level:
// the small-row kernel of that SIMD level, portable/avx2/avx512, instead of the CPU's best).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include <Eigen/Core>
#include <fmt/format.h>
#include <omp.h>

#include "reference/ops/common/attn_gen.hpp"
#include "reference/ops/common/blas_gemm.hpp"
#include "reference/ops/common/gemm_panels.hpp"
#include "reference/ops/common/gemm_smallrow.hpp"
#include "reference/registry/registry.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double g_last_cpu = 0;
double g_peak = 0, g_peak_cpu = 0;  // the measured dgemm peak: GFLOP/s and GFLOP per CPU-second
double g_read_bw = 0, g_read_bw_cpu = 0;  // the measured read bandwidth: bytes/s and bytes per CPU-second
dsv4::gemm::SimdLevel g_level = dsv4::gemm::best_simd_level();  // --level: the small-row kernel of --crossover
std::string g_only;  // --op: the one op to run ("" = all)
bool wanted(const char* op) { return g_only.empty() || g_only == op; }  // process CPU seconds of the best run (all threads), robust to a shared machine

// The best of `reps` runs, and of more (up to 64) while they have taken under 0.3 s in all: a run of a few
// milliseconds on a shared VM is noise unless it is repeated.
template <typename F>
double best_seconds(int reps, F&& f) {
  double best = 1e30, total = 0;
  for (int i = 0; i < reps || (total < 0.3 && i < 64); ++i) {
    const auto t0 = Clock::now();
    const std::clock_t c0 = std::clock();
    f();
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    if (wall < best) best = wall, g_last_cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    total += wall;
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

// A streaming read of 256 MiB (8x a 32 MiB L3) split over the OpenMP threads, best of reps: sets the
// read bandwidth in bytes/s and bytes per CPU-second. Four sums per thread keep it bound by memory, not
// by the add chain; the buffer is written first by the same threads (first touch), outside the timing.
void measure_read_bandwidth(int reps) {
  const std::size_t n = (std::size_t{256} << 20) / sizeof(std::uint64_t);
  std::unique_ptr<std::uint64_t[]> buf(new std::uint64_t[n]);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) buf[i] = i;
  volatile std::uint64_t sink = 0;
  const double s = best_seconds(reps, [&] {
    std::uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (std::size_t i = 0; i < n; i += 4) sum += (buf[i] + buf[i + 1]) ^ (buf[i + 2] + buf[i + 3]);
    sink = sum;
  });
  (void)sink;
  g_read_bw = static_cast<double>(n * sizeof(std::uint64_t)) / s;
  g_read_bw_cpu = static_cast<double>(n * sizeof(std::uint64_t)) / g_last_cpu;
}

// One table row: wall time, GFLOP/s against the peak, and GFLOP per CPU-second against the peak's (the
// steadier ratio on a shared box: it does not count the cores other jobs took), plus an optional rate.
void print_row(const char* name, const std::string& shape, double flops, double s, const char* unit = nullptr,
               double units = 0, double bytes = 0) {
  const double gf = flops / s * 1e-9, gf_cpu = flops / g_last_cpu * 1e-9;
  std::printf("%-22s %-70s %8.3f s %7.2f GFLOP/s (%5.1f%% of peak) %7.2f GFLOP/cpu-s (%5.1f%% of peak's)", name,
              shape.c_str(), s, gf, 100.0 * gf / g_peak, gf_cpu, 100.0 * gf_cpu / g_peak_cpu);
  if (unit) std::printf("  %.3g %s/s", units / s, unit);
  if (bytes > 0) {
    // Roofline: the op can go no faster than its flops at the dgemm peak or its bytes at the read bandwidth.
    const double roof_s = std::max(flops / (g_peak * 1e9), bytes / g_read_bw);
    std::printf("  b read at %.2f GB/s (%5.1f%% of read bandwidth), %.2f GB/cpu-s (%5.1f%% of its); %5.1f%% of the "
                "roofline (%s-bound: %.1f GFLOP/s)", bytes / s * 1e-9, 100.0 * bytes / s / g_read_bw,
                bytes / g_last_cpu * 1e-9, 100.0 * bytes / g_last_cpu / g_read_bw_cpu, 100.0 * roof_s / s,
                flops / (g_peak * 1e9) >= bytes / g_read_bw ? "compute" : "memory", flops / roof_s * 1e-9);
  }
  std::printf("\n");
}

void bench_op(const char* name, const dsv4::Json& shape, double flops, int reps, double peak, const char* unit = nullptr,
              double units = 0, double bytes = 0) {
  if (!wanted(name)) return;
  std::mt19937_64 rng(1234);
  const auto& d = dsv4::Registry::instance().get(name);
  const dsv4::OpCase c = d.generate(rng, shape);
  const double s = best_seconds(reps, [&] { (void)dsv4::run_reference(name, c); });
  (void)peak;
  print_row(name, shape.dump(), flops, s, unit, units, bytes);
}

// skinny_gemm's product alone (A decoded, b bf16 [M, K] in place) through both paths, per N.
void crossover(int reps) {
  const std::int64_t K = 7168, M = 4096;
  std::mt19937_64 rng(5);
  const auto& d = dsv4::Registry::instance().get("skinny_gemm");
  const dsv4::OpCase c = d.generate(rng, dsv4::Json{{"N", 128}, {"K", K}, {"M", M}, {"dtype", "bf16"}});
  const dsv4::gemm::MatD A128 = dsv4::gemm::to_matrix(c.in("a"));
  const dsv4::Tensor& b = c.in("b");
  for (std::int64_t n : {1, 2, 4, 8, 16, 24, 32, 48, 64, 80, 96, 128}) {
    const dsv4::gemm::MatD A = A128.topRows(n);
    dsv4::gemm::MatD C(n, M);
    const std::string shape = "N=" + std::to_string(n) + ",K=7168,M=4096";
    const double flops = 2.0 * n * K * M, bytes = 2.0 * K * M;
    const double s1 = best_seconds(reps, [&] { dsv4::gemm::product_nt_smallrow(A, b, C, g_level); });
    print_row("product smallrow", shape, flops, s1, nullptr, 0, bytes);
    const double s2 = best_seconds(reps, [&] { dsv4::gemm::product_nt_panels(A, M, dsv4::gemm::tensor_rows(b), C); });
    print_row("product panels+dgemm", shape, flops, s2, nullptr, 0, bytes);
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, cross = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    else if (std::strcmp(argv[i], "--crossover") == 0) cross = true;
    else if (std::strcmp(argv[i], "--op") == 0 && i + 1 < argc) g_only = argv[++i];
    else if (std::strcmp(argv[i], "--level") == 0 && i + 1 < argc) {
      const std::string want = argv[++i];
      bool found = false;
      for (const auto l : dsv4::gemm::simd_levels_available())
        if (want == dsv4::gemm::simd_level_name(l)) g_level = l, found = true;
      if (!found) {
        std::fprintf(stderr, "bench_gemm: --level %s is not a SIMD level this CPU runs (portable, avx2, avx512)\n", want.c_str());
        return 2;
      }
    }
    else {
      std::fprintf(stderr, "bench_gemm: unknown argument '%s' (usage: bench_gemm [--quick] [--op NAME] [--crossover [--level L]])\n", argv[i]);
      return 2;
    }
  }
  const int threads = omp_get_max_threads();
  const double mhz = cpu_mhz();
  const int lanes = simd_doubles();
  const double nominal = threads * mhz * 1e-3 * 2 * lanes * 2;  // GFLOP/s, 2 FMA ports assumed
  const int n = quick ? 1024 : 2048;
  const dsv4::gemm::MatD PA = dsv4::gemm::MatD::Random(n, n), PB = dsv4::gemm::MatD::Random(n, n);
  dsv4::gemm::MatD PC(n, n);
  const double blas_s = best_seconds(3, [&] { dsv4::gemm::product_nt(PA, PB, PC); });
  const double peak = 2.0 * n * n * n / blas_s * 1e-9;
  g_peak = peak;
  g_peak_cpu = 2.0 * n * n * n / g_last_cpu * 1e-9;
  double eigen_peak = 0;  // skipped with --op (it is the slowest part of a one-op run)
  if (g_only.empty()) {
    Eigen::MatrixXd A = Eigen::MatrixXd::Random(n, n), B = Eigen::MatrixXd::Random(n, n), C(n, n);
    const double gemm_s = best_seconds(3, [&] { C.noalias() = A * B; });
    eigen_peak = 2.0 * n * n * n / gemm_s * 1e-9;
  }
  std::printf("threads %d, %.0f MHz; nominal FMA peak of the CPU flags (%d doubles/SIMD): %.1f GFLOP/s\n", threads, mhz,
              lanes, nominal);
  std::printf("%s; small-row kernel: %s\n", dsv4::gemm::blas_description().c_str(),
              dsv4::gemm::simd_level_name(g_level));
  const std::string eigen_figure = g_only.empty() ? fmt::format("{:.2f} GFLOP/s", eigen_peak) : "not measured with --op";
  std::printf("measured peak: dgemm %dx%d through reference/ops/common/blas_gemm: %.2f GFLOP/s (%.0f%% of nominal), "
              "%.2f GFLOP/cpu-s; bare Eigen dgemm (this build's ISA, %d doubles/SIMD): %s\n",
              n, n, peak, 100 * peak / nominal, g_peak_cpu, build_simd_doubles(), eigen_figure.c_str());
  const int reps = quick ? 1 : 3;
  measure_read_bandwidth(5);
  std::printf("measured read bandwidth: %.2f GB/s, %.2f GB/cpu-s (256 MiB, %d threads, best of 5)\n", g_read_bw * 1e-9,
              g_read_bw_cpu * 1e-9, threads);
  if (cross) {
    crossover(reps);
    return 0;
  }
  using dsv4::Json;
  const std::int64_t sk = 7168, sm = quick ? 1024 : 4096;
  for (std::int64_t sn : {1, 2, 4, 8, 16, 32, 64, 128})
    bench_op("skinny_gemm", Json{{"N", sn}, {"K", sk}, {"M", sm}, {"dtype", "bf16"}, {"bias", "m"}},
             2.0 * sn * sk * sm, reps, peak, nullptr, 0, 2.0 * sk * sm);
  const double fm = 64, fk = 7168, fn = quick ? 512 : 2048;
  bench_op("fp8_gemm_blockscaled", Json{{"M", std::int64_t(fm)}, {"N", std::int64_t(fn)}, {"K", std::int64_t(fk)}, {"scale", "packed_ue8m0"}}, 2 * fm * fn * fk, reps, peak);
  const double eb = quick ? 16 : 64, eh = 8, er = quick ? 1024 : 4096, ed = quick ? 256 : 1024;
  bench_op("fp8_einsum", Json{{"B", std::int64_t(eb)}, {"H", std::int64_t(eh)}, {"R", std::int64_t(er)}, {"D", std::int64_t(ed)}, {"scale", "fp32"}}, 2 * eb * eh * er * ed, reps, peak);
  // Indexer: S queries over S_kv keys, H = 64, D = 128 (V4 sizes); flops from the keys each query sees.
  const std::int64_t S = quick ? 4 : 16, Skv = quick ? 8192 : 32768;
  if (wanted("indexer_logits")) {
    std::mt19937_64 rng(7);
    const auto& d = dsv4::Registry::instance().get("indexer_logits");
    const Json shape{{"S", S}, {"S_kv", Skv}, {"H", 64}, {"D", 128}};
    dsv4::OpCase c = d.generate(rng, shape);
    double keys = 0;
    for (std::int64_t i = 0; i < S; ++i)
      keys += c.in("cu_seq_len_k_end").get({i}) - c.in("cu_seq_len_k_start").get({i});
    const double s = best_seconds(reps, [&] { (void)dsv4::run_reference("indexer_logits", c); });
    print_row("indexer_logits", shape.dump(), 2 * keys * 64 * 128, s, "logits", keys);
  }
  if (wanted("indexer_logits_paged")) {
    std::mt19937_64 rng(8);
    const auto& d = dsv4::Registry::instance().get("indexer_logits_paged");
    const Json shape{{"B", quick ? 2 : 4}, {"next_n", 2}, {"H", 64}, {"D", 128}, {"block_kv", 64}, {"max_context_len", Skv}};
    dsv4::OpCase c = d.generate(rng, shape);
    double keys = 0;
    const auto& ctx = c.in("context_lens");
    for (std::int64_t i = 0; i < ctx.numel(); ++i) keys += ctx.get_linear(i);
    const double s = best_seconds(reps, [&] { (void)dsv4::run_reference("indexer_logits_paged", c); });
    print_row("indexer_logits_paged", shape.dump(), 2 * keys * 64 * 128, s, "logits", keys);
  }
  if (wanted("sparse_mla_prefill")) {  // sparse prefill at V4-Flash sizes: h_q 64, d_qk 512, d_v 512, topk 512, every index valid
    std::mt19937_64 rng(9);
    const std::int64_t s_q = quick ? 4 : 16, h = 64, dqk = 512, topk = 512, s_kv = 8192;
    dsv4::OpCase c;
    c.inputs["q"] = dsv4::attn::gen_bf16(rng, {s_q, h, dqk});
    c.inputs["kv"] = dsv4::attn::gen_bf16(rng, {s_kv, 1, dqk});
    dsv4::Tensor idx = dsv4::Tensor::empty(dsv4::DType::I32, {s_q, 1, topk});
    for (std::int64_t r = 0; r < s_q; ++r) {
      const auto row = dsv4::attn::gen_index_row(rng, s_kv, topk, topk, {-1});
      for (std::int64_t j = 0; j < topk; ++j) idx.set_code_linear(r * topk + j, static_cast<std::uint32_t>(row[j]));
    }
    c.inputs["indices"] = idx;
    c.attrs = {{"sm_scale", 1.0 / std::sqrt(static_cast<double>(dqk))}, {"d_v", 512}};
    const double flops = 2.0 * h * topk * (dqk + 512) * s_q;
    const double s = best_seconds(reps, [&] { (void)dsv4::run_reference("sparse_mla_prefill", c); });
    const Json shape{{"s_q", s_q}, {"h_q", h}, {"d_qk", dqk}, {"d_v", 512}, {"topk", topk}, {"s_kv", s_kv}};
    print_row("sparse_mla_prefill", shape.dump(), flops, s);
  }
  return 0;
}
