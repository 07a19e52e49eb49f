// Test helper of the issue-7 quantization kernel tests (per_block_quant_fp8, inv_rope_fp8_quant): like
// kern::run_and_judge (tests/kernels/kernel_case.hpp: poisoned outputs, runner path, default oracle
// policy, written-check, tile map) but with an arch profile for the runner (RunOptions.arch: "gfx942" / "gfx950" /
// "sm_90"), plus an exact code-by-code comparison for outputs whose default policy allows a tolerance.
#pragma once
#include <cmath>
#include <string>

#include "tests/kernels/kernel_case.hpp"

namespace dsv4::test::kern {

inline Checked run_and_judge_arch(const std::string& op, OpCase c, const std::string& arch,
                                  const std::string& variant = "default") {
  const OpDescriptor& d = descriptor(op);
  validate_case(d, c);
  Checked r;
  r.expected = d.reference(c);
  fuzz::UnderTestOptions o;
  o.backend = kernels::backend_name();
  o.arch = arch;
  o.variant = variant;
  r.run = fuzz::run_under_test(d, c, r.expected, o);
  oracle::JudgeOptions jo;
  jo.poison = r.run.poison;
  r.verdict = oracle::judge(d, c, r.expected, r.run.outputs, jo, r.run.tiles ? &*r.run.tiles : nullptr);
  r.c = std::move(c);
  return r;
}

// Elements of output `out` whose raw codes differ from the reference's (logical indexing, any strides). Two NaN
// codes count as equal: the sign of a NaN that arithmetic creates (inf - inf in a rotation, 0 * inf) is the
// platform's, not the contract's (x86's default NaN is negative, NVIDIA's canonical NaN positive; seen on the H200
// as e4m3fn 0xFF vs 0x7F), and the oracle already requires NaN exactly where the reference has NaN.
inline std::int64_t code_mismatches(const Checked& r, const std::string& out) {
  const Tensor& a = r.run.outputs.at(out);
  const Tensor& b = r.expected.at(out);
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < b.numel(); ++i) {
    if (a.code_linear(i) == b.code_linear(i)) continue;
    bad += !(std::isnan(a.get_linear(i)) && std::isnan(b.get_linear(i)));
  }
  return bad;
}

}  // namespace dsv4::test::kern
