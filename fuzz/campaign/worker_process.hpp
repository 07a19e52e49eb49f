// A fuzz worker child process and its supervision. Cases run in a child (`dsv4check fuzz-worker`),
// so a kernel that faults (illegal address, abort) or hangs kills only the child: the supervisor
// records the in-flight case as an `error` failure (crash with its signal, or hang past the timeout)
// and starts a fresh child. Protocol: one JSON CaseSpec per line on the child's stdin, one JSON
// CaseResult per line on its stdout, in the order of the specs.
//
// Pipelining (reference/device overlap): the supervisor may submit several specs ahead; the child
// (started with --prefetch N) draws inputs and computes float64 references of the queued cases on a
// thread pool of all cores while its main thread runs the kernel of the oldest case, and answers in
// submission order. The supervisor keeps every unanswered spec: when the child dies or hangs, the
// OLDEST unanswered case (the one whose kernel was running) is recorded as the crash/hang, a fresh
// child is started, and the younger specs are resubmitted to it, so no case and no failure is lost.
#pragma once
#include <sys/types.h>

#include <deque>
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
  // Only valid when nothing else is outstanding.
  CaseResult run(const CaseSpec& spec, double timeout_seconds, const UnderTestOptions& uo);

  // Pipelined use: submit() queues a case (starting the child if needed); next() returns the result of
  // the oldest outstanding case (its timeout counts from the call), or its crash/hang error.
  void submit(const CaseSpec& spec);
  CaseResult next(double timeout_seconds, const UnderTestOptions& uo);
  std::size_t outstanding() const { return outstanding_.size(); }

 private:
  void start();
  void stop(bool kill_it);
  bool send(const CaseSpec& spec);
  std::deque<CaseSpec> outstanding_;
  std::vector<std::string> argv_;
  pid_t pid_ = -1;
  int to_child_ = -1, from_child_ = -1;
  std::string buffer_;
};

// The worker loop run by `dsv4check fuzz-worker`: reads CaseSpec lines from stdin until EOF. With
// o.prefetch > 0, a reader thread queues the specs and a pool of min(cores, prefetch + 1) threads
// (the cores split between them for the references' OpenMP loops) prepares them
// (prepare_case: inputs + float64 reference) while the main thread finishes the oldest one (kernel,
// oracle, shrinking) and writes results in order.
int worker_main(const ExecOptions& o);

}  // namespace dsv4::fuzz
