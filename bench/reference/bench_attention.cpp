// Throughput of the float64 sparse-attention references (sparse_mla_prefill, sparse_mla_decode) at
// DeepSeek-V4-Flash sizes (h_q 64, d 512, topk 512, MODEL1 cache) and V3.2 sizes (h_q 128, d_qk 576,
// topk 2048, V32 cache). Every index is valid, so each token does the full h_q x topk work.
// Prints tokens/s and the achieved float64 GFLOP/s (2 h_q topk (d_qk + d_v) per token).
// Usage: bench_attention [tokens=8] [repeats=2]; OMP_NUM_THREADS picks the thread count.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <random>
#include <string>

#include <omp.h>

#include "reference/ops/common/attn_gen.hpp"
#include "reference/ops/common/kv_cache_gen.hpp"
#include "reference/registry/registry.hpp"

using namespace dsv4;

namespace {

Tensor full_indices(std::mt19937_64& rng, Shape shape, std::int64_t n_keys) {
  Tensor idx = Tensor::empty(DType::I32, shape);
  const std::int64_t topk = shape.back(), rows = idx.numel() / topk;
  for (std::int64_t r = 0; r < rows; ++r) {
    auto row = attn::gen_index_row(rng, n_keys, topk, topk, {-1});
    for (std::int64_t j = 0; j < topk; ++j) idx.set_code_linear(r * topk + j, static_cast<std::uint32_t>(row[j]));
  }
  return idx;
}

struct Timing {
  double wall, cpu;  // seconds per call: wall clock, and process CPU time (all threads)
};

template <typename F>
Timing seconds_per_call(F&& f, int repeats) {
  f();  // warm-up
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  for (int i = 0; i < repeats; ++i) f();
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC / repeats;
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / repeats, cpu};
}

// tokens/s by wall clock, and per CPU-second (what one idle core would give; on a shared, loaded
// machine the wall figure understates the reference).
void report(const char* what, std::int64_t tokens, std::int64_t h, std::int64_t dqk, std::int64_t topk, Timing t) {
  const double flop = 2.0 * h * topk * (dqk + 512) * tokens;
  std::printf("%-44s tokens %3lld  %7.3f s/call  %7.2f tokens/s  %7.2f tokens/cpu-s  %6.2f GFLOP/cpu-s\n", what,
              static_cast<long long>(tokens), t.wall, tokens / t.wall, tokens / t.cpu, flop / t.cpu * 1e-9);
}

void bench_prefill(const char* name, std::int64_t s_q, std::int64_t h, std::int64_t dqk, std::int64_t s_kv,
                   std::int64_t topk, int repeats) {
  std::mt19937_64 rng(1);
  OpCase c;
  c.inputs["q"] = attn::gen_bf16(rng, {s_q, h, dqk});
  c.inputs["kv"] = attn::gen_bf16(rng, {s_kv, 1, dqk});
  c.inputs["indices"] = full_indices(rng, {s_q, 1, topk}, s_kv);
  c.attrs = {{"sm_scale", 1.0 / std::sqrt(static_cast<double>(dqk))}, {"d_v", 512}};
  report(name, s_q, h, dqk, topk, seconds_per_call([&] { run_reference("sparse_mla_prefill", c); }, repeats));
}

void bench_decode(const char* name, kv::CacheLayout l, std::int64_t b, std::int64_t h, std::int64_t topk,
                  std::int64_t num_blocks, int repeats) {
  std::mt19937_64 rng(2);
  const std::int64_t bs = 64, dqk = kv::layout_info(l).d_qk;
  OpCase c;
  c.inputs["q"] = attn::gen_bf16(rng, {b, 1, h, dqk});
  c.inputs["indices"] = full_indices(rng, {b, 1, topk}, num_blocks * bs);
  Tensor cache = kv::alloc_cache(l, num_blocks, bs);
  std::vector<std::int64_t> all(static_cast<std::size_t>(num_blocks * bs));
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::int64_t>(i);
  kv::fill_slots(rng, cache, l, all, {});
  c.inputs["k_cache"] = cache;
  c.attrs = {{"cache_layout", kv::cache_layout_name(l)}, {"head_dim_v", 512}};
  report(name, b, h, dqk, topk, seconds_per_call([&] { run_reference("sparse_mla_decode", c); }, repeats));
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t tokens = argc > 1 ? std::atoll(argv[1]) : 8;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 2;
  std::printf("OpenMP threads: %d\n", omp_get_max_threads());
  for (std::int64_t t : {std::int64_t{1}, tokens}) {
    bench_prefill("prefill V4-Flash (h64 d512 topk512)", t, 64, 512, 8192, 512, repeats);
    bench_prefill("prefill V3.2 (h128 d576 topk2048)", t, 128, 576, 8192, 2048, repeats);
    bench_decode("decode V4-Flash MODEL1 (h64 d512 topk512)", kv::CacheLayout::MODEL1_FP8Sparse, t, 64, 512, 128,
                 repeats);
    bench_decode("decode V3.2 V32 (h128 d576 topk2048)", kv::CacheLayout::V32_FP8Sparse, t, 128, 2048, 128, repeats);
  }
  return 0;
}
