// Benchmark of the sparse_mla_decode kernel (split + combine, one launch pair per call) for DeepSeek-V3.2-like
// (V32_FP8Sparse, h_q 128, topk 2048) and V4-Flash-like (MODEL1_FP8Sparse, h_q 64, topk 512 + 128 extra rows)
// decode shapes, batch 1..64. Per shape: the memory floor (gathered cache rows, read once per query, + q + out + lse
// at the H200's measured copy bandwidth 4214 GB/s), the measured median, and floor/measured. The kernel uses no
// tensor-core MMA (fp32 CUDA-core dot products), so large batches are compute bound far above the memory floor.
// On sim it runs one tiny shape and reports simulator CPU time (not a device number).
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench/kernels/bench_kernel_timing.hpp"
#include "kernels/sparse_mla_decode/sparse_mla_decode.hpp"

namespace km = dsv4::kernels::smla;
namespace port = dsv4::port;

namespace {

constexpr double kCopyGBs = 4214.0;

// Valid cache bytes: finite fp8 codes, power-of-two scales, small bf16 RoPE.
std::vector<std::uint8_t> make_cache(const km::SmlaPlan& p, bool extra, std::mt19937& rng) {
  const km::SmlaShape& s = p.shape;
  const km::CacheShape& c = extra ? s.extra_cache : s.cache;
  const std::int64_t stride = extra ? p.extra_block_stride : p.main_block_stride;
  std::vector<std::uint8_t> bytes(km::cache_bytes(p, extra));
  std::uniform_int_distribution<int> code(0, 0x76);  // positive e4m3fn codes below the NaN pattern
  for (std::int64_t b = 0; b < c.num_blocks; ++b)
    for (std::int64_t t = 0; t < c.block_size; ++t) {
      std::uint8_t* blk = bytes.data() + b * stride;
      if (s.layout == km::Layout::v32) {
        std::uint8_t* tok = blk + t * 656;
        for (int i = 0; i < 512; ++i) tok[i] = static_cast<std::uint8_t>(code(rng) | (i % 3 == 0 ? 0x80 : 0));
        const float sc = 1.0f / 64;
        for (int i = 0; i < 4; ++i) std::memcpy(tok + 512 + 4 * i, &sc, 4);
        for (int i = 0; i < 64; ++i) { tok[528 + 2 * i] = 0; tok[529 + 2 * i] = 0x3c; }  // bf16 ~0.0078
      } else {
        std::uint8_t* tok = blk + t * 576;
        for (int i = 0; i < 448; ++i) tok[i] = static_cast<std::uint8_t>(code(rng) | (i % 3 == 0 ? 0x80 : 0));
        for (int i = 0; i < 64; ++i) { tok[448 + 2 * i] = 0; tok[449 + 2 * i] = 0x3c; }
        std::uint8_t* sc = blk + c.block_size * 576 + t * 8;
        for (int i = 0; i < 7; ++i) sc[i] = 121;  // 2^-6
        sc[7] = 0;
      }
    }
  return bytes;
}

}  // namespace

int main() {
  const bool sim = port::backend() == port::Backend::sim;
  struct Case { const char* name; km::Layout layout; long b, h, topk, extra; };
  std::vector<Case> cases;
  if (sim) {
    cases = {{"tiny-V4", km::Layout::model1, 1, 16, 64, 16}};
  } else {
    for (long b : {1L, 8L, 32L, 64L}) {
      cases.push_back({"V3.2", km::Layout::v32, b, 128, 2048, 0});
      cases.push_back({"V4-Flash", km::Layout::model1, b, 64, 512, 128});
    }
  }
  const port::ArchProfile& arch = port::device_profile();
  std::printf("backend %s, device %s%s\n", std::string(port::backend_name()).c_str(), std::string(arch.name).c_str(),
              sim ? " (sim: CPU time of the simulator, not a device number)" : "");
  std::printf("%-9s %4s %4s %5s %5s %6s %10s %10s %10s %8s\n", "shape", "b", "h_q", "topk", "extra", "splits",
              "MB moved", "floor us", "median us", "ratio");
  std::mt19937 rng(1);
  for (const Case& c : cases) {
    km::SmlaShape s;
    s.b = c.b;
    s.s_q = 1;
    s.h_q = c.h;
    s.layout = c.layout;
    s.topk = c.topk;
    s.cache = {std::max<long>(1, c.topk * 8 / 64), 64, 0};
    s.extra_topk = c.extra;
    s.extra_cache = {std::max<long>(1, c.extra * 4 / 64), 64, 0};
    s.softmax_scale = 0.0;
    const km::SmlaPlan plan = km::make_plan(s, arch);
    if (!plan.ok) {
      std::printf("%-9s refused: %s\n", c.name, plan.reason.c_str());
      continue;
    }
    const std::vector<std::uint8_t> main = make_cache(plan, false, rng);
    const std::vector<std::uint8_t> ext = c.extra ? make_cache(plan, true, rng) : std::vector<std::uint8_t>{};
    const long slots = s.cache.num_blocks * 64, eslots = s.extra_cache.num_blocks * 64;
    std::vector<std::int32_t> idx(static_cast<std::size_t>(c.b * c.topk)), eidx(static_cast<std::size_t>(c.b * c.extra));
    for (auto& v : idx) v = std::uniform_int_distribution<int>(0, static_cast<int>(slots - 1))(rng);
    for (auto& v : eidx) v = std::uniform_int_distribution<int>(0, static_cast<int>(eslots - 1))(rng);
    std::vector<std::uint16_t> q(plan.q_bytes / 2);
    for (auto& v : q) v = static_cast<std::uint16_t>(0x3c00 | std::uniform_int_distribution<int>(0, 0x7f)(rng));
    port::DeviceBuffer dq = port::DeviceBuffer::from_host<std::uint16_t>(q);
    port::DeviceBuffer dc = port::DeviceBuffer::from_host<std::uint8_t>(main);
    port::DeviceBuffer di = port::DeviceBuffer::from_host<std::int32_t>(idx);
    port::DeviceBuffer dec, dei;
    if (c.extra) {
      dec = port::DeviceBuffer::from_host<std::uint8_t>(ext);
      dei = port::DeviceBuffer::from_host<std::int32_t>(eidx);
    }
    port::DeviceBuffer dout(plan.out_bytes), dlse(plan.lse_bytes);
    port::DeviceBuffer ws(km::get_workspace_size(s, arch));
    km::SmlaBuffers io;
    io.q = dq.as<std::uint16_t>();
    io.k_cache = dc.as<std::uint8_t>();
    io.indices = di.as<std::int32_t>();
    if (c.extra) {
      io.extra_k_cache = dec.as<std::uint8_t>();
      io.extra_indices = dei.as<std::int32_t>();
    }
    io.out = dout.as<std::uint16_t>();
    io.lse = dlse.as<float>();
    port::Stream st;
    const double ms = dsv4::bench::median_ms(
        [&] { km::launch_sparse_mla_decode(plan, io, ws.data(), ws.bytes(), st); }, st, sim ? 3 : 21, sim ? 1 : 20);
    const double bytes = static_cast<double>(c.b) * (c.topk + c.extra) * s.bytes_per_token() + plan.q_bytes +
                         plan.out_bytes + plan.lse_bytes;
    const double floor_us = bytes / (kCopyGBs * 1e3);
    std::printf("%-9s %4ld %4ld %5ld %5ld %6d %10.2f %10.2f %10.2f %8.4f\n", c.name, c.b, c.h, c.topk, c.extra,
                plan.num_splits, bytes / 1e6, floor_us, ms * 1e3, floor_us / (ms * 1e3));
  }
  return 0;
}
