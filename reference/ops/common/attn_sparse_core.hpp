// The float64 core shared by sparse_mla_prefill and sparse_mla_decode: softmax attention of the h
// query rows of one token over n gathered key rows (V = the first d_v columns of each key row), with
// an optional attention sink, exactly as ops.md §2 "Math":
//   P = scale * Q K^T; max_logits = max_j P; lse = ln sum_j exp(P)
//   lse_o = sink ? logaddexp(lse, sink[h]) : lse;  out = sum_j exp(P - lse_o) V_j
//   no key row, or sum_j exp(P - max) == 0: out = 0, lse = +inf, max_logits = -inf (the kernels' rL == 0)
// The sink never changes lse or max_logits. Contractions are Eigen float64 GEMMs.
#pragma once
#include <cstdint>
#include <vector>

namespace dsv4::attn {

struct CoreOptions {
  double scale = 1.0;
  const float* sink = nullptr;  // [h] or null
  // Kernel-intermediate model (off by default): round exp(P - max) to bf16 before the PV product
  // while the normaliser sum stays unrounded, as FlashMLA's SM90 prefill does.
  bool p_bf16 = false;
};

// q: h x d_qk row-major; k: n x d_qk row-major (V = k[:, :d_v]). Writes out (h x d_v row-major),
// max_logits (h) and lse (h), natural-log units. `work` is scratch reused between calls.
void attend_rows(const double* q, int h, int d_qk, const double* k, std::int64_t n, int d_v, const CoreOptions& o,
                 double* out, double* max_logits, double* lse, std::vector<double>& work);

// Work split for the op loops: (token, head block) items, enough of them to keep every OpenMP thread
// busy when there are few tokens (decode, s_q = 1) without blocks smaller than 8 heads. Each item
// gathers its token's rows and runs one GEMM; Eigen runs serially inside the parallel region.
struct HeadSplit {
  std::int64_t blocks;  // head blocks per token
  std::int64_t size;    // heads per block (the last may be smaller)
};
HeadSplit head_split(std::int64_t tokens, std::int64_t h, int threads);

// log(exp(a) + exp(b)) with the infinities handled exactly (-inf is the identity, NaN propagates).
double logaddexp(double a, double b);

// Round to bf16 (RNE) and back to float64.
double round_to_bf16(double x);

}  // namespace dsv4::attn
