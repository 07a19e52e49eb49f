// KernelRunner: how `repro` (and later `check`) runs "the kernel under test" of an op on a backend, without a
// per-op switch. A runner takes a validated OpCase and returns the outputs it produced, plus, when the kernel
// has one, its plan (as JSON, for printing: grid, block, LDS bytes against capacity, workspace) and the tile
// map the oracle uses for localisation.
//
// Backends: "reference" exists for every op that has a reference: it runs the float64 reference itself as the
// kernel under test (it must always pass; useful to validate fixtures, generators and the CLI). The build's
// backend ("sim", "cuda" or "hip") runs the kernel registered in kernels/kernel_registry.hpp for the op, on
// outputs allocated and poisoned here. Other runners (e.g. a second backend, a wrapper) can be added with
// add_kernel_runner(op, backend, fn) in register_builtin_kernel_runners() (kernel_runners_builtin.cpp).
// Looking up a missing pair throws a UsageError that says "no kernel for op X on backend Y" and lists the
// backends that have one.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/harness/sim_findings.hpp"
#include "kernels/port/arch.hpp"
#include "oracle/poison.hpp"
#include "oracle/tile_map.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::cli {

struct KernelRunOptions {
  std::string backend = "reference";
  std::optional<port::Arch> arch;  // nullopt = the backend's default profile
  std::string variant = "default";  // a kernel's buggy variant (bug zoo); never the default
  int streams = 1;                 // > 1: run the same case on this many streams concurrently (where supported)
  std::uint64_t seed = 0;
};

struct KernelRun {
  Outputs outputs;
  Json plan = nullptr;                        // keys printed by print_plan(); null = no plan
  std::optional<oracle::TileMap> tiles;       // localisation for the oracle
  std::optional<oracle::PoisonPattern> poison;  // the pattern outputs were filled with before the launch
  std::vector<std::string> notes;             // e.g. "--streams ignored: the reference is single-stream"
  fuzz::SimFindings sim_findings;             // the sim executor's findings during the run (sim backend)
};

using KernelRunnerFn = std::function<KernelRun(const OpDescriptor&, const OpCase&, const KernelRunOptions&)>;

// Registers a runner; throws std::logic_error on a duplicate (op, backend).
void add_kernel_runner(const std::string& op, const std::string& backend, KernelRunnerFn fn);
// The runner for (op, backend): "reference" for any op with a reference, else a registered one. Throws
// UsageError naming the op, the backend and the backends that do have a kernel for the op.
const KernelRunnerFn& find_kernel_runner(const OpDescriptor& d, const std::string& backend);
// Backends with a runner for op d ("reference" first when the op has a reference).
std::vector<std::string> kernel_backends(const OpDescriptor& d);

// The oracle's tile map from a kernel plan's "tile_map" entry (kernels/kernel_registry.hpp convention).
std::optional<oracle::TileMap> tile_map_from_plan(const Json& plan);

// Human-readable plan: one "key: value" line per entry, with "lds_bytes" shown against "lds_capacity".
std::string format_plan(const Json& plan);

}  // namespace dsv4::cli
