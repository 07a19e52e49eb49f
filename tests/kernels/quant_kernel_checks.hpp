// Shared by the fp8 quantization kernel tests (per_token_group_quant_fp8, per_block_quant_fp8): a one-input
// case, the pass check every such test makes (oracle verdict plus zeroed scale padding rows), and the scale
// recipes of formats.md §5, written out here from the spec rather than read from the code under test.
#pragma once
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "tests/kernels/kernel_case.hpp"

namespace dsv4::test::kern {

inline OpCase one_input_case(const char* name, Tensor t, Json attrs) {
  OpCase c;
  c.inputs[name] = std::move(t);
  c.attrs = std::move(attrs);
  return c;
}

inline void expect_quant_pass(const Checked& r, const std::string& what) {
  EXPECT_TRUE(r.verdict.pass) << what << ": " << r.summary();
  EXPECT_TRUE(r.run.plan.value("scale_padding_rows_zero", false)) << what << ": scale padding rows not zero";
}

inline constexpr const char* kQuantRecipes[] = {"plain-fp32", "dsv4-act", "v3-triton", "vllm-v4-invrope",
                                                "vllm-v4-kv", "dg-ceil",  "tk-ceil",   "flashmla-kv-test"};

}  // namespace dsv4::test::kern
