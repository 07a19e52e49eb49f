// judge(): per-output policy selection and verdict collection. See judge.hpp.
#include "oracle/judge.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace dsv4::oracle {

JudgeResult judge(const OpDescriptor& d, const OpCase& c, const Outputs& expected, const Outputs& actual,
                  const JudgeOptions& opt, const TileMap* tiles) {
  JudgeResult res;
  res.op = d.name;
  for (auto& [name, t] : actual)
    if (!expected.count(name))
      throw InputError(fmt::format("oracle: {}: actual output '{}' has no expected counterpart", d.name, name));
  for (auto& [name, t] : opt.overrides)
    if (name != "*" && !expected.count(name))
      throw InputError(fmt::format("oracle: {}: override names unknown output '{}'", d.name, name));
  // Judge in the descriptor's output order, then any remaining names alphabetically.
  std::vector<std::string> order;
  for (auto& a : d.outputs) if (expected.count(a.name)) order.push_back(a.name);
  for (auto& [name, t] : expected)
    if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);

  std::optional<std::map<std::string, Tensor>> bounds;
  res.pass = true;
  for (const std::string& name : order) {
    if (std::find(opt.skip.begin(), opt.skip.end(), name) != opt.skip.end()) continue;
    auto it = actual.find(name);
    if (it == actual.end())
      throw InputError(fmt::format("oracle: {}: output '{}' is missing from the actual outputs", d.name, name));
    const OracleSpec* spec = nullptr;
    std::string source;
    if (auto o = opt.overrides.find(name); o != opt.overrides.end()) spec = &o->second, source = "override";
    else if (auto o2 = opt.overrides.find("*"); o2 != opt.overrides.end()) spec = &o2->second, source = "override (*)";
    else if (auto s = d.oracle.find(name); s != d.oracle.end()) spec = &s->second, source = "op default";
    if (!spec)
      throw InputError(fmt::format("oracle: {}: output '{}' has no oracle policy (none in its descriptor and no override)",
                                   d.name, name));
    Policy p = parse_policy(*spec);
    CompareContext ctx;
    ctx.output_name = name;
    ctx.rationale = spec->rationale.empty() ? source : source + ": " + spec->rationale;
    ctx.op_case = &c;
    ctx.poison = opt.poison;
    ctx.worst_count = opt.worst_count;
    if (tiles && (tiles->output.empty() || tiles->output == name)) ctx.tiles = tiles;
    if (p.kind == PolicyKind::error_bound) {
      if (!bounds) {
        if (!d.error_bound)
          throw InputError(fmt::format("oracle: {}: the error-bound policy was asked for output '{}', but the op has no "
                                       "error model (OpDescriptor::error_bound is empty)", d.name, name));
        bounds = d.error_bound(c, expected);
      }
      auto b = bounds->find(name);
      if (b == bounds->end())
        throw InputError(fmt::format("oracle: {}: the op's error model gives no bound for output '{}'", d.name, name));
      ctx.bound = &b->second;
    }
    Verdict v = compare(it->second, expected.at(name), p, ctx);
    res.pass = res.pass && v.pass;
    res.outputs.push_back(std::move(v));
  }
  if (res.outputs.empty()) throw InputError(fmt::format("oracle: {}: no outputs to judge", d.name));
  return res;
}

}  // namespace dsv4::oracle
