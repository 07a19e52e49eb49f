// Runs a stress case's body under a deadline so a hang is reported as a failure with its repro command and never
// waited out. On sim the body runs in a forked child (isolation: a hung or crashed child is killed / reaped and the
// parent process carries on); on a device backend (no fork after driver init) it runs on a std::thread, and on
// timeout the failure and repro line are printed and the process exits at once (the hung thread cannot be joined).
// The body returns its failure messages (empty = pass) instead of using gtest assertions, so they cross the fork.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace dsv4::test::stress {

using Body = std::function<std::vector<std::string>()>;

struct Outcome {
  enum Kind { passed, failed, hung, crashed } kind = passed;
  std::vector<std::string> messages;  // the body's failures, or what happened to it
  double seconds = 0;
};

enum class Isolation { fork_child, thread };

// The one-line repro of the current gtest test: "DSV4_SEED=<seed> <exe> --gtest_filter='Suite.Name'".
std::string repro_command();

Outcome run_with_deadline(const Body& body, double timeout_s, Isolation how);

// Sim: fork_child; other backends: thread. Adds a gtest failure per message (hang/crash with the repro line).
void expect_passes_within(const Body& body, double timeout_s);

}  // namespace dsv4::test::stress
