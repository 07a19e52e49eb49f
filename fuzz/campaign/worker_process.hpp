// A fuzz worker child process and its supervision. Cases run in a child (`dsv4check fuzz-worker`),
// so a kernel that faults (illegal address, abort) or hangs kills only the child: the supervisor
// records the in-flight case as an `error` failure (crash with its signal, or hang past the timeout)
// and starts a fresh child. Protocol: one JSON CaseSpec per line on the child's stdin, one JSON
// CaseResult per line on its stdout.
#pragma once
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "fuzz/campaign/case_exec.hpp"

namespace dsv4::fuzz {

class WorkerProcess {
 public:
  // argv: the worker command line (argv[0] = executable path).
  explicit WorkerProcess(std::vector<std::string> argv) : argv_(std::move(argv)) {}
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Runs one case in the child. Returns the child's result, or an `error` result describing the
  // crash or the hang (the child is then killed and restarted on the next call).
  CaseResult run(const CaseSpec& spec, double timeout_seconds, const UnderTestOptions& uo);

 private:
  void start();
  void stop(bool kill_it);
  std::vector<std::string> argv_;
  pid_t pid_ = -1;
  int to_child_ = -1, from_child_ = -1;
  std::string buffer_;
};

// The worker loop run by `dsv4check fuzz-worker`: reads CaseSpec lines from stdin until EOF.
// The reference inside each case runs on all cores (OpenMP).
int worker_main(const ExecOptions& o);

}  // namespace dsv4::fuzz
