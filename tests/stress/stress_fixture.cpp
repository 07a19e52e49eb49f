// Stress fixture implementation; see stress_fixture.hpp.
#include "tests/stress/stress_fixture.hpp"

#include <cmath>

#include "kernels/port/sim.hpp"
#include "oracle/default_policies.hpp"
#include "oracle/judge.hpp"
#include "oracle/report.hpp"
#include "reference/formats/format.hpp"
#include "reference/registry/registry.hpp"

namespace dsv4::test::stress {

std::string skip_reason() {
  const bool sim = port::backend() == port::Backend::sim;
  if (kGpuVariant) {
    if (sim) return "gpu stress variant: this build is the sim backend (the sim variant runs in test_stress_sim)";
    if (!port::device_available()) return port::device_unavailable_reason();
    return {};
  }
  if (!sim) return "sim stress variant: this build is a device backend (run test_stress_gpu)";
  return {};
}

const Scale& scale() {
  // sim: small K so 100 interleaved launches stay within seconds; gpu: production-like K and more work.
  static const Scale sim{4, 25, 512, 1024, 32, 48, 60.0};
  static const Scale gpu{8, 200, 4096, 7168, 256, 2048, 120.0};
  return kGpuVariant ? gpu : sim;
}

sk::SkinnyShape shape(std::int64_t n, std::int64_t m, std::int64_t k, sk::ElemType t, sk::BiasShape b) {
  sk::SkinnyShape s;
  s.n = n;
  s.m = m;
  s.k = k;
  s.dtype = t;
  s.bias = b;
  return s;
}

namespace {
// oracle::judge of a skinny GEMM output against dsv4::run_reference under the op's own error model (dense a only).
std::string oracle_verdict(const HostCase& h, const std::vector<std::uint16_t>& out) {
  Registry& reg = Registry::instance();
  const OpDescriptor* d = reg.find("skinny_gemm");
  if (!d) return "skinny_gemm is not registered";
  static const bool installed = (oracle::require_default_policies(reg), true);
  (void)installed;
  const auto& s = h.shape;
  const DType t = skinny::dtype_of(s.dtype);
  auto tensor = [&](std::vector<std::int64_t> shape, const std::vector<std::uint16_t>& codes) {
    return Tensor::from_codes(t, std::move(shape), std::vector<std::uint64_t>(codes.begin(), codes.end()));
  };
  std::vector<std::uint16_t> a_dense(static_cast<std::size_t>(s.n * s.k));
  for (std::int64_t n = 0; n < s.n; ++n)
    for (std::int64_t k = 0; k < s.k; ++k) a_dense[n * s.k + k] = h.a[n * s.row_stride_a() + k];
  OpCase c;
  c.inputs["a"] = tensor({s.n, s.k}, a_dense);
  c.inputs["b"] = tensor({s.m, s.k}, h.b);
  if (s.bias == sk::BiasShape::m) c.inputs["bias"] = tensor({s.m}, h.bias);
  if (s.bias == sk::BiasShape::nm) c.inputs["bias"] = tensor({s.n, s.m}, h.bias);
  if (s.bias == sk::BiasShape::one_m) c.inputs["bias"] = tensor({1, s.m}, h.bias);
  const Outputs expected = run_reference("skinny_gemm", c);
  const oracle::JudgeResult r = oracle::judge(*d, c, expected, Outputs{{"out", tensor({s.n, s.m}, out)}});
  return r.pass ? std::string() : "oracle: " + oracle::text_report(r);
}
}  // namespace

GemmCase::GemmCase(const sk::SkinnyShape& s, std::mt19937_64& rng, sk::SkinnyVariant v)
    : GemmCase(skinny::make_case(s, rng), v) {}

GemmCase::GemmCase(HostCase h, sk::SkinnyVariant v)
    : plan(sk::make_plan(h.shape, port::device_profile(), {v, 0})), host(std::move(h)), dev(host) {
  if (!plan.ok) throw std::runtime_error("stress case not admitted: " + plan.reason);
  port::DeviceBuffer ws(std::max(plan.workspace_bytes, sk::kCounterRegionBytes));
  port::Stream solo_stream;
  sk::initialize_workspace(plan, ws, solo_stream);
  sk::launch_skinny_gemm(plan, dev.io(), ws.data(), ws.bytes(), solo_stream);
  solo_stream.synchronize();
  solo = dev.result();
  dev.out.memset(0xff);
  const skinny::RowCheck rc = skinny::check_rows(host, skinny::reference(host), solo);
  if (!rc.ok()) solo_error = rc.first;
  if (solo_error.empty()) solo_error = oracle_verdict(host, solo);
}

sk::SkinnyBuffers GemmCase::io(void* out, const void* a) const {
  sk::SkinnyBuffers b = dev.io();
  b.out = out;
  if (a) b.a = a;
  return b;
}

void check_output(const GemmCase& c, const std::vector<std::uint16_t>& got, const std::string& where,
                  std::vector<std::string>& failures) {
  if (got != c.solo) {
    std::size_t diff = 0;
    for (std::size_t i = 0; i < got.size() && i < c.solo.size(); ++i) diff += got[i] != c.solo[i];
    failures.push_back(where + ": differs from the single-stream result in " + std::to_string(diff) + " of " +
                       std::to_string(got.size()) + " elements [" + c.plan.describe() + "]");
    return;
  }
  // Bitwise equal to solo: the float64 verdict is solo's, checked once when the case was made.
  if (!c.solo_error.empty()) failures.push_back(where + ": outside the fp32-accumulation bound vs float64: " + c.solo_error);
}

QuantCase::QuantCase(std::int64_t m, std::int64_t k, std::mt19937_64& rng) {
  namespace q = dsv4::kernels::quant;
  q::QuantShape sh;
  sh.m = m;
  sh.k = k;
  plan = q::make_quant_plan(sh, port::device_profile());
  if (!plan.ok) throw std::runtime_error("quant stress case not admitted: " + plan.reason);
  std::normal_distribution<double> nd(0.0, 1.0);
  std::vector<double> v(static_cast<std::size_t>(m * k));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = nd(rng) * (1.0 + static_cast<double>(i % 7));  // varied groups
  x = skinny::encode(DType::BF16, v, &xf);
  dx = port::DeviceBuffer::from_host<std::uint16_t>(x);
  port::DeviceBuffer dq(q_bytes()), ds(plan.scale_bytes);
  port::Stream st;
  launch(dq.data(), ds.data(), st);
  st.synchronize();
  solo_q = dq.to_host<std::uint8_t>();
  solo_s = ds.to_host<float>();
  std::vector<std::string> f;
  check_quant(*this, solo_q, solo_s, "single-stream quant", f);
  if (!f.empty()) solo_error = f.front();
}

void QuantCase::launch(void* q, void* scales, port::Stream& s) const {
  dsv4::kernels::quant::launch_per_token_group_quant_fp8(plan, {dx.data(), q, scales}, s);
}

void check_quant(const QuantCase& c, const std::vector<std::uint8_t>& q, const std::vector<float>& scales,
                 const std::string& where, std::vector<std::string>& failures) {
  if (!c.solo_q.empty() && (q != c.solo_q || scales != c.solo_s)) {
    failures.push_back(where + ": quant codes or scales differ from the single-stream result [" + c.plan.describe() +
                       "]");
    return;
  }
  if (!c.solo_error.empty()) {
    failures.push_back(where + ": " + c.solo_error);
    return;
  }
  // float64 check: per group s = amax/448 (to fp32 rounding) and |decode(q)·s - x| <= 2^-4·|x| + s·2^-9.
  const auto fmt = c.plan.fp8 == dsv4::kernels::quant::Fp8::e4m3fn ? formats::Format::e4m3fn : formats::Format::e4m3fnuz;
  const std::int64_t m = c.plan.shape.m, k = c.plan.shape.k, gs = c.plan.options.group_size;
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t g = 0; g * gs < k; ++g) {
      double amax = 0;
      for (std::int64_t j = g * gs; j < std::min(k, (g + 1) * gs); ++j) amax = std::max(amax, std::fabs(c.xf[r * k + j]));
      const double s = scales[static_cast<std::size_t>(r * c.plan.scale_ld + g)];
      const double want = std::max(amax, 1e-10) / c.plan.elem_max;
      if (!(std::fabs(s - want) <= want * 1e-6)) {
        failures.push_back(where + ": scale[" + std::to_string(r) + "," + std::to_string(g) + "] = " +
                           std::to_string(s) + " expected " + std::to_string(want));
        return;
      }
      for (std::int64_t j = g * gs; j < std::min(k, (g + 1) * gs); ++j) {
        const double x = c.xf[r * k + j], got = formats::decode(fmt, q[static_cast<std::size_t>(r * k + j)]) * s;
        if (!(std::fabs(got - x) <= std::ldexp(std::fabs(x), -4) + std::ldexp(s, -9))) {
          failures.push_back(where + ": x_q[" + std::to_string(r) + "," + std::to_string(j) + "]·s = " +
                             std::to_string(got) + " vs x = " + std::to_string(x));
          return;
        }
      }
    }
}

HostCase chained_case(const sk::SkinnyShape& s, const std::vector<std::uint16_t>& a_codes, std::mt19937_64& rng) {
  HostCase c = skinny::make_case(s, rng);
  c.a = a_codes;
  const DType t = skinny::dtype_of(s.dtype);
  Tensor dec = Tensor::from_codes(t, {static_cast<std::int64_t>(a_codes.size())},
                                  std::vector<std::uint64_t>(a_codes.begin(), a_codes.end()));
  for (std::size_t i = 0; i < c.af.size(); ++i) c.af[i] = dec.get_linear(static_cast<std::int64_t>(i));
  return c;
}

void random_schedule(std::uint64_t seed) {
  if (!port::sim::sim_active()) return;
  port::sim::Options o = port::sim::options();
  o.schedule = port::sim::Schedule::random;
  o.seed = seed;
  o.preempt_global = true;     // switch threads at global loads/stores too: the most interleaving sim offers
  o.max_blocks_in_flight = 8;  // blocks of launches from several streams interleave
  o.fail_on_violation = true;  // an LDS hazard/out-of-range/deadlock fails the launch (Error at the next sync)
  port::sim::set_options(o);
}

}  // namespace dsv4::test::stress
