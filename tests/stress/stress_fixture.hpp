// Shared pieces of the stress cases (sim and gpu executables compile the same sources; DSV4_STRESS_GPU selects
// the device variant): the scale of each run, GEMM cases with device buffers, the single-stream bitwise reference
// and the float64 check, and the backend gate.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/port/runtime.hpp"
#include "kernels/quant_fp8/quant_fp8.hpp"
#include "kernels/quant_fp8/quant_plan.hpp"
#include "kernels/skinny_gemm/skinny_gemm.hpp"
#include "tests/kernels/skinny_gemm/skinny_test_util.hpp"

namespace dsv4::test::stress {

namespace port = dsv4::port;
namespace sk = dsv4::kernels::skinny;
using skinny::DeviceCase;
using skinny::HostCase;

#ifdef DSV4_STRESS_GPU
inline constexpr bool kGpuVariant = true;
#else
inline constexpr bool kGpuVariant = false;
#endif

// Why this executable's variant cannot run here (empty: it can).
std::string skip_reason();

struct Scale {
  int streams, iterations;
  std::int64_t k_small, k_large, m_small, m_large;
  double timeout_s;  // per case
};
const Scale& scale();

sk::SkinnyShape shape(std::int64_t n, std::int64_t m, std::int64_t k, sk::ElemType t = sk::ElemType::bf16,
                      sk::BiasShape b = sk::BiasShape::none);

// One GEMM case: plan, host data, device inputs and a single-stream reference output (codes) computed serially
// on its own stream before any stress (the deterministic split-K must reproduce it bit for bit).
struct GemmCase {
  sk::SkinnyPlan plan;
  HostCase host;
  DeviceCase dev;
  std::vector<std::uint16_t> solo;  // single-stream result
  // The verdict on solo, checked once (empty: pass): the per-element fp32-accumulation bound vs float64, then
  // oracle::judge vs dsv4::run_reference under the op's error model.
  std::string solo_error;
  GemmCase(const sk::SkinnyShape& s, std::mt19937_64& rng, sk::SkinnyVariant v = sk::SkinnyVariant::fixed);
  GemmCase(HostCase h, sk::SkinnyVariant v = sk::SkinnyVariant::fixed);
  // io with another output buffer (and optionally another a, e.g. a chain's previous output).
  sk::SkinnyBuffers io(void* out, const void* a = nullptr) const;
  std::size_t out_bytes() const { return static_cast<std::size_t>(host.shape.n * host.shape.m) * 2; }
};

// Appends a failure when `got` differs from the case's single-stream result or from the float64 reference.
void check_output(const GemmCase& c, const std::vector<std::uint16_t>& got, const std::string& where,
                  std::vector<std::string>& failures);

// One per-token-group FP8 quantization case (plain-fp32 recipe, row-major scales): bf16 input [M, K], its
// single-stream codes and scales, and the float64 verdict on them (decode(q)·s within fp8 rounding of x).
struct QuantCase {
  dsv4::kernels::quant::QuantPlan plan;
  std::vector<std::uint16_t> x;  // bf16 codes
  std::vector<double> xf;
  port::DeviceBuffer dx;
  std::vector<std::uint8_t> solo_q;
  std::vector<float> solo_s;
  std::string solo_error;
  QuantCase(std::int64_t m, std::int64_t k, std::mt19937_64& rng);
  std::size_t q_bytes() const { return x.size(); }
  void launch(void* q, void* scales, port::Stream& s) const;
};
void check_quant(const QuantCase& c, const std::vector<std::uint8_t>& q, const std::vector<float>& scales,
                 const std::string& where, std::vector<std::string>& failures);

// A host case whose a is device-produced codes (a chain's second GEMM), b drawn from rng.
HostCase chained_case(const sk::SkinnyShape& s, const std::vector<std::uint16_t>& a_codes, std::mt19937_64& rng);

// Sim: random schedule with this seed, preemption at global accesses, 8 blocks in flight, any sim violation
// failing its launch (inert elsewhere).
void random_schedule(std::uint64_t seed);

}  // namespace dsv4::test::stress
