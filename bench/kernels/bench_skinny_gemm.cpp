// Benchmark of the split-K skinny GEMM on the device (H200): for N in {1,4,16,32,64,128}, K in {2048,7168,16384},
// M in {1024,4096,7168}, bf16, times the kernel and cuBLAS (cublasGemmEx, fp32 compute, loaded with dlopen) as
// the median over many replays of a captured graph of back-to-back launches, and the memory roofline (b read once
// at the measured device-to-device copy bandwidth). The weights rotate over enough copies that they never sit in
// L2 between launches. Prints one table with the ratios side by side.
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/port/runtime.hpp"
#include "kernels/skinny_gemm/skinny_gemm.hpp"

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
  for (int n : {1, 4, 16, 32, 64, 128})
    for (int k : {2048, 7168, 16384})
      for (int m : {1024, 4096, 7168}) {
        sk::SkinnyShape sh;
        sh.n = n;
        sh.m = m;
        sh.k = k;
        const sk::SkinnyPlan plan = sk::make_plan(sh, arch);
        const std::size_t b_bytes = static_cast<std::size_t>(m) * k * 2;
        const int copies = static_cast<int>(std::clamp<std::size_t>((std::size_t{240} << 20) / b_bytes + 1, 1, 32));
        std::vector<port::DeviceBuffer> bs;
        const auto host_b = random_bf16(static_cast<std::size_t>(m) * k, rng, 0.02f);
        for (int c = 0; c < copies; ++c) bs.push_back(port::DeviceBuffer::from_host<std::uint16_t>(host_b));
        const auto host_a = random_bf16(static_cast<std::size_t>(n) * k, rng, 1.f);
        port::DeviceBuffer a = port::DeviceBuffer::from_host<std::uint16_t>(host_a);
        port::DeviceBuffer out(static_cast<std::size_t>(n) * m * 2), out_cb(static_cast<std::size_t>(n) * m * 2);
        double t_k = -1, t_c = -1;
        std::string note = plan.ok ? "" : "REFUSED " + plan.reason;
        if (plan.ok) {
          port::DeviceBuffer ws(plan.workspace_bytes);
          sk::initialize_workspace(plan, ws, s);
          t_k = median_us_per_launch(s, [&](int i) {
            sk::launch_skinny_gemm(plan, {a.data(), bs[i % copies].data(), nullptr, out.data()}, ws.data(),
                                   ws.bytes(), s);
          });
          char buf[160];
          std::snprintf(buf, sizeof buf, "CHUNKK=%d k_rnd=%lld chunks/shard=%d tile_m=%d grid=%lld", plan.chunkk,
                        static_cast<long long>(plan.k_rnd), plan.chunks_per_shard, plan.tile_m,
                        static_cast<long long>(plan.grid));
          note = buf;
        }
        if (have_cublas)
          t_c = median_us_per_launch(s, [&](int i) {
            if (cb.gemm(a.data(), bs[i % copies].data(), out_cb.data(), n, m, k) != 0)
              throw port::Error("cublasGemmEx failed");
          });
        // Agreement check (bitwise equality is not expected: different summation orders).
        if (plan.ok && have_cublas) {
          s.synchronize();
          const auto o1 = out.to_host<std::uint16_t>(), o2 = out_cb.to_host<std::uint16_t>();
          double worst = 0;
          for (std::size_t i = 0; i < o1.size(); ++i) {
            std::uint32_t u1 = std::uint32_t{o1[i]} << 16, u2 = std::uint32_t{o2[i]} << 16;
            float f1, f2;
            std::memcpy(&f1, &u1, 4);
            std::memcpy(&f2, &u2, 4);
            worst = std::max(worst, static_cast<double>(std::fabs(f1 - f2)));
          }
          if (worst > 0.05) note += " MISMATCH vs cuBLAS max|d|=" + std::to_string(worst);
        }
        const double roof = static_cast<double>(b_bytes) / (bw * 1e9) * 1e6;
        std::printf("%5d %6d %6d | %10.2f %10.2f %10.2f | %9.2f %9.2f %9.2f | %s\n", n, k, m, t_k, t_c, roof,
                    (t_k > 0 && t_c > 0) ? t_c / t_k : 0.0, t_k > 0 ? roof / t_k : 0.0, t_c > 0 ? roof / t_c : 0.0,
                    note.c_str());
        std::fflush(stdout);
      }
  return 0;
}
