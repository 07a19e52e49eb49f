// The check that every registered op states its default oracle policies. The policies themselves are data of
// the op's descriptor (OpDescriptor::oracle, set in reference/ops/<op>/descriptor.cpp beside the op's error
// model); the oracle owns the policy vocabulary and admits a descriptor only when, for every output, the policy
// is present, parses, carries its reasoning, and (error-bound) the descriptor registers the bound it needs.
// There is no fallback: a missing policy is an error naming the op and the output.
#pragma once
#include <string>
#include <vector>

#include "reference/registry/registry.hpp"

namespace dsv4::oracle {

// The problems of one descriptor's policies, one line each ("op.output: ..."); empty when admitted.
std::vector<std::string> policy_problems(const OpDescriptor& d);

// Checks every registered descriptor; throws InputError listing every problem. Returns one
// "op.output: policy params" line per output (what the oracle will apply).
std::vector<std::string> require_default_policies(const Registry& r);

}  // namespace dsv4::oracle
