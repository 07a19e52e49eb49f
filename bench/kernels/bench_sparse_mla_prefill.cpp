// Benchmark of the sparse_mla_prefill kernel on V4-Flash-like (h_q 64, d_qk 512, topk 512) and V3.2-like (h_q 128,
// d_qk 576, topk 2048) shapes: per shape the floor max(bytes / 4214 GB/s, flops / 790 TFLOP/s bf16) with bytes =
// gathered kv rows (s_q * topk * d_qk * 2) + q + out and flops = 2 * s_q * h_q * topk * (d_qk + d_v), the measured
// median per launch, and ratio floor / measured. All indices valid and unique per token, sink on. On sim it runs
// one tiny shape and reports simulator CPU time (not a device number).
#include <algorithm>
#include <cstdio>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "bench/kernels/bench_kernel_timing.hpp"
#include "kernels/sparse_mla_prefill/sparse_mla_prefill.hpp"

namespace sp = dsv4::kernels::sparse_prefill;
namespace port = dsv4::port;

int main() {
  const bool sim = port::backend() == port::Backend::sim;
  struct Case { const char* name; long s_q, h_q, d_qk, s_kv, topk; };
  std::vector<Case> cases;
  if (sim) {
    cases = {{"tiny", 2, 16, 576, 128, 64}};
  } else {
    cases = {{"V4-Flash", 1024, 64, 512, 32768, 512},  {"V4-Flash", 4096, 64, 512, 32768, 512},
             {"V3.2", 1024, 128, 576, 65536, 2048},    {"V3.2", 4096, 128, 576, 65536, 2048}};
  }
  const double kBw = 4214e9, kFlops = 790e12;
  std::printf("backend %s, device %s%s\n", std::string(port::backend_name()).c_str(),
              std::string(port::device_profile().name).c_str(), sim ? " (sim: CPU time of the simulator)" : "");
  std::printf("%-9s %5s %4s %4s %6s %5s %9s %9s %9s %7s  plan\n", "shape", "s_q", "h_q", "d_qk", "s_kv", "topk",
              "floor_ms", "ms", "TFLOP/s", "ratio");
  std::mt19937 rng(1);
  std::normal_distribution<float> nd(0.f, 0.1f);
  auto bf16 = [](float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  };
  for (const Case& c : cases) {
    sp::PrefillShape s;
    s.s_q = c.s_q;
    s.h_q = c.h_q;
    s.d_qk = c.d_qk;
    s.d_v = 512;
    s.s_kv = c.s_kv;
    s.topk = c.topk;
    const sp::PrefillPlan plan = sp::make_plan(s, port::device_profile());
    if (!plan.ok) {
      std::printf("refused: %s\n", plan.reason.c_str());
      continue;
    }
    std::vector<std::uint16_t> hq(static_cast<std::size_t>(c.s_q * c.h_q * c.d_qk)),
        hkv(static_cast<std::size_t>(c.s_kv * c.d_qk));
    for (auto& v : hq) v = bf16(nd(rng));
    for (auto& v : hkv) v = bf16(nd(rng));
    std::vector<std::int32_t> hidx(static_cast<std::size_t>(c.s_q * c.topk));
    for (long i = 0; i < c.s_q; ++i) {
      const long off = static_cast<long>(rng() % static_cast<unsigned>(c.s_kv));
      for (long j = 0; j < c.topk; ++j)  // unique per token: an odd stride over a power-of-two s_kv
        hidx[i * c.topk + j] = static_cast<std::int32_t>((off + j * 40503L) % c.s_kv);
    }
    std::vector<float> hsink(static_cast<std::size_t>(c.h_q));
    for (auto& v : hsink) v = nd(rng) * 10.f;
    port::DeviceBuffer dq = port::DeviceBuffer::from_host<std::uint16_t>(hq),
                       dkv = port::DeviceBuffer::from_host<std::uint16_t>(hkv),
                       didx = port::DeviceBuffer::from_host<std::int32_t>(hidx),
                       dsink = port::DeviceBuffer::from_host<float>(hsink),
                       dout(static_cast<std::size_t>(c.s_q * c.h_q * 512 * 2)),
                       dml(static_cast<std::size_t>(c.s_q * c.h_q * 4)), dlse(static_cast<std::size_t>(c.s_q * c.h_q * 4));
    port::Stream st;
    const sp::PrefillBuffers io{dq.data(), dkv.data(), didx.as<int>(), dsink.as<float>(), nullptr,
                                dout.data(), dml.as<float>(), dlse.as<float>()};
    sp::PrefillArgs args;
    args.sm_scale = 1.f / std::sqrt(static_cast<float>(c.d_qk));
    const double ms = dsv4::bench::median_ms([&] { sp::launch_sparse_mla_prefill(plan, io, args, st); }, st,
                                             sim ? 3 : 5, sim ? 1 : 2);
    const double bytes = 2.0 * (static_cast<double>(c.s_q) * c.topk * c.d_qk + static_cast<double>(c.s_q) * c.h_q * c.d_qk +
                                static_cast<double>(c.s_q) * c.h_q * 512);
    const double flops = 2.0 * c.s_q * c.h_q * static_cast<double>(c.topk) * (c.d_qk + 512);
    const double floor_ms = std::max(bytes / kBw, flops / kFlops) * 1e3;
    std::printf("%-9s %5ld %4ld %4ld %6ld %5ld %9.3f %9.3f %9.2f %7.4f  heads=%d tile_k=%d lds=%zu\n", c.name, c.s_q,
                c.h_q, c.d_qk, c.s_kv, c.topk, floor_ms, ms, flops / (ms * 1e9), floor_ms / ms, plan.heads, plan.tile_k,
                plan.lds_bytes);
  }
  return 0;
}
