// Running "the implementation under test" of an op: the kernel of this build's backend (through
// kernels/kernel_registry.hpp) or, with backend "reference", the float64 reference itself (it must
// always pass; it validates generators, fixtures and tools). One place, used by fuzz campaigns,
// `repro`, `check` and the bug zoo, so no tool re-implements poisoning, plan parsing or tile maps.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "fuzz/harness/sim_findings.hpp"
#include "kernels/kernel_registry.hpp"
#include "oracle/poison.hpp"
#include "oracle/tile_map.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::fuzz {

struct UnderTestOptions {
  std::string backend = "reference";  // "reference" or this build's backend ("sim", "cuda", "hip")
  std::string arch;                   // arch profile; empty = backend default
  std::string variant = "default";    // kernel variant (bug zoo); never a buggy one by default
  std::uint64_t seed = 0;             // sim scheduler seed
  int repeats = 1;
};

struct UnderTestRun {
  Outputs outputs;
  Json plan = nullptr;                          // the kernel's plan (null for the reference)
  std::optional<oracle::TileMap> tiles;         // from plan["tile_map"]
  std::optional<oracle::PoisonPattern> poison;  // the pattern the outputs were poisoned with
  SimFindings sim_findings;                     // what the sim executor reported during the run (sim only)
};

// Backends that can run op `op` in this build ("reference" first when the op has a reference).
std::vector<std::string> available_backends(const OpDescriptor& d);

// Runs the implementation under test on a validated case. `expected` gives the output names,
// shapes and dtypes (the kernel writes into poisoned tensors shaped like them). Throws InputError
// when the backend has no kernel for the op (naming what exists). The sim's findings are cleared before
// the kernel runs and collected after it; when the kernel throws, collect_sim_findings() still has them.
UnderTestRun run_under_test(const OpDescriptor& d, const OpCase& c, const Outputs& expected, const UnderTestOptions& o);

// Installs the oracle's default policies and the fuzz generator layer (fuzz/generators/: the "values"
// and "attr.*" shape keys, the per-op shape spaces) into the registry once per process (idempotent).
// Every tool that generates or judges through the registry calls this first.
void prepare_registry();

// Tile map from a plan's "tile_map" object (see kernel_registry.hpp), nullopt when absent.
std::optional<oracle::TileMap> tile_map_from_plan(const Json& plan);

}  // namespace dsv4::fuzz
