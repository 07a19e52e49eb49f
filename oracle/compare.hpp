// compare(): applies one policy to one output (actual vs expected) and returns its Verdict.
// Common to every value policy (exact, ulp, allclose, error-bound, cosine):
//  - shapes and dtypes must be equal (InputError otherwise, never a pass);
//  - special values: the positions of NaN, +inf and -inf must match the reference exactly (an inf
//    of the wrong sign is an inf mismatch); matching positions are then left out of the numeric
//    comparison (FlashMLA's check_is_allclose rule, ops.md Conventions);
//  - with a poison pattern, elements still holding it are failures of kind `unwritten`;
//  - an all-zero actual output against a reference that is not all zero fails (all_zero_flag).
#pragma once
#include <optional>
#include <string>

#include "oracle/poison.hpp"
#include "oracle/policy.hpp"
#include "oracle/tile_map.hpp"
#include "oracle/verdict.hpp"

namespace dsv4::oracle {

struct CompareContext {
  std::string output_name;                // for messages
  std::string rationale;                  // copied into the verdict
  const Tensor* bound = nullptr;          // error-bound: per-element bound (shape of the output)
  const OpCase* op_case = nullptr;        // topk-set: the logits input (and row_starts, index_base)
  const TileMap* tiles = nullptr;         // localisation
  std::optional<PoisonPattern> poison;    // the pattern the output was filled with before the run
  int worst_count = 8;                    // how many worst elements the verdict keeps
};

Verdict compare(const Tensor& actual, const Tensor& expected, const Policy& policy, const CompareContext& ctx = {});

// Distance in units in the last place between two codes of dtype t (finite, non-NaN values; +0 and
// -0 are distance 0). Integers: |a - e|.
double ulp_distance(DType t, std::uint64_t a, std::uint64_t e);

}  // namespace dsv4::oracle
