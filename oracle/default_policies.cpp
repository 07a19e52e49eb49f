// Admission of the descriptors' default policies (see default_policies.hpp).
#include "oracle/default_policies.hpp"

#include <fmt/format.h>

#include "oracle/policy.hpp"

namespace dsv4::oracle {

std::vector<std::string> policy_problems(const OpDescriptor& d) {
  std::vector<std::string> bad;
  for (const ArgSpec& out : d.outputs) {
    const auto it = d.oracle.find(out.name);
    if (it == d.oracle.end()) {
      bad.push_back(fmt::format("{}.{}: no default oracle policy (set d.oracle[\"{}\"] in the op's descriptor)",
                                d.name, out.name, out.name));
      continue;
    }
    const OracleSpec& s = it->second;
    try {
      parse_policy(s);
    } catch (const InputError& e) {
      bad.push_back(fmt::format("{}.{}: {}", d.name, out.name, e.what()));
    }
    if (s.rationale.empty())
      bad.push_back(fmt::format("{}.{}: policy '{}' without its reasoning", d.name, out.name, s.policy));
    if (s.policy == "error-bound" && !d.error_bound)
      bad.push_back(fmt::format("{}.{}: error-bound policy but the descriptor registers no error_bound", d.name,
                                out.name));
  }
  for (const auto& [name, spec] : d.oracle)
    if (!d.find_output(name))
      bad.push_back(fmt::format("{}.{}: a policy for an output the op does not have", d.name, name));
  return bad;
}

std::vector<std::string> require_default_policies(const Registry& r) {
  std::vector<std::string> lines, bad;
  for (const OpDescriptor* d : r.all()) {
    for (std::string& p : policy_problems(*d)) bad.push_back(std::move(p));
    for (const auto& [name, s] : d->oracle)
      lines.push_back(fmt::format("{}.{}: {} {}", d->name, name, s.policy, s.params.dump()));
  }
  if (!bad.empty()) {
    std::string msg = "oracle: default policies not admitted:";
    for (const std::string& b : bad) msg += "\n  " + b;
    throw InputError(msg);
  }
  return lines;
}

}  // namespace dsv4::oracle
