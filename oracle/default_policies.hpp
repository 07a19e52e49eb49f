// Default oracle policies of every op, with the reasoning, written in one place
// (default_policies.cpp) and installed into the registry's descriptors by name. Ops still
// registered as placeholders (absent from the registry) are skipped; outputs a descriptor declares
// but the table does not name get a dtype-based default that says so in its rationale.
#pragma once
#include <string>
#include <vector>

#include "reference/registry/registry.hpp"

namespace dsv4::oracle {

struct DefaultPolicy {
  std::string op, output;
  OracleSpec spec;               // the default
  // When spec is error-bound and the descriptor has no error model yet, this applies instead.
  OracleSpec without_error_model;
};

const std::vector<DefaultPolicy>& default_policy_table();

// The default for an output not named in the table: exact for integer and fp8/e8m0 outputs (raw
// codes, quantized values, indices), allclose with PyTorch's dtype default for wider floats.
OracleSpec fallback_policy(DType t);

// Installs defaults into every registered descriptor. An OracleSpec the descriptor already holds is
// kept unless overwrite. Returns "op.output: policy" lines of what was installed.
std::vector<std::string> install_default_policies(Registry& r, bool overwrite = false);

}  // namespace dsv4::oracle
