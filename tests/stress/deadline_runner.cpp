// Deadline runner for stress cases; see deadline_runner.hpp.
#include "tests/stress/deadline_runner.hpp"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <future>
#include <memory>
#include <thread>

#include "kernels/port/runtime.hpp"
#include "tests/support/seed.hpp"

namespace dsv4::test::stress {

namespace {
using Clock = std::chrono::steady_clock;

std::vector<std::string> guarded(const Body& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    return {std::string("exception: ") + e.what()};
  } catch (...) {
    return {"unknown exception"};
  }
}

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Messages cross the pipe as text separated by NUL bytes.
void write_all(int fd, const std::string& s) {
  std::size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n <= 0) return;
    off += static_cast<std::size_t>(n);
  }
}

Outcome run_forked(const Body& body, double timeout_s) {
  Outcome out;
  const auto t0 = Clock::now();
  int fds[2];
  if (::pipe(fds) != 0) return {Outcome::crashed, {"pipe() failed"}, 0};
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return {Outcome::crashed, {"fork() failed"}, 0};
  if (pid == 0) {
    ::close(fds[0]);
    const std::vector<std::string> msgs = guarded(body);
    std::string blob;
    for (const auto& m : msgs) blob += m + '\0';
    write_all(fds[1], blob);
    ::close(fds[1]);
    std::_Exit(msgs.empty() ? 0 : 1);
  }
  ::close(fds[1]);
  std::string blob;
  bool timed_out = false;
  for (;;) {
    const double left = timeout_s - since(t0);
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min(left * 1000.0, double(INT_MAX))) + 1);
    if (r < 0) continue;
    if (r == 0) continue;  // loop re-checks the deadline
    char buf[4096];
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n <= 0) break;  // EOF: the child finished writing (or died)
    blob.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  if (timed_out) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    out.kind = Outcome::hung;
    out.seconds = since(t0);
    out.messages.push_back("stress case hung: killed after " + std::to_string(timeout_s) + " s; repro: " +
                           repro_command());
    return out;
  }
  ::waitpid(pid, &status, 0);
  out.seconds = since(t0);
  for (std::size_t b = 0, e; b < blob.size(); b = e + 1) {
    e = blob.find('\0', b);
    if (e == std::string::npos) e = blob.size();
    out.messages.push_back(blob.substr(b, e - b));
  }
  if (WIFSIGNALED(status)) {
    out.kind = Outcome::crashed;
    out.messages.push_back("stress case crashed with signal " + std::to_string(WTERMSIG(status)) + "; repro: " +
                           repro_command());
  } else if (WEXITSTATUS(status) != 0 || !out.messages.empty()) {
    out.kind = Outcome::failed;
  }
  return out;
}

Outcome run_threaded(const Body& body, double timeout_s) {
  const auto t0 = Clock::now();
  auto task = std::make_shared<std::packaged_task<std::vector<std::string>()>>([body] { return guarded(body); });
  std::future<std::vector<std::string>> fut = task->get_future();
  std::thread worker([task] { (*task)(); });
  if (fut.wait_for(std::chrono::duration<double>(timeout_s)) != std::future_status::ready) {
    worker.detach();  // cannot be joined: it is hung (on the device or in the host)
    Outcome out{Outcome::hung,
                {"stress case hung: abandoned after " + std::to_string(timeout_s) + " s; repro: " + repro_command()},
                since(t0)};
    return out;
  }
  worker.join();
  Outcome out;
  out.messages = fut.get();
  out.kind = out.messages.empty() ? Outcome::passed : Outcome::failed;
  out.seconds = since(t0);
  return out;
}
}  // namespace

std::string repro_command() {
  const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
  char exe[4096] = {0};
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  return "DSV4_SEED=" + std::to_string(base_seed()) + " " + (n > 0 ? std::string(exe, n) : std::string("<test>")) +
         " --gtest_filter='" + (t ? std::string(t->test_suite_name()) + "." + t->name() : std::string("*")) + "'";
}

Outcome run_with_deadline(const Body& body, double timeout_s, Isolation how) {
  return how == Isolation::fork_child ? run_forked(body, timeout_s) : run_threaded(body, timeout_s);
}

void expect_passes_within(const Body& body, double timeout_s) {
  const bool sim = port::backend() == port::Backend::sim;
  const Outcome o = run_with_deadline(body, timeout_s, sim ? Isolation::fork_child : Isolation::thread);
  for (const std::string& m : o.messages) ADD_FAILURE() << m;
  if (o.kind == Outcome::hung && !sim) {
    // The hung thread still holds the runtime: report and leave now rather than run later tests beside it.
    std::printf("[  FAILED  ] %s\n", o.messages.front().c_str());
    std::fflush(nullptr);
    std::_Exit(1);
  }
  std::printf("[  STRESS  ] %s in %.2f s\n", o.kind == Outcome::passed ? "passed" : "failed", o.seconds);
}

}  // namespace dsv4::test::stress
