// The op registry's descriptor: one per op, in the spirit of PyTorch's OpInfo. Every generic tool
// (oracle, fuzz, fixtures, verify/repro/check/zoo, generic tests) works through descriptors and has
// no per-op switch. Argument and attribute names are exactly those of ../shared/spec/ops.md.
//
// Adding an op = one descriptor (reference/ops/<op>/descriptor.cpp, registering through register_<op>() listed in
// builtin_ops.cpp) with its reference function, generator, default shapes, fuzz space and default oracle policies;
// see "Where a new op goes" in docs/ARCHITECTURE.md. tests/reference/registry/test_descriptors.cpp checks them all.
#pragma once
#include <functional>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reference/registry/fuzz_space.hpp"
#include "reference/tensor/tensor.hpp"

namespace dsv4 {

using Json = nlohmann::json;

// Bad input to a reference or a tool: names the op, the argument or attribute, and the rule broken.
struct InputError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// One invocation of an op: named input tensors (ops.md names) and attributes (a JSON object).
struct OpCase {
  std::map<std::string, Tensor> inputs;
  Json attrs = Json::object();

  bool has(const std::string& name) const { return inputs.count(name) && inputs.at(name).defined(); }
  const Tensor& in(const std::string& name) const;  // throws InputError naming the missing argument
};

using Outputs = std::map<std::string, Tensor>;

struct ArgSpec {
  std::string name;
  std::vector<DType> dtypes;  // admitted dtypes
  std::string shape;          // the shape rule as in ops.md, e.g. "[s_q, h_q, d_qk]"
  bool optional = false;
  std::string note;
  bool nonfinite = false;     // outputs: the contract admits +-inf/NaN here (e.g. the lse of an empty row)
};

struct AttrSpec {
  std::string name;
  Json default_value;                // null = no default (required) unless optional
  std::string doc;
  std::vector<std::string> choices;  // for string attributes: the admitted values
  bool optional = false;             // may be absent/null (e.g. output_scale)
};

// Default oracle policy for one output, set by the op's descriptor: policy name (the oracle's vocabulary, see
// oracle/policy.hpp), its parameters and the reasoning from the op's error model (error_model.md beside the
// descriptor). Every output must have one: oracle::require_default_policies rejects a descriptor without.
struct OracleSpec {
  std::string policy;  // "exact", "ulp", "allclose", "error-bound", "cosine", "topk-set", ...
  Json params = Json::object();
  std::string rationale;
};

// Input generator: makes one case for a shape description (a JSON object of named sizes such as
// {"s_q": 4, "h_q": 64, ...}) from a seeded engine. Used by `check`, `repro` and the fuzzers.
using Generator = std::function<OpCase(std::mt19937_64& rng, const Json& shape)>;

struct OpDescriptor {
  std::string name;      // registry name = ops.md section name
  std::string summary;   // one line
  std::string contract;  // pointer into ops.md, e.g. "ops.md §2"
  std::vector<ArgSpec> inputs;
  std::vector<ArgSpec> outputs;
  std::vector<AttrSpec> attrs;
  std::function<Outputs(const OpCase&)> reference;  // float64 math, outputs rounded once
  std::map<std::string, OracleSpec> oracle;          // by output name; one per output (required)
  Generator generate;                                 // required: check, repro, fuzz and the generic tests use it
  std::vector<Json> default_shapes;                   // shapes `dsv4check check` runs
  FuzzSpace fuzz;                                     // required: shape space, value inputs, specials (fuzz_space.hpp)
  // Optional error-model bound for the error-bound policy: per-output, per-element bound given the
  // case (filled where the op has a model). Returns a tensor of bounds shaped like the output.
  std::function<std::map<std::string, Tensor>(const OpCase&, const Outputs& expected)> error_bound;

  const ArgSpec* find_input(const std::string& n) const;
  const ArgSpec* find_output(const std::string& n) const;
  const AttrSpec* find_attr(const std::string& n) const;
};

// Fills defaults into c.attrs, rejects unknown attributes, wrong JSON types and values outside
// `choices`, checks every required input is present with an admitted dtype, and rejects unknown
// input names. Throws InputError naming the op and the argument or attribute.
void validate_case(const OpDescriptor& d, OpCase& c);

}  // namespace dsv4
