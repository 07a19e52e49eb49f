// make_skinny_case (skinny_case.hpp): a skinny_gemm case, its float64 reference and error bound as plain vectors.
#include "tests/hipsim/skinny_case.hpp"

#include <cstring>
#include <random>
#include <string>

#include "reference/registry/registry.hpp"

namespace dsv4::hipsim_test {

namespace {
std::vector<std::uint16_t> codes(const dsv4::Tensor& t) {
  std::vector<std::uint16_t> v(static_cast<std::size_t>(t.numel()));
  std::memcpy(v.data(), t.data(), v.size() * 2);
  return v;
}
}  // namespace

SkinnyCase make_skinny_case(int N, int K, int M, const char* dtype, const char* bias, unsigned long long seed) {
  const dsv4::OpDescriptor& op = dsv4::Registry::instance().get("skinny_gemm");
  std::mt19937_64 rng(seed);
  const dsv4::OpCase c = op.generate(rng, dsv4::Json{{"N", N}, {"K", K}, {"M", M}, {"dtype", dtype}, {"bias", bias}});
  const dsv4::Outputs ref = dsv4::run_reference("skinny_gemm", c);
  const auto bound = op.error_bound(c, ref).at("out");
  SkinnyCase s;
  s.a = codes(c.in("a"));
  s.b = codes(c.in("b"));
  if (std::string(bias) != "none") s.bias = codes(c.in("bias"));
  s.want.reserve(std::size_t(N) * M);
  s.tol.reserve(std::size_t(N) * M);
  for (int n = 0; n < N; ++n)
    for (int m = 0; m < M; ++m) {
      s.want.push_back(ref.at("out").get({n, m}));
      s.tol.push_back(bound.get({n, m}));
    }
  return s;
}

}  // namespace dsv4::hipsim_test
