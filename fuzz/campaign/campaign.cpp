// Campaign loop, checkpoint, progress and summary; see campaign.hpp.
#include "fuzz/campaign/campaign.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "fuzz/campaign/shape_space.hpp"
#include "fuzz/campaign/worker_process.hpp"
#include "fuzz/harness/under_test.hpp"
#include "kernels/kernel_registry.hpp"
#include "reference/registry/registry.hpp"

namespace fs = std::filesystem;

namespace dsv4::fuzz {

std::string coverage_bucket(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) {
    const std::int64_t x = v.get<std::int64_t>();
    if (x <= 16) return "=" + std::to_string(x);
    const int k = static_cast<int>(std::floor(std::log2(static_cast<double>(x))));
    return fmt::format("[{}, {})", std::int64_t{1} << k, std::int64_t{1} << (k + 1));
  }
  return v.dump();
}

std::string op_rate_line(const std::string& op, const OpTally& t) {
  return fmt::format("{} {:.2f} cases/s ({}; bound: {})", op, cases_per_second(static_cast<double>(t.cases()), t.stages),
                     t.stages.shares(), t.stages.bound());
}

namespace {

Json tally_json(const OpTally& t) {
  return Json{{"next_index", t.next_index}, {"pass", t.pass}, {"fail", t.fail}, {"error", t.error},
              {"discard", t.discard}, {"coverage", t.coverage},
              {"stages", t.stages.to_json()}, {"cases_per_s", cases_per_second(static_cast<double>(t.cases()), t.stages)}};
}

OpTally tally_from(const Json& j) {
  OpTally t;
  t.next_index = j.value("next_index", std::uint64_t{0});
  t.pass = j.value("pass", std::uint64_t{0});
  t.fail = j.value("fail", std::uint64_t{0});
  t.error = j.value("error", std::uint64_t{0});
  t.discard = j.value("discard", std::uint64_t{0});
  t.stages = StageSeconds::from_json(j.value("stages", Json::object()));
  if (j.contains("coverage")) t.coverage = j["coverage"].get<std::map<std::string, std::map<std::string, std::uint64_t>>>();
  return t;
}

Json state_json(const CampaignState& s) {
  Json ops = Json::object();
  for (auto& [n, t] : s.ops) ops[n] = tally_json(t);
  return Json{{"version", 1}, {"seed", s.seed}, {"shard", s.shard}, {"shards", s.shards}, {"backend", s.backend},
              {"arch", s.arch}, {"variant", s.variant}, {"elapsed_s", s.elapsed_s}, {"ops", ops}};
}

void write_atomic(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("fuzz: cannot write " + tmp.string());
    f << text;
    f.flush();
    if (!f) throw std::runtime_error("fuzz: write failed for " + tmp.string());
  }
  int fd = ::open(tmp.c_str(), O_RDONLY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
  fs::rename(tmp, path);
}

void append_durable(const fs::path& path, const std::string& line) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) throw std::runtime_error("fuzz: cannot append to " + path.string());
  const std::string l = line + "\n";
  if (::write(fd, l.data(), l.size()) != static_cast<ssize_t>(l.size())) {
    ::close(fd);
    throw std::runtime_error("fuzz: short write to " + path.string());
  }
  ::fsync(fd);
  ::close(fd);
}

std::string hms(double s) {
  if (!std::isfinite(s) || s < 0) return "--:--:--";
  const long t = static_cast<long>(s);
  return fmt::format("{:02}:{:02}:{:02}", t / 3600, (t / 60) % 60, t % 60);
}

}  // namespace

CampaignState load_state(const std::string& dir) {
  CampaignState s;
  const fs::path cp = fs::path(dir) / "checkpoint.json";
  if (fs::exists(cp)) {
    std::ifstream f(cp);
    Json j;
    try {
      j = Json::parse(f);
    } catch (const std::exception& e) {
      throw InputError("fuzz: checkpoint " + cp.string() + " is not valid JSON: " + e.what());
    }
    s.seed = j.value("seed", std::uint64_t{0});
    s.shard = j.value("shard", std::uint64_t{0});
    s.shards = j.value("shards", std::uint64_t{1});
    s.backend = j.value("backend", std::string());
    s.arch = j.value("arch", std::string());
    s.variant = j.value("variant", std::string("default"));
    s.elapsed_s = j.value("elapsed_s", 0.0);
    for (auto it = j["ops"].begin(); it != j["ops"].end(); ++it) s.ops[it.key()] = tally_from(*it);
  }
  const fs::path fl = fs::path(dir) / "failures.jsonl";
  if (fs::exists(fl)) {
    std::ifstream f(fl);
    std::string line;
    while (std::getline(f, line)) {
      if (line.empty()) continue;
      try {
        s.failures.push_back(CaseResult::from_json(Json::parse(line)));
      } catch (...) {  // a torn last line after a crash: skip it
      }
    }
  }
  return s;
}

void write_summary(const CampaignState& s, const std::string& dir) {
  Json j = state_json(s);
  Json fails = Json::array();
  for (auto& f : s.failures) fails.push_back(f.to_json());
  j["failures"] = fails;
  std::uint64_t total = 0, nfail = 0;
  for (auto& [n, t] : s.ops) {
    total += t.cases();
    nfail += t.fail + t.error;
  }
  j["total_cases"] = total;
  j["total_failures"] = nfail;
  write_atomic(fs::path(dir) / "summary.json", j.dump(2) + "\n");

  std::string md = fmt::format("# dsv4check fuzz summary\n\nseed {} · shard {}/{} · backend {} · {} cases · {} failures · {}\n\n",
                               s.seed, s.shard, s.shards, s.backend, total, nfail, hms(s.elapsed_s));
  md += "| op | cases | pass | fail | error | discard | cases/s | generate | reference | kernel | judge | bound by |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (auto& [n, t] : s.ops) {
    const double busy = t.stages.total() > 0 ? t.stages.total() : 1;
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {:.2f} | {:.0f}% | {:.0f}% | {:.0f}% | {:.0f}% | {} |\n", n, t.cases(),
                      t.pass, t.fail, t.error, t.discard, cases_per_second(static_cast<double>(t.cases()), t.stages),
                      100 * t.stages.generate / busy, 100 * t.stages.reference / busy, 100 * t.stages.kernel / busy,
                      100 * t.stages.judge / busy, t.stages.bound());
  }
  md += "\ncases/s: an op's cases over its busy seconds (generate + reference + kernel + judge, shrinking included); "
        "shares are of those seconds.\n";
  md += "\n## Shape coverage\n\n";
  for (auto& [n, t] : s.ops) {
    md += "### " + n + "\n\n";
    for (auto& [key, buckets] : t.coverage) {
      md += "- `" + key + "`: ";
      bool first = true;
      for (auto& [b, c] : buckets) {
        md += fmt::format("{}{} ×{}", first ? "" : ", ", b, c);
        first = false;
      }
      md += "\n";
    }
    md += "\n";
  }
  md += "## Failures\n\n";
  if (s.failures.empty()) md += "none\n";
  for (auto& f : s.failures) {
    md += fmt::format("- **{}** #{} ({}): {}\n  - repro: `{}`\n  - fixture: {}\n", f.op, f.index, status_name(f.status),
                      f.message.substr(0, 300), f.repro, f.fixture.empty() ? "(none)" : f.fixture);
    if (!f.sim_findings.empty()) md += "  - " + f.sim_findings.one_line() + "\n";
  }
  write_atomic(fs::path(dir) / "summary.md", md);
}

CampaignState merge_states(const std::vector<CampaignState>& states) {
  CampaignState m;
  if (!states.empty()) {
    m.seed = states[0].seed;
    m.backend = states[0].backend;
    m.arch = states[0].arch;
    m.variant = states[0].variant;
    m.shards = states[0].shards;
  }
  for (const auto& s : states) {
    m.elapsed_s = std::max(m.elapsed_s, s.elapsed_s);
    for (auto& [n, t] : s.ops) {
      OpTally& d = m.ops[n];
      d.pass += t.pass;
      d.fail += t.fail;
      d.error += t.error;
      d.discard += t.discard;
      d.stages += t.stages;
      d.next_index = std::max(d.next_index, t.next_index);
      for (auto& [k, b] : t.coverage)
        for (auto& [bk, c] : b) d.coverage[k][bk] += c;
    }
    m.failures.insert(m.failures.end(), s.failures.begin(), s.failures.end());
  }
  return m;
}

int run_campaign(const CampaignOptions& o) {
  if (o.ops.empty()) throw InputError("fuzz: no ops to run");
  if (o.max_cases == 0 && o.max_minutes <= 0) throw InputError("fuzz: give --cases N or --minutes M");
  if (o.shards == 0 || o.shard >= o.shards) throw InputError(fmt::format("fuzz: bad shard {}/{}", o.shard, o.shards));
  fs::create_directories(o.out_dir);
  const fs::path failures_path = fs::path(o.out_dir) / "failures.jsonl";
  const fs::path checkpoint_path = fs::path(o.out_dir) / "checkpoint.json";

  CampaignState st = load_state(o.out_dir);
  const bool resumed = fs::exists(checkpoint_path);
  if (resumed && (st.seed != o.seed || st.shard != o.shard || st.shards != o.shards || st.backend != o.under_test.backend))
    throw InputError(fmt::format("fuzz: {} holds a campaign with seed {} shard {}/{} backend {}; resume with the same "
                                 "options or use another --out",
                                 o.out_dir, st.seed, st.shard, st.shards, st.backend));
  st.seed = o.seed;
  st.shard = o.shard;
  st.shards = o.shards;
  st.backend = o.under_test.backend;
  st.arch = o.under_test.arch;
  st.variant = o.under_test.variant;
  std::uint64_t done_before = 0;
  for (auto& [n, t] : st.ops) done_before += t.cases();

  WorkerProcess worker(o.worker_argv);
  const auto t0 = std::chrono::steady_clock::now();
  const double elapsed_before = st.elapsed_s;
  std::uint64_t ran = 0, found = 0;
  StageSeconds run_stages;  // this run's cases, all ops
  auto last_print = t0 - std::chrono::seconds(10);
  const bool tty = isatty(2);
  std::size_t op_cursor = 0;
  std::map<std::string, std::uint64_t> scheduled;  // per op: the next global index to submit
  for (const auto& op : o.ops) scheduled[op] = st.ops[op].next_index;
  std::uint64_t submitted = 0;
  const std::size_t window = static_cast<std::size_t>(std::max(0, o.prefetch)) + 1;
  prepare_registry();  // the registered shape spaces (fuzz/generators/)

  auto make_spec = [&]() {
    const std::string& op = o.ops[op_cursor++ % o.ops.size()];
    std::uint64_t index = scheduled[op];
    while (index % o.shards != o.shard) ++index;
    scheduled[op] = index + 1;
    const OpDescriptor& d = Registry::instance().get(op);
    CaseSpec spec;
    spec.op = op;
    spec.index = index;
    spec.seed = case_seed(o.seed, op, index);
    std::mt19937_64 shape_rng(spec.seed ^ 0x5a5a5a5a5a5a5a5aull);
    std::vector<Json> extra;
    if (auto* k = kernels::KernelRegistry::instance().find(op); k && o.under_test.backend != "reference") extra = k->check_shapes;
    spec.shape = o.fixed_shape.is_null() ? draw_shape(d, shape_rng, extra) : o.fixed_shape;
    return spec;
  };

  for (;;) {
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const bool time_up = o.max_minutes > 0 && secs >= o.max_minutes * 60;
    while (!time_up && worker.outstanding() < window && !(o.max_cases && done_before + submitted >= o.max_cases)) {
      worker.submit(make_spec());
      ++submitted;
    }
    if (worker.outstanding() == 0) break;

    CaseResult r = worker.next(o.case_timeout_s, o.under_test);
    const std::string op = r.op;
    OpTally& tally = st.ops[op];
    const std::uint64_t index = r.index;
    switch (r.status) {
      case CaseStatus::pass: ++tally.pass; break;
      case CaseStatus::fail: ++tally.fail; break;
      case CaseStatus::error: ++tally.error; break;
      case CaseStatus::discard: ++tally.discard; break;
    }
    tally.stages += r.stages;
    run_stages += r.stages;
    if (r.status != CaseStatus::discard)
      for (auto it = r.original_shape.begin(); it != r.original_shape.end(); ++it)
        ++tally.coverage[it.key()][coverage_bucket(*it)];
    if (r.status == CaseStatus::fail || r.status == CaseStatus::error) {
      append_durable(failures_path, r.to_json().dump());  // durable before the checkpoint moves on
      st.failures.push_back(r);
      ++found;
      std::fprintf(stderr, "%s[fuzz] FAILURE %s #%llu: %s\n       repro: %s\n", tty ? "\n" : "", op.c_str(),
                   static_cast<unsigned long long>(index), r.message.substr(0, 400).c_str(), r.repro.c_str());
    }
    if (!r.sim_findings.empty())  // beside the verdict, whatever it was: a pass with findings is worth a look
      std::fprintf(stderr, "%s[fuzz] %s #%llu (%s) %s", tty ? "\n" : "", op.c_str(), static_cast<unsigned long long>(index),
                   status_name(r.status), r.sim_findings.text().c_str());
    tally.next_index = index + 1;
    ++ran;
    st.elapsed_s = elapsed_before + std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    write_atomic(checkpoint_path, state_json(st).dump(2) + "\n");

    const auto now = std::chrono::steady_clock::now();
    if (o.progress && now - last_print >= std::chrono::milliseconds(tty ? 300 : 10000)) {
      last_print = now;
      const double el = std::chrono::duration<double>(now - t0).count();
      const double rate = ran / std::max(el, 1e-9);
      double eta = NAN;
      if (o.max_cases) eta = (o.max_cases - std::min(o.max_cases, done_before + ran)) / std::max(rate, 1e-9);
      if (o.max_minutes > 0) eta = std::isnan(eta) ? o.max_minutes * 60 - el : std::min(eta, o.max_minutes * 60 - el);
      // One line: the totals, this run's stage shares, and the op of the case just judged (ops rotate);
      // without a terminal, every op's rate follows on its own line.
      std::fprintf(stderr, "%s[fuzz] %llu cases (%.1f/s; %s) · %s · failures %zu · ETA %s%s", tty ? "\r" : "",
                   static_cast<unsigned long long>(done_before + ran), rate, run_stages.shares().c_str(),
                   op_rate_line(op, tally).c_str(), st.failures.size(), hms(eta).c_str(), tty ? "   " : "\n");
      if (!tty)
        for (const auto& name : o.ops) std::fprintf(stderr, "[fuzz]   %s\n", op_rate_line(name, st.ops[name]).c_str());
    }
  }
  if (o.progress) std::fprintf(stderr, "\n");
  write_summary(st, o.out_dir);
  const double run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "[fuzz] %llu cases this run (%llu in total) in %.2f s (%.2f cases/s, prefetch %d), %zu failures in total; summary: %s/summary.md\n",
               static_cast<unsigned long long>(ran), static_cast<unsigned long long>(done_before + ran), run_s,
               ran / std::max(run_s, 1e-9), o.prefetch, st.failures.size(), o.out_dir.c_str());
  std::fprintf(stderr, "[fuzz] time by stage this run: %s (bound: %s); per op, whole campaign:\n", run_stages.shares().c_str(),
               run_stages.bound());
  for (const auto& name : o.ops) std::fprintf(stderr, "[fuzz]   %s\n", op_rate_line(name, st.ops[name]).c_str());
  return st.failures.empty() ? 0 : 1;
}

}  // namespace dsv4::fuzz
