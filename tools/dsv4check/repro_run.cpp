// dsv4check repro; see repro_run.hpp.
#include "tools/dsv4check/repro_run.hpp"

#include <random>

#include <fmt/format.h>

#include "fuzz/harness/repro_line.hpp"
#include "fuzz/harness/under_test.hpp"
#include "oracle/judge.hpp"
#include "oracle/report.hpp"
#include "reference/io/fixture.hpp"
#include "reference/registry/registry.hpp"
#include "reference/registry/shape_check.hpp"
#include "tools/dsv4check/usage_error.hpp"
#include "tools/dsv4check/fixture_verify.hpp"
#include "tools/dsv4check/kernel_runner.hpp"

namespace dsv4::cli {

void apply_set_code(OpCase& c, const std::string& a) {
  const std::size_t colon = a.find(':'), eq = a.find('=');
  if (colon == std::string::npos || eq == std::string::npos || eq < colon)
    throw UsageError(fmt::format("--set-code '{}' is not of the form NAME:INDEX=CODE", a));
  const std::string name = a.substr(0, colon);
  auto it = c.inputs.find(name);
  if (it == c.inputs.end() || !it->second.defined())
    throw UsageError(fmt::format("--set-code '{}': the generated case has no input '{}'", a, name));
  std::uint64_t index = 0, code = 0;
  try {
    std::size_t used = 0;
    const std::string is = a.substr(colon + 1, eq - colon - 1), cs = a.substr(eq + 1);
    index = std::stoull(is, &used, 10);
    if (used != is.size()) throw std::invalid_argument(is);
    code = std::stoull(cs, &used, 0);
    if (used != cs.size()) throw std::invalid_argument(cs);
  } catch (const std::logic_error&) {
    throw UsageError(fmt::format("--set-code '{}': INDEX and CODE must be unsigned integers (CODE may be 0x hex)", a));
  }
  Tensor& t = it->second;
  if (index >= static_cast<std::uint64_t>(t.numel()))
    throw UsageError(fmt::format("--set-code '{}': index {} is outside input '{}' ({} elements)", a, index, name, t.numel()));
  if (t.element_bytes() < 8 && code >> (8 * t.element_bytes()))
    throw UsageError(fmt::format("--set-code '{}': code {:#x} does not fit a {}-byte element", a, code, t.element_bytes()));
  t.set_code_linear(static_cast<std::int64_t>(index), code);
}

std::string repro_command(const ReproOptions& o) {
  return fuzz::repro_line({.op = o.op, .shape = o.shape, .dtype = o.dtype, .attrs = o.attrs, .backend = o.backend,
                           .arch = o.arch, .variant = o.variant, .seed = o.seed, .streams = o.streams,
                           .set_codes = o.set_codes});
}

int run_repro(const ReproOptions& o, std::ostream& out) {
  ensure_default_policies();
  fuzz::prepare_registry();  // fuzz generator layer: shape keys values=..., attr.*=... (fuzz/generators/)
  const OpDescriptor& d = Registry::instance().get(o.op);
  if (!d.generate) throw UsageError(fmt::format("op '{}' has no input generator registered yet", o.op));
  if (o.streams < 1) throw UsageError("--streams must be at least 1");
  KernelRunOptions ko;
  ko.backend = o.backend;
  ko.streams = o.streams;
  ko.seed = o.seed;
  ko.variant = o.variant;
  if (!o.arch.empty()) {
    ko.arch = port::parse_arch(o.arch);
    if (!ko.arch) throw UsageError(fmt::format("--arch '{}' is not one of gfx942, gfx950, sm_90", o.arch));
  }
  const KernelRunnerFn& runner = find_kernel_runner(d, o.backend);

  Json shape = o.shape;
  if (!o.dtype.empty()) shape["dtype"] = o.dtype;
  check_shape(d, shape);  // unknown fields and tensors too large for memory, before anything is allocated
  std::mt19937_64 rng(o.seed);
  OpCase c = d.generate(rng, shape);
  for (auto it = o.attrs.begin(); it != o.attrs.end(); ++it) c.attrs[it.key()] = *it;
  for (auto& a : o.set_codes) apply_set_code(c, a);
  validate_case(d, c);

  out << "repro: " << repro_command(o) << "\n";
  out << "case:";
  for (auto& [n, t] : c.inputs) out << " " << n << "=" << describe(t);
  out << "\n  attrs: " << c.attrs.dump() << "\n";

  KernelRun run = runner(d, c, ko);
  Outputs expected = d.reference(c);
  out << "backend: " << o.backend << (o.arch.empty() ? "" : " (" + o.arch + ")") << "\n";
  out << format_plan(run.plan);
  for (auto& n : run.notes) out << "note: " << n << "\n";

  oracle::JudgeOptions jo;
  jo.poison = run.poison;
  Outputs judged;
  for (auto& [n, t] : run.outputs) {
    if (!expected.count(n)) throw InputError(fmt::format("the kernel produced output '{}', which the reference does not", n));
    judged[n] = expected.at(n);
  }
  oracle::JudgeResult r = oracle::judge(d, c, judged, run.outputs, jo, run.tiles ? &*run.tiles : nullptr);
  out << oracle::text_report(r);
  if (o.backend != "reference") out << run.sim_findings.text();

  if (!o.save.empty()) {
    io::Fixture f;
    f.op = d.name;
    for (auto it = c.attrs.begin(); it != c.attrs.end(); ++it)
      if (!it->is_null()) f.attrs[it.key()] = *it;
    f.seed = o.seed;
    f.source = repro_command(o);
    f.note = o.note;
    if (!run.sim_findings.empty()) f.sim_findings = run.sim_findings.to_json();
    f.inputs = c.inputs;
    f.outputs = run.outputs;
    io::write_fixture(o.save, f);
    out << "saved fixture: " << o.save << "\n";
  }
  if (!o.heatmap.empty() && !r.outputs.empty()) {
    const oracle::Verdict* v = &r.outputs.front();
    for (auto& x : r.outputs)
      if (!x.pass) { v = &x; break; }
    if (oracle::write_heatmap_png(*v, o.heatmap)) out << "heatmap (" << v->output << "): " << o.heatmap << "\n";
    else out << "heatmap: output '" << v->output << "' has no error map; nothing written\n";
  }
  return r.pass ? 0 : 1;
}

}  // namespace dsv4::cli
