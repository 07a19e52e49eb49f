// Self-check rows for `dsv4check check`. Any part of the suite adds rows with a static
// SelfCheckRegistrar (see check_formats.cpp); `check` runs them all and prints one table row per
// check: its named counters as columns (e.g. "codes decoded", "round-trip", "spot"), the verdict and
// the time. A row fails when failures > 0; `check` then exits 1.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace dsv4::cli {

struct SelfCheckResult {
  std::vector<std::pair<std::string, std::uint64_t>> counts;  // column name -> how many were checked
  std::uint64_t failures = 0;
  std::vector<std::string> messages;  // the first failures, printed below the table
  std::string status;  // overrides the verdict when set and nothing failed (e.g. "no kernel")
  std::string detail;  // free text in the last column (e.g. "sim: max 0.42 out (error/bound)")
  void fail(std::string msg) {
    ++failures;
    if (messages.size() < 10) messages.push_back(std::move(msg));
  }
};

struct SelfCheck {
  std::string group;  // e.g. "formats"; `check --only <group>` selects a group
  std::string name;   // e.g. "e4m3fn"
  std::function<SelfCheckResult()> run;
};

std::vector<SelfCheck>& self_checks();

struct SelfCheckRegistrar {
  SelfCheckRegistrar(std::string group, std::string name, std::function<SelfCheckResult()> run) {
    self_checks().push_back({std::move(group), std::move(name), std::move(run)});
  }
};

}  // namespace dsv4::cli
