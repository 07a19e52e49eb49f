// Host harness of tests/hipsim/splitk_rc.hip, plain HIP host code: makes skinny_gemm cases with dsv4check's generator
// (seeded; the seed is printed), runs the kernel into a NaN-poisoned output with a NaN-poisoned workspace, and judges
// the output with the oracle against the float64 reference (the op's error bound, the poison written-check), printing
// the oracle's localisation by N-tile (16 tokens) and M-tile; then checks that every counter is back to zero.
// Usage:
//   splitk_rc run bf16|fp16 none|m N K M SEED      one case
//   splitk_rc grid SEED STRIDE [OFFSET]            the points i % STRIDE == OFFSET of vLLM's test grid (N x K x M x
//                                                  dtype x bias, 2304 points; STRIDE 1: all of them)
//   splitk_rc streams bf16|fp16 N K M SEED         two cases on two blocking streams, nothing ordering them, each with
//                                                  its own workspace slot (a STATIC_WORKSPACE build ignores the slots)
// Exit 0: every case within the bound and no HIP error; 1: a mismatch; 2: bad usage; 3: a HIP error (a finding).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "oracle/default_policies.hpp"
#include "oracle/judge.hpp"
#include "oracle/poison.hpp"
#include "reference/registry/registry.hpp"

namespace splitk_harness {

struct Case {
  std::string dtype, bias;
  int N = 0, K = 0, M = 0;
  unsigned long long seed = 0;
  SplitkPlan plan;
  dsv4::OpCase c;
  void *a = nullptr, *b = nullptr, *bias_d = nullptr, *out = nullptr;
  float* ws = nullptr;
  int* cntr = nullptr;
};

int cu_count() {
  hipDeviceProp_t p{};
  if (hipGetDeviceProperties(&p, 0) != hipSuccess) return 0;
  return p.multiProcessorCount;
}

bool upload(const dsv4::Tensor& t, void** d) {
  const std::size_t bytes = std::size_t(t.numel()) * t.element_bytes();
  return hipMalloc(d, bytes) == hipSuccess && hipMemcpy(*d, t.data(), bytes, hipMemcpyHostToDevice) == hipSuccess;
}

// Generates and uploads the case; poisons the output (the oracle's NaN code) and the workspace (0xFF: NaN floats).
bool prepare(Case& k) {
  const dsv4::OpDescriptor& op = dsv4::Registry::instance().get("skinny_gemm");
  std::mt19937_64 rng(k.seed);
  k.c = op.generate(rng, dsv4::Json{{"N", k.N}, {"K", k.K}, {"M", k.M}, {"dtype", k.dtype}, {"bias", k.bias}});
  k.plan = splitk_plan(k.N, k.K, k.M, cu_count());
  if (!k.plan.ok) {
    std::printf("not eligible: %s\n", k.plan.why);
    return false;
  }
  if (!upload(k.c.in("a"), &k.a) || !upload(k.c.in("b"), &k.b)) return false;
  if (k.bias != "none" && !upload(k.c.in("bias"), &k.bias_d)) return false;
  const dsv4::DType dt = k.c.in("a").dtype();
  std::vector<std::uint16_t> poison(std::size_t(k.N) * k.M, std::uint16_t(dsv4::oracle::poison_code(dt)));
  if (hipMalloc(&k.out, poison.size() * 2) != hipSuccess ||
      hipMemcpy(k.out, poison.data(), poison.size() * 2, hipMemcpyHostToDevice) != hipSuccess)
    return false;
  if (hipMalloc(&k.ws, k.plan.workspace_floats() * sizeof(float)) != hipSuccess ||
      hipMemset(k.ws, 0xFF, k.plan.workspace_floats() * sizeof(float)) != hipSuccess)
    return false;
  return hipMalloc(&k.cntr, sizeof(int) * k.plan.m_tiles) == hipSuccess &&
         hipMemset(k.cntr, 0, sizeof(int) * k.plan.m_tiles) == hipSuccess;
}

hipError_t launch(Case& k, hipStream_t s) {
  auto f = k.dtype == "bf16" ? launch_splitk_rc_bf16 : launch_splitk_rc_fp16;
  return f(k.plan, k.a, k.b, k.bias_d, k.out, k.ws, k.cntr, k.N, k.K, k.M, s);
}

// Judges the output (and the counters); prints one line per case, the localisation and the worst elements on failure.
bool judge(Case& k) {
  const dsv4::OpDescriptor& op = dsv4::Registry::instance().get("skinny_gemm");
  const dsv4::Outputs ref = dsv4::run_reference("skinny_gemm", k.c);
  dsv4::Outputs got{{"out", dsv4::Tensor::empty(k.c.in("a").dtype(), {k.N, k.M})}};
  if (hipMemcpy(got.at("out").data(), k.out, std::size_t(k.N) * k.M * 2, hipMemcpyDeviceToHost) != hipSuccess)
    return false;
  dsv4::oracle::TileMap tiles;
  tiles.rows = {16, "N-tile", {}};
  tiles.cols = {k.plan.mrows, "M-tile", {}};
  tiles.k_shards = k.plan.k_rnd;
  tiles.k_shard_size = k.plan.kfit;
  tiles.plan = "wvSplitKrc N_p2=" + std::to_string(k.plan.np2) + " GrpsShrB=" + std::to_string(k.plan.grps) +
               " CHUNKK=" + std::to_string(k.plan.chunkk) + " k_rnd=" + std::to_string(k.plan.k_rnd);
  dsv4::oracle::JudgeOptions jo;
  jo.poison = dsv4::oracle::PoisonPattern::primary;
  const dsv4::oracle::JudgeResult r = dsv4::oracle::judge(op, k.c, ref, got, jo, &tiles);
  std::vector<int> cntr(std::size_t(k.plan.m_tiles), -1);
  if (hipMemcpy(cntr.data(), k.cntr, sizeof(int) * cntr.size(), hipMemcpyDeviceToHost) != hipSuccess) return false;
  int stale = 0;
  for (int v : cntr) stale += v != 0;
  const dsv4::oracle::Verdict& v = r.outputs.at(0);
  std::printf("%s %s bias=%s N=%d K=%d M=%d seed=%llu (%s, readback %d B in one pass): %s, %lld of %lld outside%s\n",
              r.pass && !stale ? "PASS" : "FAIL", k.dtype.c_str(), k.bias.c_str(), k.N, k.K, k.M, k.seed,
              tiles.plan.c_str(), k.plan.readback_bytes_one_pass(), r.pass ? "oracle pass" : "oracle FAIL",
              (long long)v.failed, (long long)v.checked, stale ? ", counters not reset" : "");
  if (!r.pass) {
    std::printf("  oracle localisation: %s\n", v.where.summary.c_str());
    std::printf("  failing N-tiles:");
    for (auto t : v.where.row_tiles) std::printf(" %lld", (long long)t);
    std::printf("  (rows %s)\n", dsv4::oracle::compact_ranges(v.where.rows).c_str());
    for (std::size_t i = 0; i < v.worst.size() && i < 4; ++i)
      std::printf("  worst out[%lld,%lld] = %.8g, reference %.8g, bound %.3g\n", (long long)v.worst[i].index[0],
                  (long long)v.worst[i].index[1], v.worst[i].actual, v.worst[i].expected, v.worst[i].bound);
  }
  hipFree(k.a);
  hipFree(k.b);
  if (k.bias_d) hipFree(k.bias_d);
  hipFree(k.out);
  hipFree(k.ws);
  hipFree(k.cntr);
  return r.pass && !stale;
}

// One case on the null stream. 0 pass, 1 mismatch, 3 HIP error.
int run_one(Case k) {
  if (!prepare(k)) return 3;
  if (launch(k, nullptr) != hipSuccess) return 3;
  const hipError_t sync = hipDeviceSynchronize();  // a finding fails it; the outputs are still judged
  if (sync != hipSuccess) std::printf("hipDeviceSynchronize: %s\n", hipGetErrorName(sync));
  const bool ok = judge(k);
  return sync != hipSuccess ? 3 : ok ? 0 : 1;
}

}  // namespace splitk_harness

int main(int argc, char** argv) {
  using namespace splitk_harness;
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // one line per grid point as it finishes
  dsv4::oracle::require_default_policies(dsv4::Registry::instance());
  const std::string mode = argc > 1 ? argv[1] : "";
  auto dtype_ok = [](const std::string& d) { return d == "bf16" || d == "fp16"; };
  if (mode == "run" && argc == 8 && dtype_ok(argv[2]) && (std::string(argv[3]) == "none" || std::string(argv[3]) == "m")) {
    Case k;
    k.dtype = argv[2];
    k.bias = argv[3];
    k.N = std::atoi(argv[4]);
    k.K = std::atoi(argv[5]);
    k.M = std::atoi(argv[6]);
    k.seed = std::strtoull(argv[7], nullptr, 0);
    return run_one(k);
  }
  if (mode == "grid" && (argc == 4 || argc == 5)) {
    const unsigned long long seed = std::strtoull(argv[2], nullptr, 0);
    const int stride = std::atoi(argv[3]), offset = argc == 5 ? std::atoi(argv[4]) : 0;
    if (stride < 1) return 2;
    const int Ns[] = {13, 16, 17, 25, 29, 31, 32, 41, 51, 64, 71, 81, 91, 103, 117, 128};
    const int Ks[] = {2880, 2888, 3072, 3080, 5248, 10368};
    const int Ms[] = {128, 144, 256, 272, 640, 656};
    const char* dts[] = {"bf16", "fp16"};
    const char* biases[] = {"none", "m"};
    int i = 0, ran = 0, failed = 0, skipped = 0, worst = 0;
    for (int N : Ns)
      for (int K : Ks)
        for (int M : Ms)
          for (const char* dt : dts)
            for (const char* bs : biases) {
              if (i++ % stride != offset) continue;
              Case k;
              k.dtype = dt;
              k.bias = bs;
              k.N = N;
              k.K = K;
              k.M = M;
              k.seed = seed + std::size_t(i);
              if (!splitk_plan(N, K, M, cu_count()).ok) {  // CuNeeded > CU: the dispatch sends it elsewhere
                std::printf("SKIP %s bias=%s N=%d K=%d M=%d: %s\n", dt, bs, N, K, M, splitk_plan(N, K, M, cu_count()).why);
                ++skipped;
                continue;
              }
              const int rc = run_one(k);
              ++ran;
              if (rc) ++failed;
              if (rc > worst) worst = rc;
            }
    std::printf("%s: %d of %d grid points failed, %d not eligible (seed %llu)\n", failed ? "FAIL" : "PASS", failed,
                ran, skipped, seed);
    return worst;
  }
  if (mode == "streams" && argc == 7 && dtype_ok(argv[2])) {
    Case k[2];
    for (int s = 0; s < 2; ++s) {
      k[s].dtype = argv[2];
      k[s].bias = "m";
      k[s].N = std::atoi(argv[3]);
      k[s].K = std::atoi(argv[4]);
      k[s].M = std::atoi(argv[5]);
      k[s].seed = std::strtoull(argv[6], nullptr, 0) + s;
      if (!prepare(k[s])) return 3;
    }
    hipStream_t st[2];
    if (hipStreamCreate(&st[0]) != hipSuccess || hipStreamCreate(&st[1]) != hipSuccess) return 3;
    for (int s = 0; s < 2; ++s)
      if (launch(k[s], st[s]) != hipSuccess) return 3;
    const hipError_t sync = hipDeviceSynchronize();
    if (sync != hipSuccess) std::printf("hipDeviceSynchronize: %s\n", hipGetErrorName(sync));
    bool ok = true;
    for (int s = 0; s < 2; ++s) ok = judge(k[s]) && ok;
    return sync != hipSuccess ? 3 : ok ? 0 : 1;
  }
  std::fprintf(stderr,
               "usage: %s run bf16|fp16 none|m N K M SEED | grid SEED STRIDE [OFFSET] | streams bf16|fp16 N K M SEED\n",
               argv[0]);
  return 2;
}
