// Descriptor of op 'skinny_gemm' (ops.md §6): arguments, attributes, reference, generator, default
// shapes and the error-model bound. The generator draws a ~ N(0,1), b ~ N(0,1)/sqrt(K), bias ~ N(0,1);
// with "Kap" > K the activation rows are padded and the padding holds NaN, so a kernel that reads
// past K in a row poisons its output.
#include <cmath>

#include "reference/ops/common/gemm_random.hpp"
#include "reference/ops/skinny_gemm/skinny_gemm.hpp"
#include "reference/registry/registry.hpp"
#include "reference/registry/shape_check.hpp"

namespace dsv4::ops {
FuzzSpace skinny_gemm_fuzz_space();  // fuzz_space.cpp
}  // namespace dsv4::ops

namespace dsv4 {
namespace ops {

namespace {
OpCase generate_skinny_gemm(std::mt19937_64& rng, const Json& shape) {
  const std::int64_t N = gemm::shape_int(shape, "N", -1, 1);
  const std::int64_t K = gemm::shape_int(shape, "K", -1, 8);
  const std::int64_t M = gemm::shape_int(shape, "M", -1, 1);
  const std::int64_t Kap = gemm::shape_int(shape, "Kap", K, K);
  const DType dt = gemm::parse_dtype_name(gemm::shape_str_field(shape, "dtype", "bf16"));
  const std::string bias = gemm::shape_str_field(shape, "bias", "none");
  OpCase c;
  Tensor a_store = Tensor::empty(dt, {N, Kap});
  a_store.fill(std::nan(""));
  Tensor a = a_store.as_strided({N, K}, {Kap, 1}, 0);
  gemm::fill_randn(a, rng, 1.0);
  c.inputs["a"] = a;
  c.inputs["b"] = gemm::randn(dt, {M, K}, rng, 1.0 / std::sqrt(static_cast<double>(K)));
  if (bias == "m") c.inputs["bias"] = gemm::randn(dt, {M}, rng, 1.0);
  else if (bias == "nm") c.inputs["bias"] = gemm::randn(dt, {N, M}, rng, 1.0);
  else if (bias == "1m") c.inputs["bias"] = gemm::randn(dt, {1, M}, rng, 1.0);
  else if (bias != "none") throw InputError("skinny_gemm generator: shape field 'bias' must be none, m, nm or 1m");
  return c;
}
}  // namespace

OpDescriptor skinny_gemm_descriptor() {
  OpDescriptor d;
  d.name = "skinny_gemm";
  d.summary = "out[N,M] = a[N,K]·b[M,K]^T + bias, bf16/fp16, fp32 accumulation, one output rounding";
  d.contract = "ops.md §6";
  d.inputs = {
      {"a", {DType::BF16, DType::F16}, "[N, K]", false, "row stride Kap >= K allowed; last dim contiguous; K % 8 == 0"},
      {"b", {DType::BF16, DType::F16}, "[M, K]", false, "same dtype as a"},
      {"bias", {DType::BF16, DType::F16}, "[M], [N, M] or [1, M]", true, "same dtype as a; added once after the reduction"},
  };
  d.outputs = {{"out", {DType::BF16, DType::F16}, "[N, M]", false, "dtype of a"}};
  d.reference = skinny_gemm_reference;
  d.error_bound = skinny_gemm_error_bound;
  d.generate = generate_skinny_gemm;
  set_shape_fields(d.name, {"N", "K", "M", "Kap", "dtype", "bias"});
  d.fuzz = ops::skinny_gemm_fuzz_space();
  d.default_shapes = {
      Json{{"N", 13}, {"K", 520}, {"M", 32}, {"dtype", "bf16"}, {"bias", "none"}},
      Json{{"N", 17}, {"K", 528}, {"M", 48}, {"Kap", 536}, {"dtype", "bf16"}, {"bias", "m"}},
      Json{{"N", 10}, {"K", 264}, {"M", 16}, {"dtype", "fp16"}, {"bias", "nm"}},
      Json{{"N", 3}, {"K", 64}, {"M", 24}, {"Kap", 72}, {"dtype", "fp16"}, {"bias", "1m"}},
  };
  // Default oracle policies (one per output) with their reasoning: error_model.md beside this file or the
  // anchor suite of ops.md. oracle::require_default_policies rejects an output without one.
  d.oracle["out"] = {"error-bound", {{"multiple", 1}},
      "error_model.md: gamma_(K+1) (sum |a b| + |bias|) + one output ulp, a rigorous worst case for any fp32 summation "
      "order, so no margin. Note (tests/oracle/test_dropped_shard.cpp): this worst-case bound, like vLLM's atol "
      "1e-3/rtol 1e-2, misses a dropped narrow tail K-shard at large K on xnorm inputs; the probabilistic bound "
      "(oracle/error_models.hpp) catches it"};
  return d;
}

}  // namespace ops

void register_skinny_gemm(Registry& r) { r.add(ops::skinny_gemm_descriptor()); }

}  // namespace dsv4
