// One fuzz case with shrinking and fixture saving; see case_exec.hpp.
#include "fuzz/campaign/case_exec.hpp"

#include <chrono>
#include <filesystem>
#include <random>

#include <fmt/format.h>

#include "fuzz/campaign/shape_space.hpp"
#include "fuzz/harness/repro_line.hpp"
#include "oracle/judge.hpp"
#include "oracle/report.hpp"
#include "reference/io/fixture.hpp"
#include "reference/registry/registry.hpp"

namespace dsv4::fuzz {

const char* status_name(CaseStatus s) {
  switch (s) {
    case CaseStatus::pass: return "pass";
    case CaseStatus::fail: return "fail";
    case CaseStatus::error: return "error";
    case CaseStatus::discard: return "discard";
  }
  return "?";
}

std::optional<CaseStatus> parse_status(const std::string& s) {
  for (CaseStatus c : {CaseStatus::pass, CaseStatus::fail, CaseStatus::error, CaseStatus::discard})
    if (s == status_name(c)) return c;
  return std::nullopt;
}

Json CaseResult::to_json() const {
  return Json{{"op", op}, {"index", index}, {"seed", seed}, {"status", status_name(status)}, {"shape", shape},
              {"original_shape", original_shape}, {"message", message}, {"repro", repro}, {"fixture", fixture},
              {"seconds", seconds}, {"stages", stages.to_json()},
              {"sim_findings", sim_findings.to_json()}};
}

CaseResult CaseResult::from_json(const Json& j) {
  CaseResult r;
  r.op = j.at("op").get<std::string>();
  r.index = j.at("index").get<std::uint64_t>();
  r.seed = j.value("seed", std::uint64_t{0});
  r.status = parse_status(j.at("status").get<std::string>()).value_or(CaseStatus::error);
  r.shape = j.value("shape", Json::object());
  r.original_shape = j.value("original_shape", Json::object());
  r.message = j.value("message", std::string());
  r.repro = j.value("repro", std::string());
  r.fixture = j.value("fixture", std::string());
  r.seconds = j.value("seconds", 0.0);
  r.stages = StageSeconds::from_json(j.value("stages", Json::object()));
  r.sim_findings = SimFindings::from_json(j.value("sim_findings", Json()));
  return r;
}

std::uint64_t case_seed(std::uint64_t campaign_seed, const std::string& op, std::uint64_t index) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : op) h = (h ^ ch) * 1099511628211ull;
  std::uint64_t z = campaign_seed ^ (h * 0x9e3779b97f4a7c15ull) ^ (index * 0xbf58476d1ce4e5b9ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return (z ^ (z >> 31)) & 0x7fffffffffffffffull;  // fits a signed 64-bit JSON integer
}

std::string repro_command(const CaseSpec& c, const UnderTestOptions& o) {
  return repro_line({c.op, c.shape, "", Json::object(), o.backend, o.arch, o.variant, c.seed, 1, {}});
}

namespace {

struct Attempt {
  CaseStatus status = CaseStatus::discard;
  std::string message;
  OpCase c;
  Outputs actual;
  StageSeconds stages;
  SimFindings sim_findings;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

PreparedCase prepare(const OpDescriptor& d, const CaseSpec& spec) {
  const auto t0 = std::chrono::steady_clock::now();
  PreparedCase p;
  std::mt19937_64 rng(spec.seed);
  try {
    p.c = d.generate(rng, spec.shape);
    validate_case(d, p.c);
  } catch (const std::exception& e) {
    p.message = std::string("generator rejected the shape: ") + e.what();
    p.stages.generate = p.seconds = seconds_since(t0);
    return p;  // discard
  }
  p.stages.generate = seconds_since(t0);
  const auto t1 = std::chrono::steady_clock::now();
  try {
    p.expected = d.reference(p.c);
  } catch (const InputError& e) {
    p.message = std::string("reference rejected the case: ") + e.what();
    p.stages.reference = seconds_since(t1);
    p.seconds = p.stages.total();
    return p;  // discard: outside the contract
  }
  p.stages.reference = seconds_since(t1);
  p.ok = true;
  p.seconds = seconds_since(t0);
  return p;
}

Attempt attempt_prepared(const OpDescriptor& d, PreparedCase p, const UnderTestOptions& uo) {
  Attempt a;
  a.message = std::move(p.message);
  a.c = std::move(p.c);
  a.stages = p.stages;
  if (!p.ok) return a;  // discard
  Outputs expected = std::move(p.expected);
  UnderTestRun run;
  const auto t_kernel = std::chrono::steady_clock::now();
  struct StageClock {  // charges the kernel stage on every way out of the try below (before a handler runs)
    double& into;
    std::chrono::steady_clock::time_point t0;
    ~StageClock() { into = seconds_since(t0); }
  };
  try {
    StageClock clock{a.stages.kernel, t_kernel};
    run = run_under_test(d, a.c, expected, uo);
  } catch (const kernels::CannotImplement& e) {
    a.message = std::string("outside the kernel's limits (can_implement): ") + e.what();
    return a;  // discard: the plan refused it before launch, as it must
  } catch (const std::exception& e) {
    a.status = CaseStatus::error;
    a.message = std::string("implementation under test failed: ") + e.what();
    a.sim_findings = collect_sim_findings();
    return a;
  }
  a.actual = run.outputs;
  a.sim_findings = run.sim_findings;
  const auto t_judge = std::chrono::steady_clock::now();
  try {
    oracle::JudgeOptions jo;
    jo.poison = run.poison;
    oracle::JudgeResult r = oracle::judge(d, a.c, expected, run.outputs, jo, run.tiles ? &*run.tiles : nullptr);
    a.status = r.pass ? CaseStatus::pass : CaseStatus::fail;
    for (const auto& v : r.outputs)
      if (!v.pass) a.message += (a.message.empty() ? "" : " | ") + oracle::summary_line(v);
    if (r.pass) a.message = "pass";
  } catch (const std::exception& e) {
    a.status = CaseStatus::error;
    a.message = std::string("oracle could not judge: ") + e.what();
  }
  a.stages.judge = seconds_since(t_judge);
  return a;
}

Attempt attempt(const OpDescriptor& d, const CaseSpec& spec, const UnderTestOptions& uo) {
  return attempt_prepared(d, prepare(d, spec), uo);
}

std::string save_fixture(const OpDescriptor& d, const CaseSpec& spec, const Attempt& a, const std::string& dir,
                         const std::string& repro) {
  std::filesystem::create_directories(dir);
  io::Fixture f;
  f.op = d.name;
  f.attrs = a.c.attrs;
  f.seed = spec.seed;
  f.source = repro;
  f.note = "found by dsv4check fuzz: " + a.message.substr(0, 400);
  if (!a.sim_findings.empty()) f.sim_findings = a.sim_findings.to_json();
  f.inputs = a.c.inputs;
  for (auto& [k, t] : a.actual) f.outputs[k] = t;
  const std::string path = fmt::format("{}/{}-{}.safetensors", dir, d.name, spec.index);
  io::write_fixture(path, f);
  return path;
}

}  // namespace

PreparedCase prepare_case(const CaseSpec& spec) {
  prepare_registry();
  const OpDescriptor& d = Registry::instance().get(spec.op);
  if (!d.generate) {
    PreparedCase p;
    p.message = "op has no generator";
    return p;
  }
  return prepare(d, spec);
}

CaseResult execute_case(const CaseSpec& spec, const ExecOptions& o) { return finish_case(spec, prepare_case(spec), o); }

CaseResult finish_case(const CaseSpec& spec, PreparedCase prepared, const ExecOptions& o) {
  const auto t0 = std::chrono::steady_clock::now() - std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                        std::chrono::duration<double>(prepared.seconds));
  prepare_registry();
  const OpDescriptor& d = Registry::instance().get(spec.op);
  CaseResult r;
  r.op = spec.op;
  r.index = spec.index;
  r.seed = spec.seed;
  r.original_shape = spec.shape;
  r.shape = spec.shape;
  if (!d.generate) {
    r.message = "op has no generator";
    return r;
  }
  Attempt a = attempt_prepared(d, std::move(prepared), o.under_test);
  r.stages = a.stages;
  r.status = a.status;
  r.sim_findings = a.sim_findings;
  r.message = a.message;
  if (a.status == CaseStatus::fail || a.status == CaseStatus::error) {
    CaseSpec best = spec;
    if (o.shrink) {
      int steps = 0;
      bool progress = true;
      while (progress && steps < o.max_shrink_steps) {
        progress = false;
        for (const Json& cand : shrink_candidates(best.shape)) {
          if (++steps > o.max_shrink_steps) break;
          CaseSpec s = best;
          s.shape = cand;
          Attempt b = attempt(d, s, o.under_test);
          r.stages += b.stages;
          if (b.status == a.status) {
            best = s;
            a = std::move(b);
            progress = true;
            break;
          }
        }
      }
    }
    r.shape = best.shape;
    r.message = a.message;
    r.sim_findings = a.sim_findings;
    r.repro = repro_command(best, o.under_test);
    if (!o.failure_dir.empty() && !a.actual.empty()) {
      try {
        r.fixture = save_fixture(d, best, a, o.failure_dir, r.repro);
      } catch (const std::exception& e) {
        r.message += std::string(" (fixture not saved: ") + e.what() + ")";
      }
    }
  } else {
    r.repro = repro_command(spec, o.under_test);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace dsv4::fuzz
