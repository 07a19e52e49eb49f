// Zoo entry 9r, the reverse of entry 9 (known-bugs #17): a block max-reduction written for wave 64 run on
// wave 32. The butterfly's first step (xor 32) has no partner on wave 32, and the cross-wave stage counts
// blockDim/64 waves, so only the even waves' partial maxima are combined: a row whose max lies in an odd
// wave comes out wrong. A small sim kernel (one block per row, |x| max of the row); the correct kernel
// uses the run-time warpSize. Judged exactly by the oracle against the float64 row max.
// sim only (its wave size is switchable); elsewhere the entry is absent.
#include "fuzz/zoo/zoo_detail.hpp"

#if defined(DSV4_BACKEND_SIM)
#include <fmt/format.h>

#include <cmath>
#include <random>

#include "kernels/port/hip_port.hpp"
#include "kernels/port/runtime.hpp"
#include "kernels/port/sim.hpp"

namespace dsv4::fuzz::zoo::detail {

namespace {

__global__ void row_amax_kernel(const float* x, float* out, int cols, int assumed_wave) {
  DSV4_LDS(float, wave_max, 64);
  const int tid = static_cast<int>(threadIdx.x);
  const float* row = x + static_cast<std::size_t>(blockIdx.x) * cols;
  float v = 0.f;
  for (int i = tid; i < cols; i += static_cast<int>(blockDim.x)) v = fmaxf(v, fabsf(row[i]));
  for (int off = assumed_wave / 2; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor(v, off));
  const int waves = static_cast<int>(blockDim.x) / assumed_wave;
  if (tid % assumed_wave == 0) wave_max[tid / assumed_wave] = v;
  __syncthreads();
  if (tid == 0) {
    float m = 0.f;
    for (int w = 0; w < waves; ++w) m = fmaxf(m, wave_max[w]);
    out[blockIdx.x] = m;
  }
}

}  // namespace

std::vector<ZooEntry> wave_reduction_entries() {
  ZooEntry e;
  e.id = "9r";
  e.title = "block reduction assumes wave 64, covers half the block on wave 32";
  e.known_bugs_ref = "known-bugs #17 (reverse)";
  e.enable = "mutant sim kernel row_amax (fuzz/zoo/mutant_wave_reduction.cpp) with wave 64 hard-coded, sim wave 32";
  e.expected = Detector::oracle_localisation;
  e.diagnosis_must_contain = {"FAIL"};
  e.cases.push_back({"max in wave 0 of every row", {{"seed", 1}, {"max_in_wave0", true}}});
  e.cases.push_back({"max anywhere, seed 2", {{"seed", 2}, {"max_in_wave0", false}}});
  e.cases.push_back({"max anywhere, seed 3", {{"seed", 3}, {"max_in_wave0", false}}});
  e.probe = [](const ZooCase& c, bool buggy) {
    const int rows = 8, cols = 512, block = 256;
    std::mt19937_64 rng(c.params["seed"].get<std::uint64_t>());
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::vector<float> x(static_cast<std::size_t>(rows) * cols);
    for (auto& v : x) v = u(rng);
    for (int r = 0; r < rows; ++r) {  // a distinct row max at a chosen thread's element
      const int t = c.params["max_in_wave0"].get<bool>() ? static_cast<int>(rng() % 32) : static_cast<int>(rng() % block);
      x[static_cast<std::size_t>(r) * cols + t + block * static_cast<int>(rng() % 2)] = (rng() % 2 ? 1.f : -1.f) * (4.f + static_cast<float>(r));
    }
    const port::sim::Options saved = port::sim::options();
    port::sim::Options so = saved;
    so.wave_size = 32;
    port::sim::set_options(so);
    std::vector<float> y;
    try {
      port::DeviceBuffer dx = port::DeviceBuffer::from_host<float>(x);
      port::DeviceBuffer dy(rows * 4u);
      port::Stream s;
      port::LaunchConfig cfg{port::Dim3(rows), port::Dim3(block), 0, &s, buggy ? "row_amax<wave64>" : "row_amax",
                             {port::reads(dx.data(), x.size() * 4, "x"), port::writes(dy.data(), rows * 4u, "out")}};
      port::launch(row_amax_kernel, cfg, dx.as<const float>(), dy.as<float>(), cols, buggy ? 64 : 32);
      s.synchronize();
      y = dy.to_host<float>();
    } catch (...) {
      (void)port::sim::take_report();
      port::sim::set_options(saved);
      throw;
    }
    (void)port::sim::take_report();
    port::sim::set_options(saved);
    Tensor exp = Tensor::empty(DType::F32, {rows, 1}), act = Tensor::empty(DType::F32, {rows, 1});
    for (int r = 0; r < rows; ++r) {
      double m = 0;
      for (int i = 0; i < cols; ++i) m = std::max(m, std::fabs(static_cast<double>(x[static_cast<std::size_t>(r) * cols + i])));
      exp.set({r, 0}, m);
      act.set({r, 0}, y[r]);
    }
    Probe p;
    add_verdict_findings(judge_mutant("zoo_row_amax", {{"amax", exp}}, {{"amax", act}},
                                      {"exact", Json::object(), "a max is exact"}),
                         Detector::oracle_localisation, p);
    return p;
  };
  return {e};
}

}  // namespace dsv4::fuzz::zoo::detail

#else
namespace dsv4::fuzz::zoo::detail {
std::vector<ZooEntry> wave_reduction_entries() { return {}; }
}  // namespace dsv4::fuzz::zoo::detail
#endif
