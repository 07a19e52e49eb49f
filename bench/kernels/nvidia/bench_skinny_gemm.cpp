// Benchmark of the split-K skinny GEMM on the device (H200): for N in {1,4,16,32,64,128}, K in {2048,7168,16384},
// M in {1024,4096,7168}, bf16, times the kernel and cuBLAS (cublasGemmEx, fp32 compute, loaded with dlopen) as
// the median over many replays of a captured graph of back-to-back launches, and the memory roofline (b read once
// at the measured device-to-device copy bandwidth). The weights rotate over enough copies that they never sit in
// L2 between launches. Prints one table with the ratios side by side. DSV4_BENCH_N/K/M select single shapes;
// DSV4_BENCH_SWEEP=1 times every forced layout of both sm_90 tensor-core kernels and reports the fastest (=2 also
// prints every layout's time and modelled cost, the data the plan's time model is fitted on);
// DSV4_BENCH_KERNEL=mma|wgmma|pw restricts the plans to one kernel (DSV4_BENCH_NO_PW=1: the split-K kernels only,
// the model's choice among them); DSV4_BENCH_REDUCE=cluster|workspace the sweep's split warpgroup layouts to one way of combining shards; DSV4_BENCH_CPS=3,5 the sweep's chunks per shard (default:
// every shard count, the shortest shard of each); DSV4_BENCH_SLICES=2,4 its output-row splits.
// DSV4_BENCH_NO_PDL=1 launches without programmatic dependent launch (the plans default to it on sm_90).
// DSV4_BENCH_BT=1 also times the prototype of bench/kernels/nvidia/skinny_bt (b as the B operand at N >= 64, its
// producer-warp kernel with b as the A operand at N <= 32; =2: every configuration's time), DSV4_BENCH_BT_TRACE=1
// prints the timeline of its fastest producer-warp configuration.
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/port/runtime.hpp"
#include "bench/kernels/nvidia/skinny_bt/skinny_bt.hpp"
#include "kernels/skinny_gemm/skinny_gemm.hpp"
#include "kernels/nvidia/skinny_gemm/sm90_plan.hpp"

namespace sk = dsv4::kernels::skinny;
namespace port = dsv4::port;

namespace {

constexpr int kLaunchesPerGraph = 20;
constexpr int kReplays = 31;

// cuBLAS through dlopen (its enums as plain ints: CUBLAS_OP_N 0, CUBLAS_OP_T 1, CUDA_R_16BF 14,
// CUBLAS_COMPUTE_32F 68, CUBLAS_GEMM_DEFAULT -1).
struct Cublas {
  void* handle = nullptr;
  int (*create)(void**) = nullptr;
  int (*set_stream)(void*, void*) = nullptr;
  int (*gemm_ex)(void*, int, int, int, int, int, const void*, const void*, int, int, const void*, int, int,
                 const void*, void*, int, int, int, int) = nullptr;
  bool load() {
    const char* env = std::getenv("DSV4_CUBLAS_PATH");
    std::vector<std::string> names = {"libcublas.so.13", "libcublas.so.12", "libcublas.so",
                                      "/usr/local/cuda/lib64/libcublas.so.13"};
    if (env) names.insert(names.begin(), env);
    void* lib = nullptr;
    for (const auto& n : names)
      if ((lib = dlopen(n.c_str(), RTLD_NOW | RTLD_GLOBAL))) {
        std::printf("cuBLAS: %s\n", n.c_str());
        break;
      }
    if (!lib) return false;
    create = reinterpret_cast<decltype(create)>(dlsym(lib, "cublasCreate_v2"));
    set_stream = reinterpret_cast<decltype(set_stream)>(dlsym(lib, "cublasSetStream_v2"));
    gemm_ex = reinterpret_cast<decltype(gemm_ex)>(dlsym(lib, "cublasGemmEx"));
    return create && set_stream && gemm_ex && create(&handle) == 0;
  }
  // out[N,M] = a[N,K] b[M,K]^T in column-major terms: C(M x N) = op_T(B: K x M) · A(K x N).
  int gemm(const void* a, const void* b, void* out, int n, int m, int k) {
    const float one = 1.f, zero = 0.f;
    return gemm_ex(handle, 1, 0, m, n, k, &one, b, 14, k, a, 14, k, &zero, out, 14, m, 68, -1);
  }
};

// Uniform values in [-scale, scale) truncated to bf16 (xorshift: fast enough for 10^8 elements).
std::vector<std::uint16_t> random_bf16(std::size_t n, std::uint64_t& state, float scale) {
  std::vector<std::uint16_t> v(n);
  for (auto& x : v) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    const float f = (static_cast<float>(state >> 40) / 16777216.0f * 2.0f - 1.0f) * scale;
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    x = static_cast<std::uint16_t>(u >> 16);
  }
  return v;
}

template <class F>
double median_us_per_launch(port::Stream& s, F&& enqueue_one) {
  enqueue_one(0);  // warm-up (and first-use costs) outside capture
  s.synchronize();
  s.begin_capture();
  for (int i = 0; i < kLaunchesPerGraph; ++i) enqueue_one(i);
  port::Graph g = s.end_capture();
  port::GraphExec ge = g.instantiate();
  ge.launch(s);
  s.synchronize();
  std::vector<double> t;
  port::Event e0, e1;
  for (int r = 0; r < kReplays; ++r) {
    e0.record(s);
    ge.launch(s);
    e1.record(s);
    e1.synchronize();
    t.push_back(1000.0 * port::Event::elapsed_ms(e0, e1) / kLaunchesPerGraph);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// DSV4_BENCH_BT_TRACE: one traced run of a producer-warp prototype configuration right after an untimed one (as
// in the back-to-back replays) and its timeline, medians over the workgroups, in SM clock cycles from each one's
// start: first copy issued, first stage landed, issue-to-landed latency of a stage (median, 90th percentile),
// landed-to-landed interval, last stage landed, end; and the spread of start and end times across the grid.
void print_bt_trace(const dsv4::bench::skinny_bt::Config& c, const void* a, const std::vector<port::DeviceBuffer>& bs,
                    port::DeviceBuffer& out, int n, int m, int k, port::Stream& s) {
  namespace bt = dsv4::bench::skinny_bt;
  const int wgs = bt::workgroups(c, n, m);
  const int stages = std::min((k + 64 * c.panels - 1) / (64 * c.panels), bt::kTraceStages);
  port::DeviceBuffer tb(static_cast<std::size_t>(wgs) * bt::kTraceWords * 8);
  tb.memset(0);
  bt::run(c, a, bs[1 % bs.size()].data(), out.data(), n, m, k, s);
  bt::run(c, a, bs[0].data(), out.data(), n, m, k, s, static_cast<std::uint64_t*>(tb.data()));
  s.synchronize();
  const auto t = tb.to_host<std::uint64_t>();
  // A word the kernel did not record is 0 (the buffer's fill): it reads as NaN ("nan"), never as a time.
  auto rel = [](const std::uint64_t* r, int i) {
    return r[i] ? static_cast<double>(r[i]) - static_cast<double>(r[1]) : std::nan("");
  };
  auto median = [](std::vector<double> v, double q = 0.5) {
    v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
    std::sort(v.begin(), v.end());
    return v.empty() ? std::nan("") : v[static_cast<std::size_t>(q * (v.size() - 1))];
  };
  std::vector<double> first_issue, first_landed, lat_med, lat_p90, gap_med, last_landed, end, starts, ends, loop0, loop1,
      joined, summed, last_issue;
  for (int w = 0; w < wgs; ++w) {
    const std::uint64_t* r = &t[static_cast<std::size_t>(w) * bt::kTraceWords];
    std::vector<double> lat, gap;
    for (int i = 0; i < stages; ++i) {
      lat.push_back(rel(r, bt::kTraceLanded + i) - rel(r, bt::kTraceIssue + i));
      if (i > 0) gap.push_back(rel(r, bt::kTraceLanded + i) - rel(r, bt::kTraceLanded + i - 1));
    }
    first_issue.push_back(rel(r, bt::kTraceIssue));
    first_landed.push_back(rel(r, bt::kTraceLanded));
    lat_med.push_back(median(lat));
    lat_p90.push_back(median(lat, 0.9));
    gap_med.push_back(median(gap));
    last_landed.push_back(rel(r, bt::kTraceLanded + stages - 1));
    end.push_back(rel(r, 3));
    loop0.push_back(rel(r, 4));
    loop1.push_back(rel(r, 5));
    joined.push_back(rel(r, 6));
    summed.push_back(rel(r, 7));
    last_issue.push_back(rel(r, bt::kTraceIssue + stages - 1));
    starts.push_back(static_cast<double>(r[0]));
    ends.push_back(static_cast<double>(r[2]));
  }
  const double t0 = *std::min_element(starts.begin(), starts.end());
  std::printf("  trace %s N=%d K=%d M=%d (%d workgroups, cycles): first issue %.0f, first landed %.0f, latency %.0f "
              "(p90 %.0f), interval %.0f, last landed %.0f, end %.0f; starts within %.0f ns, ends %.0f..%.0f ns\n",
              bt::describe(c).c_str(), n, k, m, wgs, median(first_issue), median(first_landed), median(lat_med),
              median(lat_p90), median(gap_med), median(last_landed), median(end),
              *std::max_element(starts.begin(), starts.end()) - t0, *std::min_element(ends.begin(), ends.end()) - t0,
              *std::max_element(ends.begin(), ends.end()) - t0);
  std::printf("  trace tail (cycles): last issue %.0f, last landed %.0f, loops left %.0f / %.0f, joined %.0f, summed "
              "%.0f, stored %.0f\n",
              median(last_issue), median(last_landed), median(loop0), median(loop1), median(joined), median(summed),
              median(end));
  // Each warpgroup's reading comes from its own scheduler's clock (they disagree across warpgroups):
  // compare a warpgroup's arrival with its own departure only.
  const std::uint64_t* r = &t[0];
  std::printf("  trace workgroup 0 tail: joined %.0f; k-group sync 1 wg0 %.0f->%.0f wg1 %.0f->%.0f; sync 2 wg0 "
              "%.0f->%.0f wg1 %.0f->%.0f; stored %.0f\n",
              rel(r, 6), rel(r, 8), rel(r, 10), rel(r, 9), rel(r, 11), rel(r, 12), rel(r, 14), rel(r, 13), rel(r, 15),
              rel(r, 3));
  std::printf("  trace workgroup 0, per stage (issued, landed; cycles from start):");
  for (int i = 0; i < std::min(stages, 24); ++i)
    std::printf(" %.0f/%.0f", rel(r, bt::kTraceIssue + i), rel(r, bt::kTraceLanded + i));
  std::printf("\n");
}

double copy_bandwidth_gbs(port::Stream& s) {
  const std::size_t bytes = std::size_t{2} << 30;
  port::DeviceBuffer x(bytes), y(bytes);
  x.memset(1);
  std::vector<double> t;
  port::Event e0, e1;
  for (int r = 0; r < 7; ++r) {
    e0.record(s);
    port::copy_device_async(y, 0, x, 0, bytes, s);
    e1.record(s);
    e1.synchronize();
    t.push_back(port::Event::elapsed_ms(e0, e1));
  }
  std::sort(t.begin(), t.end());
  return 2.0 * static_cast<double>(bytes) / (t[t.size() / 2] * 1e-3) / 1e9;  // read + write
}

// The largest |x - y| over two bf16 arrays of one size (NaN anywhere: NaN).
double max_abs_diff_bf16(const std::vector<std::uint16_t>& x, const std::vector<std::uint16_t>& y) {
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::uint32_t u1 = std::uint32_t{x[i]} << 16, u2 = std::uint32_t{y[i]} << 16;
    float f1, f2;
    std::memcpy(&f1, &u1, 4);
    std::memcpy(&f2, &u2, 4);
    const double d = std::fabs(static_cast<double>(f1) - f2);
    if (std::isnan(d)) return d;
    worst = std::max(worst, d);
  }
  return worst;
}

// A comma-separated list of integers from the environment (e.g. DSV4_BENCH_CPS=3,5), or `fallback` when unset.
std::set<int> env_int_set(const char* var, std::set<int> fallback) {
  const char* e = std::getenv(var);
  if (!e) return fallback;
  std::set<int> out;
  for (std::istringstream in(e); in.good();) {
    int v = 0;
    if (in >> v) out.insert(v);
    in.ignore(1);  // the comma
  }
  return out;
}

}  // namespace

int main() {
  if (port::backend() == port::Backend::sim || !port::device_available()) {
    std::printf("bench_skinny_gemm needs a GPU backend with a device (%s)\n",
                port::device_unavailable_reason().c_str());
    return 2;
  }
  const port::ArchProfile& arch = port::device_profile();
  port::Stream s;
  const double bw = copy_bandwidth_gbs(s);
  std::printf("device %s, %d SMs; copy bandwidth %.0f GB/s (read+write); roofline = M*K*2 B / that\n",
              std::string(arch.name).c_str(), arch.compute_units, bw);
  Cublas cb;
  const bool have_cublas = cb.load();
  if (have_cublas) cb.set_stream(cb.handle, s.native());
  else std::printf("cuBLAS: not loadable (set DSV4_CUBLAS_PATH); its column stays empty\n");

  std::uint64_t rng = 0x9e3779b97f4a7c15ull;
  std::printf("\n%5s %6s %6s | %10s %10s %10s | %9s %9s %9s | %s\n", "N", "K", "M", "kernel_us", "cublas_us",
              "roof_us", "cb/kern", "roof/kern", "roof/cb", "plan");
  // DSV4_BENCH_N / _K / _M: run only the shapes with that N / K / M (e.g. one shape under a profiler).
  auto only = [](const char* var, int v) {
    const char* e = std::getenv(var);
    return !e || std::atoi(e) == v;
  };
  // DSV4_BENCH_KERNEL=mma|wgmma|pw: only that tensor-core kernel (Sm90Options::force_kernel); default: the plan's.
  const char* kernel_env = std::getenv("DSV4_BENCH_KERNEL");
  const int force_kernel = !kernel_env                         ? 0
                           : std::string(kernel_env) == "wgmma" ? 2
                           : std::string(kernel_env) == "pw"    ? 3
                                                                : 1;
  // DSV4_BENCH_NO_PDL=1: plain launches instead of programmatic dependent launches (SkinnyOptions::overlap_previous).
  const bool no_pdl = std::getenv("DSV4_BENCH_NO_PDL") != nullptr;
  // DSV4_BENCH_NO_PW=1: the split-K kernels only (Sm90Options::allow_producer_warp = false), for an A/B.
  const bool no_pw = std::getenv("DSV4_BENCH_NO_PW") != nullptr;
  for (int n : {1, 4, 16, 32, 64, 128})
    for (int k : {2048, 7168, 16384})
      for (int m : {1024, 4096, 7168}) {
        if (!only("DSV4_BENCH_N", n) || !only("DSV4_BENCH_K", k) || !only("DSV4_BENCH_M", m)) continue;
        sk::SkinnyShape sh;
        sh.n = n;
        sh.m = m;
        sh.k = k;
        sk::Sm90Options auto_opt;
        auto_opt.force_kernel = static_cast<sk::TensorCoreKernel>(force_kernel);
        auto_opt.overlap_previous = !no_pdl;
        auto_opt.allow_producer_warp = !no_pw;
        // DSV4_BENCH_PW_SLICE_ROWS=64 (say): with DSV4_BENCH_KERNEL=pw, that many rows of a per workgroup.
        if (const char* e = std::getenv("DSV4_BENCH_PW_SLICE_ROWS"); e && force_kernel == 3)
          auto_opt.force_slice_rows = std::min(std::atoi(e), sk::wgmma_unsliced_rows(n));
        // DSV4_BENCH_PW_CPS=14 (say): with DSV4_BENCH_KERNEL=pw, that many ring steps per K-shard (a cluster split).
        if (const char* e = std::getenv("DSV4_BENCH_PW_CPS"); e && force_kernel == 3)
          auto_opt.force_chunks_per_shard = std::atoi(e);
        // DSV4_BENCH_PW_TM=128: with DSV4_BENCH_KERNEL=pw, the wide tile (128 rows of b per workgroup).
        if (const char* e = std::getenv("DSV4_BENCH_PW_TM"); e && force_kernel == 3)
          auto_opt.force_pw_tile_m = std::atoi(e);
        // DSV4_BENCH_PW_SHARDS=4 (say): with DSV4_BENCH_KERNEL=pw, K in that many cluster shards (the steps per
        // shard that give it, from the plan's ring).
        if (const char* e = std::getenv("DSV4_BENCH_PW_SHARDS"); e && force_kernel == 3) {
          const sk::SkinnyPlan one = sk::make_plan(sh, arch, auto_opt);
          const std::int64_t steps = one.ok ? (k + one.k_chunk - 1) / one.k_chunk : 1, c = std::max(1, std::atoi(e));
          auto_opt.force_chunks_per_shard = static_cast<int>((steps + c - 1) / c);
        }
        const sk::SkinnyPlan auto_plan = sk::make_plan(sh, arch, auto_opt);
        const std::size_t b_bytes = static_cast<std::size_t>(m) * k * 2;
        const int copies = static_cast<int>(std::clamp<std::size_t>((std::size_t{240} << 20) / b_bytes + 1, 1, 32));
        std::vector<port::DeviceBuffer> bs;
        const auto host_b = random_bf16(static_cast<std::size_t>(m) * k, rng, 0.02f);
        for (int c = 0; c < copies; ++c) bs.push_back(port::DeviceBuffer::from_host<std::uint16_t>(host_b));
        const auto host_a = random_bf16(static_cast<std::size_t>(n) * k, rng, 1.f);
        port::DeviceBuffer a = port::DeviceBuffer::from_host<std::uint16_t>(host_a);
        port::DeviceBuffer out(static_cast<std::size_t>(n) * m * 2), out_cb(static_cast<std::size_t>(n) * m * 2);
        auto time_plan = [&](const sk::SkinnyPlan& pl) {
          port::DeviceBuffer ws(pl.workspace_bytes);
          sk::initialize_workspace(pl, ws, s);
          return median_us_per_launch(s, [&](int i) {
            sk::launch_skinny_gemm(pl, {a.data(), bs[i % copies].data(), nullptr, out.data()}, ws.data(), ws.bytes(),
                                   s);
          });
        };
        auto describe = [](const sk::SkinnyPlan& pl) {
          char buf[256];
          const sk::Sm90Layout& l = sk::sm90_layout(pl);
          if (l.producer_warp) {
            std::snprintf(buf, sizeof buf,
                          "producer-warp rows_of_a=%d rows_of_b=%d slices=%d ring=%dx%d grid=%lld shards=%lld",
                          8 * l.mma_n_blocks, pl.tile_m, pl.n_slices, l.mma_stages, l.mma_panels,
                          static_cast<long long>(pl.grid), static_cast<long long>(pl.k_rnd));
            return std::string(buf);
          }
          std::snprintf(buf, sizeof buf,
                        "%s CHUNKK=%d k_rnd=%lld chunks/shard=%d tile_m=%d %s=%d slices=%dx%d grid=%lld per_SM=%d%s",
                        l.wgmma ? "wgmma" : "mma", pl.chunkk, static_cast<long long>(pl.k_rnd), pl.chunks_per_shard,
                        pl.tile_m, l.wgmma ? "wg_m" : "warp_m", 16 * l.mma_m_tiles, pl.n_slices, pl.slice_rows,
                        static_cast<long long>(pl.grid), l.mma_resident, l.cluster_reduce ? " reduce=cluster" : "");
          return std::string(buf);
        };
        double t_k = -1, t_c = -1;
        std::string note = auto_plan.ok ? "" : "REFUSED " + auto_plan.reason;
        sk::SkinnyPlan plan = auto_plan;
        if (plan.ok) {
          t_k = time_plan(plan);
          note = describe(plan);
        }
        // DSV4_BENCH_SWEEP=1 (tensor-core plans): also time every forced (warps along M, chunks per shard) layout;
        // the table then shows the fastest one, the auto plan's time stays in the note.
        if (plan.ok && sk::sm90_layout(plan).mma && std::getenv("DSV4_BENCH_SWEEP")) {
          const double t_auto = t_k;
          // DSV4_BENCH_SLICES=2,4 (say): only those output-row splits of the warpgroup kernel (default 1,2,4).
          const std::set<int> splits = env_int_set("DSV4_BENCH_SLICES", {1, 2, 4});
          // DSV4_BENCH_REDUCE=cluster|workspace: only that way of combining the shards of split warpgroup plans.
          const char* reduce_env = std::getenv("DSV4_BENCH_REDUCE");
          // Chunks per shard: every count of shards (the shortest shard for each, as the plan picks), or with
          // DSV4_BENCH_CPS=3,5 (say) only those chunks per shard.
          const std::set<int> cps_only = env_int_set("DSV4_BENCH_CPS", {});
          for (int fk : {1, 2})
            for (int red : {1, 2})
            for (int split : {1, 2, 4})
            for (int mt : {1, 2, 4, 8})
              for (int wm : {4, 2, 1})
                for (int res : {2, 1})
                for (int cps = 1; cps <= 32; ++cps) {
                if (!cps_only.empty() && !cps_only.count(cps)) continue;
                if (force_kernel != 0 && fk != force_kernel) continue;
                if (!splits.count(split)) continue;
                if (fk == 1 && red == 2) continue;  // the m16n8k16 kernel has no cluster reduction
                if (reduce_env && fk == 2 && (red == 2) != (std::string(reduce_env) == "cluster")) continue;
                if (fk == 1 && (res == 1 || split != 1)) continue;  // m16n8k16: its build's residency, unsliced
                const int rows = sk::wgmma_unsliced_rows(n) / split;
                if (fk == 2 && rows < 8) continue;
                sk::Sm90Options fo{{sk::SkinnyVariant::fixed, 0, !no_pdl}, wm, cps, mt, static_cast<sk::TensorCoreKernel>(fk),
                                     fk == 2 ? res : 0, fk == 2 ? rows : 0};
                fo.force_cluster_reduce = fk == 2 ? red : 0;
                const sk::SkinnyPlan f = sk::make_plan(sh, arch, fo);
                const sk::Sm90Layout& fl = sk::sm90_layout(f);
                // (a one-shard plan is the same with either reduction: timed once, as red == 1)
                if (!f.ok || f.chunks_per_shard != cps || fl.mma_m_tiles != mt) continue;
                if (!sk::shortest_shard_of_its_count((k + f.k_chunk - 1) / f.k_chunk, cps)) continue;
                const double t = time_plan(f);
                if (std::string(std::getenv("DSV4_BENCH_SWEEP")) == "2")  // every layout: fit_skinny_model's input
                  std::printf("  layout %d %d %d | %s m_tiles=%d warps_m=%d panels=%d resident=%d slice_rows=%d cps=%d "
                              "k_rnd=%lld grid=%lld | %.2f us | model %.2f%s\n", n, k, m, fl.wgmma ? "wgmma" : "mma",
                              fl.mma_m_tiles, fl.mma_warps_m, fl.mma_panels, fl.mma_resident, f.slice_rows,
                              f.chunks_per_shard, static_cast<long long>(f.k_rnd), static_cast<long long>(f.grid), t,
                              fl.mma_model_cost, fl.cluster_reduce ? " reduce=cluster" : "");
                if (t < t_k) {
                  t_k = t;
                  plan = f;
                }
              }
          char buf[64];
          std::snprintf(buf, sizeof buf, " | auto %.2f us: ", t_auto);
          note = describe(plan) + buf + describe(auto_plan);
        }
        if (have_cublas)
          t_c = median_us_per_launch(s, [&](int i) {
            if (cb.gemm(a.data(), bs[i % copies].data(), out_cb.data(), n, m, k) != 0)
              throw port::Error("cublasGemmEx failed");
          });
        // Agreement check (bitwise equality is not expected: different summation orders).
        if (plan.ok && have_cublas) {
          s.synchronize();
          const double worst = max_abs_diff_bf16(out.to_host<std::uint16_t>(), out_cb.to_host<std::uint16_t>());
          if (worst > 0.05) note += " MISMATCH vs cuBLAS max|d|=" + std::to_string(worst);
        }
        // DSV4_BENCH_BT=1 (cuda): also time every configuration of the prototype that fits N
        // (bench/kernels/nvidia/skinny_bt) and note the fastest, its ratio to cuBLAS and its agreement with cuBLAS.
        if (std::getenv("DSV4_BENCH_BT") && port::backend() == port::Backend::cuda) {
          port::DeviceBuffer out_bt(static_cast<std::size_t>(n) * m * 2);
          if (have_cublas && cb.gemm(a.data(), bs[0].data(), out_cb.data(), n, m, k) != 0)
            throw port::Error("cublasGemmEx failed");
          s.synchronize();
          const auto ref = out_cb.to_host<std::uint16_t>();
          double best = -1;
          dsv4::bench::skinny_bt::Config best_c{};
          bool best_agrees = true;
          double best_ws = -1;  // the fastest producer-warp configuration: the one DSV4_BENCH_BT_TRACE traces
          dsv4::bench::skinny_bt::Config best_ws_c{};
          for (const auto& c : dsv4::bench::skinny_bt::configs()) {
            if (c.multicast && n <= 64) continue;
            if (c.b_as_a != (n <= 32) || (c.b_as_a && c.tile_m < n)) continue;  // b as A for N <= 32 only
            const double t = median_us_per_launch(s, [&](int i) {
              dsv4::bench::skinny_bt::run(c, a.data(), bs[i % copies].data(), out_bt.data(), n, m, k, s);
            });
            out_bt.memset(0xff);  // NaN poison: an output the run leaves unwritten cannot agree
            dsv4::bench::skinny_bt::run(c, a.data(), bs[0].data(), out_bt.data(), n, m, k, s);
            s.synchronize();
            const bool agrees = !have_cublas || max_abs_diff_bf16(out_bt.to_host<std::uint16_t>(), ref) <= 0.05;
            if (std::string(std::getenv("DSV4_BENCH_BT")) == "2")
              std::printf("  bt %d %d %d | %s | %.2f us%s\n", n, k, m, dsv4::bench::skinny_bt::describe(c).c_str(), t,
                          agrees ? "" : " MISMATCH vs cuBLAS");
            if (c.warp_specialized && (best_ws < 0 || t < best_ws)) {
              best_ws = t;
              best_ws_c = c;
            }
            if (best < 0 || t < best) {
              best = t;
              best_c = c;
              best_agrees = agrees;
            }
          }
          if (std::getenv("DSV4_BENCH_BT_TRACE") && best_ws > 0)
            print_bt_trace(best_ws_c, a.data(), bs, out_bt, n, m, k, s);
          char buf[160];
          std::snprintf(buf, sizeof buf, " | %s %.2f us, cb/bt %.2f%s", dsv4::bench::skinny_bt::describe(best_c).c_str(),
                        best, t_c > 0 ? t_c / best : 0.0, best_agrees ? "" : " MISMATCH vs cuBLAS");
          note += buf;
        }
        const double roof = static_cast<double>(b_bytes) / (bw * 1e9) * 1e6;
        std::printf("%5d %6d %6d | %10.2f %10.2f %10.2f | %9.2f %9.2f %9.2f | %s\n", n, k, m, t_k, t_c, roof,
                    (t_k > 0 && t_c > 0) ? t_c / t_k : 0.0, t_k > 0 ? roof / t_k : 0.0, t_c > 0 ? roof / t_c : 0.0,
                    note.c_str());
        std::fflush(stdout);
      }
  return 0;
}
