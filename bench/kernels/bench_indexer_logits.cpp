// Benchmark of the lightning-indexer kernels (indexer_logits prefill, indexer_logits_paged decode) on V3.2/V4-like
// shapes (H = 64, D = 128): per shape the floor max(bytes moved at 4214 GB/s, fp8 q·k flops at 1580 TFLOP/s dense,
// the H200's measured copy bandwidth and fp8 peak), the measured median per launch, and floor/measured. Bytes: q,
// the keys and scales each read once, weights, ranges, the logits written (whole rows when clean_logits, the valid
// prefix for paged). Flops: 2·H·D per valid (row, key) pair. On sim it runs one tiny shape per op and reports
// simulator CPU time (not a device number).
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include "bench/kernels/bench_kernel_timing.hpp"
#include "kernels/indexer_logits/indexer_logits.hpp"

namespace ix = dsv4::kernels::indexer;
namespace port = dsv4::port;

namespace {

constexpr double kBandwidth = 4214e9;  // B/s
constexpr double kFp8Flops = 1580e12;  // flop/s

void report(const char* what, double bytes, double flops, double ms) {
  const double floor_ms = std::max(bytes / kBandwidth, flops / kFp8Flops) * 1e3;
  std::printf("%-44s %10.4g %10.4g %10.4g %10.4g %8.3g\n", what, bytes / 1e6, flops / 1e9, floor_ms, ms,
              floor_ms / ms);
}

void bench_prefill(long S, long S_kv, long H, long D, bool sim) {
  ix::IndexerShape s;
  s.s = S;
  s.s_kv = S_kv;
  s.h = H;
  s.d = D;
  const ix::IndexerPlan plan = ix::make_indexer_plan(s, port::device_profile());
  if (!plan.ok) {
    std::printf("prefill S=%ld S_kv=%ld refused: %s\n", S, S_kv, plan.reason.c_str());
    return;
  }
  // Causal-like ranges: query i sees keys [0, ceil(S_kv·(i+1)/S)) (compressed keys when S_kv < S).
  std::vector<std::int32_t> ks(S, 0), ke(S);
  double pairs = 0;
  for (long i = 0; i < S; ++i) {
    ke[i] = static_cast<std::int32_t>((S_kv * (i + 1) + S - 1) / S);
    pairs += ke[i];
  }
  port::DeviceBuffer q(S * H * D), kv(S_kv * D), out(plan.out_bytes);
  q.memset(0x30);
  kv.memset(0x2c);
  port::DeviceBuffer sf = port::DeviceBuffer::from_host<float>(std::vector<float>(S_kv, 1.f / 448));
  port::DeviceBuffer w = port::DeviceBuffer::from_host<float>(std::vector<float>(S * H, 0.125f));
  port::DeviceBuffer dks = port::DeviceBuffer::from_host<std::int32_t>(ks), dke = port::DeviceBuffer::from_host<std::int32_t>(ke);
  port::Stream st;
  const ix::IndexerBuffers io{static_cast<const std::uint8_t*>(q.data()), static_cast<const std::uint8_t*>(kv.data()),
                              sf.as<float>(), w.as<float>(), dks.as<std::int32_t>(), dke.as<std::int32_t>(),
                              out.as<float>()};
  const double ms = dsv4::bench::median_ms([&] { ix::launch_indexer_logits(plan, io, st); }, st, sim ? 3 : 11, sim ? 1 : 5);
  const double bytes = S * H * D + S_kv * (D + 4.0) + S * H * 4.0 + S * 8.0 + S * S_kv * 4.0;
  char what[128];
  std::snprintf(what, sizeof what, "prefill S=%ld S_kv=%ld H=%ld D=%ld", S, S_kv, H, D);
  report(what, bytes, 2.0 * H * D * pairs, ms);
}

void bench_decode(long B, long next_n, long H, long D, long ctx, bool sim) {
  const long block_kv = 64, max_blocks = (ctx + block_kv - 1) / block_kv;
  ix::PagedShape s;
  s.b = B;
  s.next_n = next_n;
  s.h = H;
  s.d = D;
  s.block_kv = block_kv;
  s.num_blocks = B * max_blocks;
  s.max_blocks = max_blocks;
  s.max_context_len = ctx;
  const ix::PagedPlan plan = ix::make_paged_plan(s, port::device_profile());
  if (!plan.ok) {
    std::printf("decode B=%ld refused: %s\n", B, plan.reason.c_str());
    return;
  }
  std::vector<std::int32_t> table(B * max_blocks), lens(B * next_n);
  std::iota(table.begin(), table.end(), 0);
  std::shuffle(table.begin(), table.end(), std::mt19937(1));
  double pairs = 0;
  for (long b = 0; b < B; ++b)
    for (long t = 0; t < next_n; ++t) {
      lens[b * next_n + t] = static_cast<std::int32_t>(ctx - next_n + t + 1);
      pairs += lens[b * next_n + t];
    }
  port::DeviceBuffer q(B * next_n * H * D), cache(plan.cache_bytes), out(plan.out_bytes);
  q.memset(0x30);
  cache.memset(0x2c);  // codes and scales alike: finite, positive (0x2c2c2c2c as fp32 ≈ 2.4e-12)
  port::DeviceBuffer w = port::DeviceBuffer::from_host<float>(std::vector<float>(B * next_n * H, 0.125f));
  port::DeviceBuffer dl = port::DeviceBuffer::from_host<std::int32_t>(lens), dt = port::DeviceBuffer::from_host<std::int32_t>(table);
  port::Stream st;
  const ix::PagedBuffers io{static_cast<const std::uint8_t*>(q.data()), static_cast<const std::uint8_t*>(cache.data()),
                            w.as<float>(), dl.as<std::int32_t>(), dt.as<std::int32_t>(), out.as<float>()};
  const double ms =
      dsv4::bench::median_ms([&] { ix::launch_indexer_logits_paged(plan, io, st); }, st, sim ? 3 : 11, sim ? 1 : 5);
  const double bytes = B * next_n * H * (D + 4.0) + B * ctx * (D + 4.0) + B * next_n * 4.0 + B * max_blocks * 4.0 + pairs * 4.0;
  char what[128];
  std::snprintf(what, sizeof what, "decode B=%ld next_n=%ld ctx=%ld H=%ld D=%ld", B, next_n, ctx, H, D);
  report(what, bytes, 2.0 * H * D * pairs, ms);
}

}  // namespace

int main() {
  const bool sim = port::backend() == port::Backend::sim;
  std::printf("backend %s, device %s%s\n", std::string(port::backend_name()).c_str(),
              std::string(port::device_profile().name).c_str(), sim ? " (sim: CPU time of the simulator)" : "");
  std::printf("%-44s %10s %10s %10s %10s %8s\n", "shape", "MB", "GFLOP", "floor ms", "median ms", "ratio");
  if (sim) {
    bench_prefill(4, 130, 8, 64, true);
    bench_decode(2, 1, 8, 64, 100, true);
    return 0;
  }
  // V3.2 prefill (causal over all keys) and V4 CSA prefill (keys compressed 4x), indexer 64 heads x 128.
  for (long S : {1024L, 4096L}) {
    bench_prefill(S, S, 64, 128, false);
    bench_prefill(S, S / 4, 64, 128, false);
  }
  // Decode over the paged FP8 indexer cache: V3.2 8K context, V4 128K tokens compressed 4x = 32K entries.
  for (long B : {32L, 128L})
    for (long next_n : {1L, 2L}) {
      bench_decode(B, next_n, 64, 128, 8192, false);
      bench_decode(B, next_n, 64, 128, 32768, false);
    }
  return 0;
}
