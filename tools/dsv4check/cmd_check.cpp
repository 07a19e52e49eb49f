// `dsv4check check`: runs every registered self-check (check_table.hpp) and prints one table row per
// check with its counters, verdict and time. Exit 0 when all pass, 1 when any fails.
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "kernels/port/arch.hpp"
#include "reference/registry/registry.hpp"
#include "tools/dsv4check/check_kernels.hpp"
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

int run_check(const std::string& only, const KernelCheckOptions& ko) {
  if (!ko.arch.empty() && !port::parse_arch(ko.arch))
    throw UsageError("--arch '" + ko.arch + "' is not an arch profile (gfx942, gfx950, sm_90)");
  std::vector<Row> rows;
  bool matched = false;
  std::vector<SelfCheck> all = self_checks();
  for (SelfCheck& k : kernel_checks(ko)) all.push_back(std::move(k));
  for (const SelfCheck& c : all) {
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
  std::printf("%-9s %-26s", "group", "check");
  for (const auto& c : cols) std::printf(" %14s", c.c_str());
  std::printf(" %9s %9s %9s  %s\n", "failures", "verdict", "time", "detail");
  int failed = 0;
  for (const Row& r : rows) {
    std::printf("%-9s %-26s", r.check->group.c_str(), r.check->name.c_str());
    for (const auto& c : cols) {
      std::string cell = "-";
      for (const auto& [k, v] : r.result.counts)
        if (k == c) cell = std::to_string(v);
      std::printf(" %14s", cell.c_str());
    }
    const bool ok = r.result.failures == 0;
    failed += ok ? 0 : 1;
    const std::string verdict = !ok ? "FAIL" : r.result.status.empty() ? "PASS" : r.result.status;
    std::printf(" %9llu %9s %8.3fs  %s\n", static_cast<unsigned long long>(r.result.failures), verdict.c_str(), r.seconds,
                r.result.detail.c_str());
  }
  for (const Row& r : rows)
    for (const auto& m : r.result.messages) std::printf("%s/%s: %s\n", r.check->group.c_str(), r.check->name.c_str(), m.c_str());
  int no_kernel = 0;
  for (const Row& r : rows) no_kernel += r.result.status == "no kernel" ? 1 : 0;
  std::printf("%zu checks, %d failed, %d ops without a kernel on this backend\n", rows.size(), failed, no_kernel);
  if (only.empty() || only == "kernels") {
    // The kernel rows against the registry (a count here, never a number written into a test).
    std::string missing;
    std::size_t with_row = 0;
    const std::vector<std::string> ops = Registry::instance().names();
    for (const std::string& op : ops) {
      bool found = false;
      for (const Row& r : rows) found = found || (r.check->group == "kernels" && r.check->name == op);
      with_row += found ? 1 : 0;
      if (!found) missing += (missing.empty() ? "" : ", ") + op;
    }
    if (missing.empty()) std::printf("kernel rows: all %zu registered ops\n", ops.size());
    else std::printf("kernel rows: %zu of %zu registered ops (missing: %s)\n", with_row, ops.size(), missing.c_str());
  }
  return failed ? 1 : 0;
}

const Registrar reg{"check", "Self-check of the suite: formats (decode, round trip, hand tables) and other registered checks",
                    [](dsv4::cli::Args& sub) -> Action {
                      auto only = std::make_shared<std::string>();
                      auto ko = std::make_shared<KernelCheckOptions>();
                      sub.add_option("--only", *only, "Run only this check group (formats, kernels)");
                      sub.add_option("--backend", ko->backend, "Implementation under test for the kernel rows: this build's backend (default) or 'reference'");
                      sub.add_option("--arch", ko->arch, "Arch profile for the kernel rows (gfx942, gfx950, sm_90)");
                      sub.add_option("--seeds", ko->seeds, "Seeds per shape for the kernel rows")->capture_default_str();
                      return [only, ko] { return run_check(*only, *ko); };
                    }};

}  // namespace
}  // namespace dsv4::cli
