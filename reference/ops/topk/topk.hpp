// Float64 reference of `topk` (indexer top-k, ops.md §5) and the set-contract checker.
// Contract (set semantics with ties): with L = row positions in [row_starts, row_ends) whose logit is
// > −inf, a valid answer holds min(topk, |L|) distinct indices S ⊆ L with min(logits[S]) ≥
// max(logits[L \ S]), every other slot −1, order unspecified. The reference returns one valid answer
// (value-descending, ties by ascending index). Variant masked:select_neg_inf (DeepSeek's torch.topk
// demo) fills the slots after S with masked positions of [0, C) \ L instead of −1.
#pragma once
#include <cstdint>
#include <string>

#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops {

Outputs topk_reference(const OpCase& c);
OpDescriptor topk_descriptor();

struct TopkConventions {
  std::string index_base = "absolute";  // or "row_relative" (index − row_starts[r])
  std::string masked = "minus1";        // or "select_neg_inf"
  double tie_tolerance = 0;             // min(S) ≥ max(L \ S) − tie_tolerance (vLLM tests use 1e-5)
};

struct TopkCheck {
  bool ok = true;
  std::int64_t row = -1;  // first failing row
  std::int64_t slot = -1; // failing slot when one is identifiable
  std::string reason;     // human-readable rule broken
};

// Decides whether `candidate` [R, topk] (I32 or I64) satisfies the ops.md §5 contract for these
// inputs. Does not throw on a wrong candidate (returns ok=false with the reason); throws InputError
// for inconsistent inputs (shapes, NaN in a valid range).
TopkCheck check_topk_set(const Tensor& logits, const Tensor& row_starts, const Tensor& row_ends, std::int64_t topk,
                         const Tensor& candidate, const TopkConventions& conv = {});

}  // namespace dsv4::ops
