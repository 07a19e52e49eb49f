// Kernel-registry runner of sparse_mla_decode, also callable with explicit tuning (split count, head group, key tile)
// so tests can force one split, many splits or splits without a valid index through the same path as the tools.
#pragma once
#include "kernels/kernel_registry.hpp"
#include "kernels/sparse_mla_decode/smla_plan.hpp"

namespace dsv4::kernels::smla {

// Runs a validated OpCase of op sparse_mla_decode: packs device buffers (caches copied byte for byte, unreferenced
// slots included), poisons the workspace with 0xFF bytes (NaN) so a read of an unwritten partial shows, starts
// `out`/`lse` from the caller's (poisoned) codes, launches o.repeats times and copies the results into `outputs`.
// o.variant overrides tuning.variant. Throws CannotImplement when the plan refuses. Returns the plan as JSON.
Json run_sparse_mla_decode_case(const OpCase& c, Outputs& outputs, const RunOptions& o, SmlaOptions tuning);

}  // namespace dsv4::kernels::smla
