// Kernel registry: how generic tools (check, repro, fuzz, zoo, verify) run "the kernel under test"
// for an op on the backend this build was configured with, without a per-op switch.
//
// A kernel runner takes a validated OpCase and output tensors that the CALLER allocated (shaped like
// the reference outputs) and poisoned; it copies inputs to the device, launches through its plan,
// copies results back into those tensors, and returns its plan as data (grid, LDS per phase against
// capacity, workspace bytes, shard counts, tile map) so that the oracle can localise failures
// (kernels never include oracle/: the tile map travels as JSON, see tile_map_from_plan in oracle/).
//
// Plan JSON convention (all keys optional): {"kernel": "...", "grid": [x,y,z], "block": [x,y,z],
//  "lds_bytes": {"phase": bytes, ...}, "lds_capacity": bytes, "workspace_bytes": n, "k_shards": n,
//  "k_shard_size": n, "tile_map": {"output": "out", "row_tile": n, "row_name": "N-tile",
//  "col_tile": n, "col_name": "M-tile"}, "text": "one line for humans"}.
//
// Each entry also offers the plan sweeps of the device kernels it launches (plan_sweep.hpp), which the AMD budget
// check (`dsv4check kernels`) matches against the code objects; an entry without one is an error the tests report.
//
// Registration is explicit: kernels/builtin_kernels.cpp calls register_<op>_kernel() for each kernel.
#pragma once
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kernels/plan_sweep.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::kernels {

struct RunOptions {
  std::string arch;             // arch profile name ("gfx950", "gfx942", "sm_90"); empty = the device's / sim default
  std::string variant = "default";  // a buggy variant for the bug zoo; never the default
  std::uint64_t seed = 0;       // sim scheduler seed (random schedules)
  int repeats = 1;              // launches of the same case (determinism checks)
};

// Thrown by a runner when the kernel's plan refuses the case (can_implement false): the case lies
// outside the kernel's declared limits, which is not a kernel failure. Fuzzing counts it as a discard.
struct CannotImplement : InputError {
  using InputError::InputError;
};

using KernelRunner = std::function<Json(const OpCase& c, Outputs& outputs, const RunOptions& o)>;

struct KernelEntry {
  std::string op;
  std::string summary;
  std::vector<std::string> variants;  // "default" first, then buggy variants (bug zoo)
  KernelRunner run;
  // Shapes (the op's generator shape JSON) for `dsv4check check` on this backend; small on sim.
  std::vector<Json> check_shapes;
  // One per device kernel it launches (required; kernels/<op>/*_plan_sweep.cpp).
  std::vector<PlanSweep> plan_sweeps;
  // Optional: moves a campaign shape of the op's fuzz space (OpDescriptor::fuzz) onto this kernel's plan boundaries
  // (sizes where its dispatch numbers change); the fuzzer applies it to every campaign shape it draws.
  std::function<Json(std::mt19937_64& rng, Json shape)> onto_plan_boundaries;
};

class KernelRegistry {
 public:
  static KernelRegistry& instance();
  void add(KernelEntry e);
  const KernelEntry* find(const std::string& op) const;  // nullptr when no kernel exists for op
  std::vector<const KernelEntry*> all() const;
  // Device kernels that no registry op runs (dequant_fp8, tested against the format decoders directly) offer their
  // plan sweeps here.
  void add_plan_sweeps_without_op(std::vector<PlanSweep> s);
  // Every plan sweep: the entries' and those without an op.
  std::vector<const PlanSweep*> plan_sweeps() const;

 private:
  std::vector<KernelEntry> entries_;
  std::vector<PlanSweep> without_op_;
};

// The backend this library was built for: "sim", "cuda" or "hip".
const char* backend_name();

}  // namespace dsv4::kernels
