// `dsv4check check`: runs every registered self-check (check_table.hpp) and prints one table row per
// check with its counters, verdict and time. Exit 0 when all pass, 1 when any fails.
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "tools/dsv4check/check_table.hpp"
#include "tools/dsv4check/command.hpp"

namespace dsv4::cli {

std::vector<SelfCheck>& self_checks() {
  static std::vector<SelfCheck> checks;
  return checks;
}

namespace {

struct Row {
  const SelfCheck* check;
  SelfCheckResult result;
  double seconds;
};

int run_check(const std::string& only) {
  std::vector<Row> rows;
  bool matched = false;
  for (const SelfCheck& c : self_checks()) {
    if (!only.empty() && c.group != only) continue;
    matched = true;
    const auto t0 = std::chrono::steady_clock::now();
    SelfCheckResult r;
    try {
      r = c.run();
    } catch (const std::exception& e) {
      r.fail(std::string("threw: ") + e.what());
    }
    rows.push_back({&c, std::move(r), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()});
  }
  if (!matched) throw UsageError("--only '" + only + "' names no check group");
  // Columns: union of counter names in order of first appearance.
  std::vector<std::string> cols;
  for (const Row& r : rows)
    for (const auto& [k, v] : r.result.counts) {
      bool seen = false;
      for (const auto& c : cols) seen = seen || c == k;
      if (!seen) cols.push_back(k);
    }
  std::printf("%-10s %-12s", "group", "check");
  for (const auto& c : cols) std::printf(" %14s", c.c_str());
  std::printf(" %9s %8s %9s\n", "failures", "verdict", "time");
  int failed = 0;
  for (const Row& r : rows) {
    std::printf("%-10s %-12s", r.check->group.c_str(), r.check->name.c_str());
    for (const auto& c : cols) {
      std::string cell = "-";
      for (const auto& [k, v] : r.result.counts)
        if (k == c) cell = std::to_string(v);
      std::printf(" %14s", cell.c_str());
    }
    const bool ok = r.result.failures == 0;
    failed += ok ? 0 : 1;
    std::printf(" %9llu %8s %8.3fs\n", static_cast<unsigned long long>(r.result.failures), ok ? "PASS" : "FAIL", r.seconds);
  }
  for (const Row& r : rows)
    for (const auto& m : r.result.messages) std::printf("%s/%s: %s\n", r.check->group.c_str(), r.check->name.c_str(), m.c_str());
  std::printf("%zu checks, %d failed\n", rows.size(), failed);
  return failed ? 1 : 0;
}

const Registrar reg{"check", "Self-check of the suite: formats (decode, round trip, hand tables) and other registered checks",
                    [](CLI::App& sub) -> Action {
                      auto only = std::make_shared<std::string>();
                      sub.add_option("--only", *only, "Run only this check group (e.g. formats)");
                      return [only] { return run_check(*only); };
                    }};

}  // namespace
}  // namespace dsv4::cli
