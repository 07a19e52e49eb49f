// RapidCheck generators over the per-op generator specs (header-only: only test executables link
// RapidCheck). A generated value is a case SEED; the shape and the case are functions of it, so a
// counterexample is reproduced by its CaseSpec alone (`dsv4check repro --op OP --shape ... --seed S`,
// see repro_command in fuzz/campaign/case_exec.hpp). Shrinking therefore acts on the seed only.
#pragma once
#include <rapidcheck.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <random>
#include <string>

#include "fuzz/campaign/case_exec.hpp"
#include "fuzz/generators/op_generators.hpp"
#include "fuzz/harness/under_test.hpp"
#include "reference/registry/registry.hpp"

namespace dsv4::fuzz {
// How RapidCheck prints a counterexample case (found by ADL).
inline void showValue(const CaseSpec& c, std::ostream& os) {
  os << c.op << " seed " << c.seed << " shape " << c.shape.dump();
}
}  // namespace dsv4::fuzz

namespace dsv4::fuzz::rcgen {

// The shape engine is seeded apart from the case engine (as in the campaign).
inline std::uint64_t shape_seed(std::uint64_t case_seed) { return case_seed ^ 0x5a5a5a5a5a5a5a5aull; }

inline rc::Gen<std::uint64_t> case_seeds() {
  return rc::gen::inRange<std::uint64_t>(0, std::uint64_t{1} << 62);
}

// The spec's shape for a case seed (with its "values" knob; fixed to `values` when given).
inline Json shape_for(const OpGenSpec& spec, std::uint64_t seed, ShapeScale scale,
                      std::optional<ValueDist> values = std::nullopt) {
  std::mt19937_64 r(shape_seed(seed));
  return draw_spec_shape(spec, r, scale, values);
}

inline rc::Gen<Json> shape(const std::string& op, ShapeScale scale, std::optional<ValueDist> values = std::nullopt) {
  prepare_registry();
  const OpGenSpec* spec = find_gen_spec(op);
  if (!spec) throw InputError("no fuzz generator spec for op '" + op + "'");
  return rc::gen::map(case_seeds(), [spec, scale, values](std::uint64_t s) { return shape_for(*spec, s, scale, values); });
}

// The case spec (op, seed, shape) a seed stands for.
inline CaseSpec case_spec(const std::string& op, std::uint64_t seed, ShapeScale scale,
                          std::optional<ValueDist> values = std::nullopt) {
  CaseSpec c;
  c.op = op;
  c.seed = seed;
  c.shape = shape_for(*find_gen_spec(op), seed, scale, values);
  return c;
}

inline rc::Gen<CaseSpec> case_specs(const std::string& op, ShapeScale scale, std::optional<ValueDist> values = std::nullopt) {
  prepare_registry();
  if (!find_gen_spec(op)) throw InputError("no fuzz generator spec for op '" + op + "'");
  return rc::gen::map(case_seeds(), [op, scale, values](std::uint64_t s) { return case_spec(op, s, scale, values); });
}

// The OpCase of a case spec, through the registry's (wrapped) generator, as the campaign draws it.
inline OpCase generate_case(const CaseSpec& c) {
  prepare_registry();
  std::mt19937_64 r(c.seed);
  return Registry::instance().get(c.op).generate(r, c.shape);
}

inline rc::Gen<OpCase> op_cases(const std::string& op, ShapeScale scale, std::optional<ValueDist> values = std::nullopt) {
  return rc::gen::map(case_specs(op, scale, values), [](const CaseSpec& c) { return generate_case(c); });
}

}  // namespace dsv4::fuzz::rcgen
