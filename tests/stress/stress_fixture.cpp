// Stress fixture implementation; see stress_fixture.hpp.
#include "tests/stress/stress_fixture.hpp"

#include "kernels/port/sim.hpp"

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
  const skinny::RowCheck rc = skinny::check_rows(c.host, skinny::reference(c.host), got);
  if (!rc.ok()) failures.push_back(where + ": outside the fp32-accumulation bound vs float64: " + rc.first);
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
  port::sim::set_options(o);
}

}  // namespace dsv4::test::stress
