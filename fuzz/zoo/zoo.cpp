// The zoo's runner: entry list, detection loop (buggy until the expected detector fires), the clean run
// over the same cases, and the shared judging helpers (probe_kernel, judge_mutant).
#include "fuzz/zoo/zoo.hpp"

#include <fmt/format.h>

#include <chrono>
#include <random>

#include "fuzz/harness/under_test.hpp"
#include "fuzz/zoo/zoo_detail.hpp"
#include "kernels/port/sim.hpp"
#include "oracle/report.hpp"
#include "reference/registry/registry.hpp"

namespace dsv4::fuzz::zoo {

const char* detector_name(Detector d) {
  switch (d) {
    case Detector::oracle_localisation: return "oracle-localisation";
    case Detector::lds_violation: return "lds-violation";
    case Detector::race_report: return "race-report";
    case Detector::nan_placement: return "nan-placement";
    case Detector::plan_property: return "plan-property";
    case Detector::exact_bits: return "exact-bits";
    case Detector::guard_page: return "guard-page";
    case Detector::sim_report: return "sim-report";
    case Detector::probe_error: return "probe-error";
  }
  return "?";
}

bool Probe::has(Detector d) const {
  for (const auto& f : findings)
    if (f.detector == d) return true;
  return false;
}

std::string Probe::text() const {
  std::string s;
  for (const auto& f : findings) s += (s.empty() ? "" : " | ") + std::string(detector_name(f.detector)) + ": " + f.diagnosis;
  return s;
}

Json ZooResult::to_json() const {
  Json j;
  j["id"] = id;
  j["title"] = title;
  j["known_bugs"] = known_bugs_ref;
  j["enable"] = enable;
  j["expected_detector"] = detector_name(expected);
  j["caught"] = caught;
  j["detectors"] = Json::array();
  for (auto d : detectors) j["detectors"].push_back(detector_name(d));
  j["cases_until_detection"] = cases_until_detection;
  j["cases_total"] = cases_total;
  j["seconds"] = seconds;
  j["diagnosis"] = diagnosis;
  j["diagnosis_ok"] = diagnosis_ok;
  j["clean_checked"] = clean_checked;
  j["false_alarm"] = false_alarm;
  j["false_alarm_text"] = false_alarm_text;
  j["clean_seconds"] = clean_seconds;
  return j;
}

const std::vector<ZooEntry>& entries() {
  static const std::vector<ZooEntry> all = [] {
    std::vector<ZooEntry> v;
    for (auto&& part : {detail::skinny_entries(), detail::stream_entries(), detail::kernel_entries(),
                        detail::wave_reduction_entries(),
                        detail::format_entries(), detail::preload_entries(), detail::attention_entries(),
                        detail::attention_kernel_entries(), detail::quant_kernel_entries(),
                        detail::hipsim_entries()})
      for (auto& e : part) v.push_back(e);
    return v;
  }();
  return all;
}

const ZooEntry* find_entry(const std::string& id) {
  for (const auto& e : entries())
    if (e.id == id) return &e;
  return nullptr;
}

namespace {
Probe safe_probe(const ZooEntry& e, const ZooCase& c, bool buggy) {
  try {
    return e.probe(c, buggy);
  } catch (const std::exception& ex) {
    Probe p;
    p.findings.push_back({Detector::probe_error, std::string("probe threw: ") + ex.what()});
    return p;
  }
}
double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

namespace {
ZooResult header(const ZooEntry& e) {
  ZooResult r;
  r.id = e.id;
  r.title = e.title;
  r.known_bugs_ref = e.known_bugs_ref;
  r.enable = e.enable;
  r.expected = e.expected;
  r.cases_total = static_cast<int>(e.cases.size());
  return r;
}
void clean_run(const ZooEntry& e, ZooResult& r) {
  r.clean_checked = true;
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& c : e.cases) {
    const Probe p = safe_probe(e, c, false);
    if (p.alarm()) {
      r.false_alarm = true;
      r.false_alarm_text = "case " + c.label + ": " + p.text();
      break;
    }
  }
  r.clean_seconds = since(t0);
}
}  // namespace

ZooResult run_clean(const ZooEntry& e) {
  ZooResult r = header(e);
  clean_run(e, r);
  return r;
}

ZooResult run_entry(const ZooEntry& e, bool check_clean) {
  ZooResult r = header(e);
  auto t0 = std::chrono::steady_clock::now();
  std::string first_alarm;
  for (std::size_t i = 0; i < e.cases.size(); ++i) {
    const Probe p = safe_probe(e, e.cases[i], true);
    if (p.alarm() && first_alarm.empty()) first_alarm = "case " + e.cases[i].label + ": " + p.text();
    if (p.has(e.expected)) {
      r.caught = true;
      r.cases_until_detection = static_cast<int>(i + 1);
      for (const auto& f : p.findings) r.detectors.push_back(f.detector);
      r.diagnosis = "case " + e.cases[i].label + ": " + p.text();
      break;
    }
  }
  r.seconds = since(t0);
  if (!r.caught) r.diagnosis = first_alarm.empty() ? "no alarm on any case" : first_alarm;
  r.diagnosis_ok = r.caught;
  for (const auto& s : e.diagnosis_must_contain)
    if (r.diagnosis.find(s) == std::string::npos) r.diagnosis_ok = false;
  if (check_clean) clean_run(e, r);
  return r;
}

namespace detail {

void add_verdict_findings(const oracle::JudgeResult& r, Detector value_detector, Probe& p) {
  for (const auto& v : r.outputs) {
    if (v.pass) continue;
    const auto cnt = [&](const char* k) { auto it = v.counts.find(k); return it == v.counts.end() ? 0 : it->second; };
    const std::int64_t nan_inf = cnt("nan_mismatch") + cnt("inf_mismatch");
    const std::string line = oracle::summary_line(v);
    if (nan_inf > 0)
      p.findings.push_back({Detector::nan_placement, fmt::format("{} NaN/Inf placement mismatches (NaN {}, Inf {}) in {}; {}",
                                                                 nan_inf, cnt("nan_mismatch"), cnt("inf_mismatch"),
                                                                 v.output, line)});
    if (v.failed > nan_inf) p.findings.push_back({value_detector, line});
  }
}

oracle::JudgeResult judge_mutant(const std::string& name, const Outputs& expected, const Outputs& actual,
                                 const OracleSpec& spec) {
  OpDescriptor d;
  d.name = name;
  for (const auto& [n, t] : expected) {
    d.outputs.push_back({n, {t.dtype()}, "", false, ""});
    d.oracle[n] = spec;
  }
  return oracle::judge(d, OpCase{}, expected, actual);
}

Probe probe_kernel(const std::string& op, const Json& shape, std::uint64_t seed, const std::string& variant, int wave) {
  prepare_registry();
  const OpDescriptor* d = Registry::instance().find(op);
  if (!d) throw InputError("zoo: op '" + op + "' is not registered");
  std::mt19937_64 rng(seed);
  OpCase c = d->generate(rng, shape);
  validate_case(*d, c);
  const Outputs expected = d->reference(c);
  UnderTestOptions o;
  o.backend = kernels::backend_name();
  o.variant = variant;
  const bool sim = port::sim::sim_active();
  const port::sim::Options saved = port::sim::options();
  if (sim && wave) {
    port::sim::Options so = saved;
    so.wave_size = wave;
    port::sim::set_options(so);
  }
  if (sim) (void)port::sim::take_report();
  UnderTestRun run;
  try {
    run = run_under_test(*d, c, expected, o);
  } catch (...) {
    if (sim) port::sim::set_options(saved);
    throw;
  }
  Probe p;
  if (sim) {
    const port::sim::Report rep = port::sim::take_report();
    port::sim::set_options(saved);
    const auto oor = rep.of_kind(port::sim::ViolationKind::lds_out_of_range);
    if (!oor.empty())
      p.findings.push_back({Detector::lds_violation,
                            fmt::format("{} LDS out-of-range accesses, first: {}", rep.count(port::sim::ViolationKind::lds_out_of_range),
                                        oor.front().to_string())});
  }
  oracle::JudgeOptions jo;
  jo.poison = run.poison;
  const oracle::TileMap* tiles = run.tiles ? &*run.tiles : nullptr;
  add_verdict_findings(oracle::judge(*d, c, expected, run.outputs, jo, tiles), Detector::oracle_localisation, p);
  return p;
}

}  // namespace detail
}  // namespace dsv4::fuzz::zoo
