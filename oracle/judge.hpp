// judge(): the oracle's entry point. For each output of an op call it applies the output's policy
// (an override if given, else the descriptor's OracleSpec, else an InputError: no output is judged
// by an unstated rule) and returns one Verdict per output plus the overall pass.
#pragma once
#include <map>
#include <optional>
#include <string>

#include "oracle/compare.hpp"
#include "oracle/verdict.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::oracle {

struct JudgeOptions {
  // Per-output policy overrides by output name; the key "*" applies to every output without its own.
  std::map<std::string, OracleSpec> overrides;
  // The pattern the actual outputs were poisoned with before the run (enables the written-check).
  std::optional<PoisonPattern> poison;
  int worst_count = 8;
  // Outputs present in `expected` but judged by nothing (e.g. don't-care scratch): skipped when listed.
  std::vector<std::string> skip;
};

// expected and actual must hold the same output names with equal shapes and dtypes (InputError
// otherwise). The error-bound policy calls d.error_bound(c, expected) once; an op without one is an
// InputError naming the op. `tiles` localises failures (a TileMap with `output` set applies to that
// output only).
JudgeResult judge(const OpDescriptor& d, const OpCase& c, const Outputs& expected, const Outputs& actual,
                  const JudgeOptions& options = {}, const TileMap* tiles = nullptr);

}  // namespace dsv4::oracle
