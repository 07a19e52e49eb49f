// Benchmark of the KV-cache writer (V3.2 656 B and V4 MODEL1 584 B per token): per shape the floor (bytes moved at
// the H200's measured copy bandwidth, 4214 GB/s: kv rows and slots read, one token's cache bytes written), the
// measured median per launch and ratio = floor / measured. Slots are a random permutation of the cache with ~5% -1
// (padding). On sim it runs one tiny shape per layout and reports simulator CPU time (not a device number).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "bench/kernels/bench_kernel_timing.hpp"
#include "kernels/kv_cache_write/kv_cache_write.hpp"

namespace kw = dsv4::kernels::kvw;
namespace port = dsv4::port;

int main() {
  const bool sim = port::backend() == port::Backend::sim;
  constexpr double kCopyGBs = 4214.0;
  const std::vector<long> tokens = sim ? std::vector<long>{16} : std::vector<long>{64, 512, 4096, 32768, 131072};
  std::printf("backend %s, device %s%s\n", std::string(port::backend_name()).c_str(),
              std::string(port::device_profile().name).c_str(), sim ? " (sim: CPU time of the simulator)" : "");
  std::printf("%-17s %7s %6s %12s %11s %11s %7s\n", "layout", "tokens", "bs", "bytes", "floor_us", "median_us",
              "ratio");
  std::mt19937_64 rng(7);
  for (kw::Layout l : {kw::Layout::v32, kw::Layout::model1})
    for (long n : tokens) {
      kw::KvWriteShape s;
      s.layout = l;
      s.n_tokens = n;
      s.block_size = 64;
      s.num_blocks = (n + 63) / 64 + 1;
      kw::KvWriteOptions o;
      o.recipe = l == kw::Layout::v32 ? kw::Recipe::flashmla_kv_test : kw::Recipe::vllm_v4_kv;
      const kw::KvWritePlan plan = kw::make_kv_write_plan(s, port::device_profile(), o);
      if (!plan.ok) {
        std::printf("refused: %s\n", plan.reason.c_str());
        continue;
      }
      std::vector<long long> slots(static_cast<std::size_t>(plan.num_slots));
      std::iota(slots.begin(), slots.end(), 0LL);
      std::shuffle(slots.begin(), slots.end(), rng);
      slots.resize(static_cast<std::size_t>(n));
      for (std::size_t i = 0; i < slots.size(); i += 20) slots[i] = -1;
      std::vector<std::uint16_t> kv(static_cast<std::size_t>(n * plan.d_qk));
      std::normal_distribution<float> nd(0.f, 1.f);
      for (auto& h : kv) {
        const float f = nd(rng);
        std::uint32_t u;
        std::memcpy(&u, &f, 4);
        h = static_cast<std::uint16_t>(u >> 16);
      }
      port::DeviceBuffer dkv(kv.size() * 2), dslot(slots.size() * 8),
          dcache(static_cast<std::size_t>(s.num_blocks * plan.block_stride));
      dkv.copy_from_host(kv.data(), kv.size() * 2);
      dslot.copy_from_host(slots.data(), slots.size() * 8);
      dcache.memset(0);
      port::Stream st;
      const kw::KvWriteBuffers io{dkv.data(), dslot.data(), dcache.data()};
      const double ms =
          dsv4::bench::median_ms([&] { kw::launch_kv_cache_write(plan, io, st); }, st, sim ? 3 : 21, sim ? 1 : 50);
      const double bytes = plan.bytes_moved();
      const double floor_ms = bytes / (kCopyGBs * 1e6);  // GB/s = 1e6 bytes per ms
      std::printf("%-17s %7ld %6ld %12.0f %11.2f %11.2f %7.3f\n", kw::layout_name(l), n, s.block_size, bytes,
                  floor_ms * 1e3, ms * 1e3, floor_ms / ms);
    }
  return 0;
}
