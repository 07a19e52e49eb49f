// Host helpers shared by the two indexer kernel-registry runners: int32 tensors as int64 for range checks, the
// fp8 format of q, the padded logits buffer (caller's poisoned codes at the logical positions, 0xA5 bytes in the
// row padding; kernels/runner_support.hpp's WordLayout) and the plan JSON fields both runners report.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/indexer_logits/indexer_plan.hpp"
#include "kernels/kernel_registry.hpp"
#include "kernels/runner_support.hpp"

namespace dsv4::kernels::indexer {

// Int32 tensor elements as int64 (for host-side range checks).
std::vector<std::int64_t> int_values(const Tensor& t);

// The fp8 format of a q tensor (its dtype); throws InputError naming `op` for anything else.
Fp8 fp8_of(const Tensor& q, const char* op);

// Logits [rows, width] F32 (the caller's poisoned tensor) laid out with row_stride; padding words 0xA5A5A5A5.
WordLayout padded_logits(const Tensor& out, std::int64_t row_stride);

// The plan JSON fields common to both runners (kernel, grid, block, LDS phases, tile map, text).
Json common_plan_json(const CommonPlan& plan, const char* kernel, const std::string& text);

}  // namespace dsv4::kernels::indexer
