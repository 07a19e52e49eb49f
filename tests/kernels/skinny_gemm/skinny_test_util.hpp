// Test helpers for the skinny GEMM: random host cases (raw bf16/fp16 codes encoded through the reference Tensor,
// NaN in the padding of a's rows), an independent float64 reference loop, device upload, and a per-row checker
// with a fp32-accumulation error bound (a global allclose would dilute errors confined to a few rows).
#pragma once
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <random>
#include <string>
#include <vector>

#include "kernels/port/runtime.hpp"
#include "kernels/skinny_gemm/skinny_gemm.hpp"
#include "reference/tensor/tensor.hpp"

namespace dsv4::test::skinny {

namespace sk = dsv4::kernels::skinny;

inline DType dtype_of(sk::ElemType t) { return t == sk::ElemType::bf16 ? DType::BF16 : DType::F16; }

struct HostCase {
  sk::SkinnyShape shape;
  std::vector<std::uint16_t> a, b, bias;  // codes; a is N x lda (padding = NaN)
  std::vector<double> af, bf, biasf;      // decoded values (a: N x K dense)
};

// Encodes doubles to codes of dtype (RNE through Tensor::set) and returns the decoded values alongside.
inline std::vector<std::uint16_t> encode(DType t, const std::vector<double>& v, std::vector<double>* decoded) {
  Tensor x = Tensor::empty(t, {static_cast<std::int64_t>(v.size())});
  std::vector<std::uint16_t> codes(v.size());
  if (decoded) decoded->resize(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    x.set_linear(static_cast<std::int64_t>(i), v[i]);
    codes[i] = static_cast<std::uint16_t>(x.code_linear(static_cast<std::int64_t>(i)));
    if (decoded) (*decoded)[i] = x.get_linear(static_cast<std::int64_t>(i));
  }
  return codes;
}

inline HostCase make_case(const sk::SkinnyShape& s, std::mt19937_64& rng) {
  HostCase c;
  c.shape = s;
  const DType t = dtype_of(s.dtype);
  std::normal_distribution<double> nd(0.0, 1.0);
  const std::int64_t lda = s.row_stride_a();
  std::vector<double> a(static_cast<std::size_t>(s.n * s.k)), b(static_cast<std::size_t>(s.m * s.k));
  for (auto& x : a) x = nd(rng);
  const double bs = 1.0 / std::sqrt(static_cast<double>(s.k));
  for (auto& x : b) x = nd(rng) * bs;
  const std::vector<std::uint16_t> a_dense = encode(t, a, &c.af);
  c.b = encode(t, b, &c.bf);
  const std::uint16_t nan_code = s.dtype == sk::ElemType::bf16 ? 0x7fc0 : 0x7e00;
  c.a.assign(static_cast<std::size_t>(s.n * lda), nan_code);
  for (std::int64_t n = 0; n < s.n; ++n)
    for (std::int64_t k = 0; k < s.k; ++k) c.a[n * lda + k] = a_dense[n * s.k + k];
  std::size_t nb = 0;
  if (s.bias == sk::BiasShape::m || s.bias == sk::BiasShape::one_m) nb = s.m;
  if (s.bias == sk::BiasShape::nm) nb = s.n * s.m;
  std::vector<double> bias(nb);
  for (auto& x : bias) x = nd(rng);
  c.bias = encode(t, bias, &c.biasf);
  return c;
}

// float64 reference of ops.md §6 plus, per element, S = sum |a·b| + |bias| (the scale of the fp32 error).
struct RefResult {
  std::vector<double> out, scale;
};
inline RefResult reference(const HostCase& c) {
  const auto& s = c.shape;
  RefResult r;
  r.out.assign(static_cast<std::size_t>(s.n * s.m), 0.0);
  r.scale.assign(r.out.size(), 0.0);
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t m = 0; m < s.m; ++m) {
    const double* bm = &c.bf[static_cast<std::size_t>(m * s.k)];
    for (std::int64_t n = 0; n < s.n; ++n) {
      const double* an = &c.af[static_cast<std::size_t>(n * s.k)];
      double acc = 0, sc = 0;
      for (std::int64_t k = 0; k < s.k; ++k) {
        const double p = an[k] * bm[k];
        acc += p;
        sc += std::fabs(p);
      }
      double bias = 0;
      if (s.bias == sk::BiasShape::m || s.bias == sk::BiasShape::one_m) bias = c.biasf[m];
      if (s.bias == sk::BiasShape::nm) bias = c.biasf[n * s.m + m];
      r.out[n * s.m + m] = acc + bias;
      r.scale[n * s.m + m] = sc + std::fabs(bias);
    }
  }
  return r;
}

// One unit in the last place of the output format at |x| (bf16: 8 significant bits, fp16: 11, min subnormal).
inline double ulp_of(sk::ElemType t, double x) {
  const int mant = t == sk::ElemType::bf16 ? 7 : 10;
  const int min_exp = t == sk::ElemType::bf16 ? -126 : -14;
  int e = x == 0 ? min_exp : std::ilogb(x);
  if (e < min_exp) e = min_exp;
  return std::ldexp(1.0, e - mant);
}

struct RowCheck {
  std::vector<std::int64_t> failing_rows;
  std::int64_t failures = 0;
  std::string first;  // first failing element, described
  bool ok() const { return failures == 0; }
};

// |out - ref| <= 1 ulp(ref) + 2^-18 · S per element; NaN never passes.
inline RowCheck check_rows(const HostCase& c, const RefResult& ref, const std::vector<std::uint16_t>& out) {
  const auto& s = c.shape;
  RowCheck rc;
  Tensor dec = Tensor::from_codes(dtype_of(s.dtype), {s.n * s.m}, std::vector<std::uint64_t>(out.begin(), out.end()));
  for (std::int64_t n = 0; n < s.n; ++n) {
    bool row_bad = false;
    for (std::int64_t m = 0; m < s.m; ++m) {
      const std::size_t i = static_cast<std::size_t>(n * s.m + m);
      const double got = dec.get_linear(static_cast<std::int64_t>(i));
      const double tol = ulp_of(s.dtype, std::fabs(ref.out[i])) + std::ldexp(ref.scale[i], -18);
      if (!(std::fabs(got - ref.out[i]) <= tol)) {
        ++rc.failures;
        if (rc.first.empty())
          rc.first = "out[" + std::to_string(n) + "," + std::to_string(m) + "] = " + std::to_string(got) +
                     " expected " + std::to_string(ref.out[i]) + " (tol " + std::to_string(tol) + ")";
        row_bad = true;
      }
    }
    if (row_bad) rc.failing_rows.push_back(n);
  }
  return rc;
}

// Device copies of a case and an output buffer. An odd `out_offset` / `bias_offset` (elements in front of the data)
// makes that pointer misaligned for 16-byte accesses: the kernels must fall back to narrower accesses there.
struct DeviceCase {
  port::DeviceBuffer a, b, bias, out;
  std::size_t out_off = 0, bias_off = 0;
  explicit DeviceCase(const HostCase& c, std::size_t out_offset = 0, std::size_t bias_offset = 0)
      : a(port::DeviceBuffer::from_host<std::uint16_t>(c.a)),
        b(port::DeviceBuffer::from_host<std::uint16_t>(c.b)),
        out((static_cast<std::size_t>(c.shape.n * c.shape.m) + out_offset) * 2),
        out_off(out_offset),
        bias_off(bias_offset) {
    if (!c.bias.empty()) {
      std::vector<std::uint16_t> padded(bias_offset, 0);
      padded.insert(padded.end(), c.bias.begin(), c.bias.end());
      bias = port::DeviceBuffer::from_host<std::uint16_t>(padded);
    }
    out.memset(0xff);  // poison: NaN codes in both formats
  }
  sk::SkinnyBuffers io() const {
    auto at = [](const port::DeviceBuffer& d, std::size_t off) -> void* {
      return d.data() ? static_cast<unsigned char*>(d.data()) + off * 2 : nullptr;
    };
    return {a.data(), b.data(), at(bias, bias_off), at(out, out_off)};
  }
  std::vector<std::uint16_t> result() const {
    std::vector<std::uint16_t> all = out.to_host<std::uint16_t>();
    all.erase(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(out_off));
    return all;
  }
};

// Issue 6's large simulator case: N=65, K=5248, M=256, bias over M (test_sim_skinny_large checks it,
// bench/kernels/bench_sim_speed times it).
inline sk::SkinnyShape sim_large_case_shape() {
  sk::SkinnyShape s;
  s.n = 65;
  s.m = 256;
  s.k = 5248;
  s.bias = sk::BiasShape::m;
  return s;
}

// One case ready for a single launch of `plan`: device copies of the case and the plan's workspace, initialised.
struct ReadyLaunch {
  const sk::SkinnyPlan& plan;
  DeviceCase d;
  port::DeviceBuffer ws;
  ReadyLaunch(const sk::SkinnyPlan& p, const HostCase& c, port::Stream& st) : plan(p), d(c), ws(p.workspace_bytes) {
    sk::initialize_workspace(plan, ws, st);
    st.synchronize();
  }
  void launch(port::Stream& st) {
    sk::launch_skinny_gemm(plan, d.io(), ws.data(), ws.bytes(), st);
    st.synchronize();
  }
};

// Runs `plan` (admitted) on a fresh random case of its shape through the pool and checks per row; "" when correct.
inline std::string run_plan_and_check(const sk::SkinnyPlan& plan, sk::SkinnyWorkspacePool& pool, port::Stream& st,
                                      std::mt19937_64& rng, std::size_t out_offset = 0,
                                      std::size_t bias_offset = 0) {
  const HostCase c = make_case(plan.shape, rng);
  DeviceCase d(c, out_offset, bias_offset);
  sk::run_skinny_gemm(plan, d.io(), pool, st);
  st.synchronize();
  const RowCheck rc = check_rows(c, reference(c), d.result());
  if (rc.ok()) return "";
  return plan.describe() + ": " + std::to_string(rc.failures) + " mismatches in " +
         std::to_string(rc.failing_rows.size()) + " rows (first " + rc.first + "; rows " +
         std::to_string(rc.failing_rows.front()) + ".." + std::to_string(rc.failing_rows.back()) + ")";
}

// Runs `plan` `runs` times on one random case of its shape through the pool, calling before_run(r) before run r
// (e.g. a new sim schedule) and poisoning the output each time: "" when run 0 matches the float64 reference per row
// and every later run equals it bit for bit, else what differed.
template <class BeforeRun>
inline std::string check_bit_determinism(const sk::SkinnyPlan& plan, int runs, sk::SkinnyWorkspacePool& pool,
                                         port::Stream& st, std::mt19937_64& rng, BeforeRun&& before_run) {
  const HostCase c = make_case(plan.shape, rng);
  DeviceCase d(c);
  std::vector<std::uint16_t> first;
  for (int r = 0; r < runs; ++r) {
    before_run(r);
    d.out.memset(0xff);
    sk::run_skinny_gemm(plan, d.io(), pool, st);
    st.synchronize();
    const auto got = d.result();
    if (r == 0) {
      first = got;
      const RowCheck rc = check_rows(c, reference(c), got);
      if (!rc.ok()) return plan.describe() + ": " + rc.first;
    } else if (got != first) {
      return "run " + std::to_string(r) + " differs bitwise from run 0: " + plan.describe();
    }
  }
  return "";
}

}  // namespace dsv4::test::skinny
