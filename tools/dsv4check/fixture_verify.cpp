// dsv4check verify: judging fixtures against the recomputed reference; see fixture_verify.hpp.
#include "tools/dsv4check/fixture_verify.hpp"

#include <fmt/format.h>

#include "fuzz/harness/sim_findings.hpp"
#include "oracle/default_policies.hpp"
#include "oracle/report.hpp"
#include "reference/registry/registry.hpp"

namespace dsv4::cli {

namespace {

std::string indent(const std::string& text) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    out += "  " + text.substr(pos, nl - pos) + "\n";
    pos = nl + 1;
  }
  return out;
}

// The reference outputs named in `names` (InputError naming any the reference does not produce).
Outputs select(const std::string& op, const Outputs& reference, const std::map<std::string, Tensor>& names,
               const std::string& prefix) {
  Outputs r;
  for (auto& [n, t] : names) {
    auto it = reference.find(n);
    if (it == reference.end())
      throw InputError(fmt::format("tensor '{}{}': the reference of '{}' did not produce output '{}' for these "
                                   "inputs and attrs", prefix, n, op, n));
    if (it->second.shape() != t.shape() || it->second.dtype() != t.dtype())
      throw InputError(fmt::format("tensor '{}{}' is {} {}, but the op's output '{}' is {} {} for these inputs", prefix,
                                   n, dtype_name(t.dtype()), shape_str(t.shape()), n, dtype_name(it->second.dtype()),
                                   shape_str(it->second.shape())));
    r[n] = it->second;
  }
  return r;
}

}  // namespace

void ensure_default_policies() {
  static const bool done = [] {
    oracle::require_default_policies(Registry::instance());
    return true;
  }();
  (void)done;
}

FixtureVerdict judge_fixture(const io::Fixture& f, const VerifyOptions& options) {
  ensure_default_policies();
  const OpDescriptor& d = Registry::instance().get(f.op);
  if (f.outputs.empty()) {
    std::string outs;
    for (auto& a : d.outputs) outs += (outs.empty() ? "out." : ", out.") + a.name;
    throw InputError(fmt::format("no out.<output> tensor to verify (the outputs of '{}' are: {})", f.op, outs));
  }
  OpCase c = f.to_case();
  validate_case(d, c);
  if (!d.reference) throw InputError(f.op + ": no reference implementation registered");
  Outputs reference;
  try {
    reference = d.reference(c);
  } catch (const InputError& e) {
    throw InputError(fmt::format("the reference rejects the inputs: {}", e.what()));
  }
  oracle::JudgeOptions jo;
  jo.overrides = options.overrides;
  FixtureVerdict v;
  v.outputs = oracle::judge(d, c, select(f.op, reference, f.outputs, "out."), f.outputs, jo);
  if (!f.expected.empty()) {
    // A trusted golden: the recomputed reference is the "actual" that must agree with it.
    Outputs golden = f.expected;
    v.goldens = oracle::judge(d, c, golden, select(f.op, reference, f.expected, "expected."), jo);
  }
  return v;
}

std::string verdict_text(const std::string& name, const io::Fixture& f, const FixtureVerdict& v) {
  std::string s = (v.pass() ? "PASS " : "FAIL ") + name + " (" + f.op;
  if (!f.source.empty()) s += "; source: " + f.source;
  if (!f.note.empty()) s += "; " + f.note;
  s += ")\n";
  s += indent("outputs under test vs recomputed reference: " + oracle::text_report(v.outputs));
  if (!f.sim_findings.is_null())
    s += indent("recorded when the outputs were made: " + fuzz::SimFindings::from_json(f.sim_findings).text());
  if (v.goldens) s += indent("recomputed reference vs trusted expected.* goldens: " + oracle::text_report(*v.goldens));
  return s;
}

int verify_file(const std::filesystem::path& path, const VerifyOptions& options, std::ostream& out) {
  const std::string name = path.string();
  FixtureVerdict v;
  io::Fixture f;
  try {
    f = io::read_fixture(path);
    v = judge_fixture(f, options);
  } catch (const std::exception& e) {
    std::string msg = e.what();
    if (msg.rfind(name + ": ", 0) == 0) msg = msg.substr(name.size() + 2);  // the path is printed already
    if (options.json) out << Json{{"file", name}, {"verdict", "INVALID"}, {"error", msg}}.dump() << "\n";
    else out << "INVALID " << name << ": " << msg << "\n";
    return 2;
  }
  const bool pass = v.pass();
  if (options.json) {
    Json j{{"file", name}, {"verdict", pass ? "PASS" : "FAIL"}, {"op", f.op}, {"outputs", oracle::to_json(v.outputs)}};
    if (v.goldens) j["goldens"] = oracle::to_json(*v.goldens);
    if (!f.sim_findings.is_null()) j["sim_findings"] = f.sim_findings;
    out << j.dump() << "\n";
  } else {
    out << verdict_text(name, f, v);
  }
  if (!options.heatmap_dir.empty() && !pass) {
    std::filesystem::create_directories(options.heatmap_dir);
    for (const oracle::Verdict& o : v.outputs.outputs) {
      if (o.pass) continue;
      auto png = std::filesystem::path(options.heatmap_dir) / (path.stem().string() + "." + o.output + ".png");
      if (oracle::write_heatmap_png(o, png.string()) && !options.json) out << "  heatmap: " << png.string() << "\n";
    }
  }
  return pass ? 0 : 1;
}

int verify_files(const std::vector<std::string>& paths, const VerifyOptions& options, std::ostream& out) {
  int worst = 0, passed = 0, failed = 0, invalid = 0;
  for (const std::string& p : paths) {
    int rc = verify_file(p, options, out);
    (rc == 0 ? passed : rc == 1 ? failed : invalid)++;
    worst = std::max(worst, rc);
  }
  if (!options.json && paths.size() > 1)
    out << fmt::format("verify: {} files: {} pass, {} fail, {} invalid\n", paths.size(), passed, failed, invalid);
  return worst;
}

}  // namespace dsv4::cli
