// Worker child process: spawn, protocol, crash/hang detection; see worker_process.hpp.
#include "fuzz/campaign/worker_process.hpp"

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <thread>
#include <cstring>
#include <iostream>
#include <stdexcept>

#include <fmt/format.h>
#ifdef _OPENMP
#include <omp.h>
#endif

extern char** environ;

namespace dsv4::fuzz {

WorkerProcess::~WorkerProcess() { stop(true); }

void WorkerProcess::start() {
  int in[2], out[2];
  if (pipe(in) != 0 || pipe(out) != 0) throw std::runtime_error("fuzz: pipe() failed: " + std::string(strerror(errno)));
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_addclose(&fa, in[1]);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  // The worker leads its own process group, so a kill reaches anything it started too.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> args;
  for (auto& a : argv_) args.push_back(a.data());
  args.push_back(nullptr);
  int rc = posix_spawn(&pid_, argv_[0].c_str(), &fa, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close(in[0]);
  close(out[1]);
  if (rc != 0) {
    close(in[1]);
    close(out[0]);
    pid_ = -1;
    throw std::runtime_error(fmt::format("fuzz: cannot start worker '{}': {}", argv_[0], strerror(rc)));
  }
  to_child_ = in[1];
  from_child_ = out[0];
  buffer_.clear();
}

void WorkerProcess::stop(bool kill_it) {
  if (pid_ <= 0) return;
  if (to_child_ >= 0) close(to_child_);
  if (kill_it) kill(-pid_, SIGKILL);
  int st;
  waitpid(pid_, &st, 0);
  if (from_child_ >= 0) close(from_child_);
  pid_ = -1;
  to_child_ = from_child_ = -1;
}

bool WorkerProcess::send(const CaseSpec& spec) {
  const std::string line =
      Json{{"op", spec.op}, {"index", spec.index}, {"seed", spec.seed}, {"shape", spec.shape}}.dump() + "\n";
  signal(SIGPIPE, SIG_IGN);
  return write(to_child_, line.data(), line.size()) == static_cast<ssize_t>(line.size());
}

void WorkerProcess::submit(const CaseSpec& spec) {
  if (pid_ <= 0) start();
  outstanding_.push_back(spec);
  if (!send(spec)) stop(true);  // next() reports the death and restarts
}

CaseResult WorkerProcess::run(const CaseSpec& spec, double timeout_seconds, const UnderTestOptions& uo) {
  submit(spec);
  return next(timeout_seconds, uo);
}

CaseResult WorkerProcess::next(double timeout_seconds, const UnderTestOptions& uo) {
  if (outstanding_.empty()) throw std::logic_error("fuzz: WorkerProcess::next with nothing outstanding");
  const CaseSpec spec = outstanding_.front();
  CaseResult failed;
  failed.op = spec.op;
  failed.index = spec.index;
  failed.seed = spec.seed;
  failed.shape = failed.original_shape = spec.shape;
  failed.status = CaseStatus::error;
  failed.repro = repro_command(spec, uo);
  // The child is gone (or never took the case): the oldest case is the casualty; restart for the rest.
  auto casualty = [&](std::string message, double seconds) {
    outstanding_.pop_front();
    failed.message = std::move(message);
    failed.seconds = seconds;
    failed.stages.kernel = seconds;  // a crash or hang happened while the case's kernel ran
    if (!outstanding_.empty()) {
      start();
      for (const CaseSpec& s : outstanding_)
        if (!send(s)) {
          stop(true);
          break;
        }
    }
    return failed;
  };
  if (pid_ <= 0) return casualty("worker died before it took the case", 0);
  const auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
      std::string reply = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      CaseResult r;
      try {
        r = CaseResult::from_json(Json::parse(reply));
      } catch (const std::exception& e) {
        continue;  // stray output line (e.g. a kernel's printf): skip it
      }
      if (r.op != spec.op || r.index != spec.index) continue;  // not a reply to the oldest case: ignore
      outstanding_.pop_front();
      return r;
    }
    const double left = timeout_seconds - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (left <= 0) {
      stop(true);
      return casualty(fmt::format("hang: no result within {:.0f} s (worker killed and restarted)", timeout_seconds),
                      timeout_seconds);
    }
    pollfd p{from_child_, POLLIN, 0};
    int pr = poll(&p, 1, static_cast<int>(std::min(left, 1.0) * 1000) + 1);
    if (pr <= 0) continue;
    char buf[65536];
    ssize_t n = read(from_child_, buf, sizeof buf);
    if (n > 0) {
      buffer_.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    // EOF: the worker died.
    int st = 0;
    close(to_child_);
    waitpid(pid_, &st, 0);
    close(from_child_);
    pid_ = -1;
    to_child_ = from_child_ = -1;
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return casualty(WIFSIGNALED(st) ? fmt::format("crash: worker killed by signal {} ({})", WTERMSIG(st), strsignal(WTERMSIG(st)))
                                    : fmt::format("crash: worker exited with status {}", WEXITSTATUS(st)),
                    secs);
  }
}

namespace {

bool parse_spec(const std::string& line, CaseSpec& spec) {
  try {
    Json j = Json::parse(line);
    spec.op = j.at("op").get<std::string>();
    spec.index = j.at("index").get<std::uint64_t>();
    spec.seed = j.at("seed").get<std::uint64_t>();
    spec.shape = j.value("shape", Json::object());
    return true;
  } catch (const std::exception& e) {
    std::cerr << "fuzz-worker: bad request line: " << e.what() << "\n";
    return false;
  }
}

CaseResult exception_result(const CaseSpec& spec, const ExecOptions& o, const std::exception& e) {
  CaseResult r;
  r.op = spec.op;
  r.index = spec.index;
  r.seed = spec.seed;
  r.shape = r.original_shape = spec.shape;
  r.status = CaseStatus::error;
  r.message = std::string("worker exception: ") + e.what();
  r.repro = repro_command(spec, o.under_test);
  return r;
}

int worker_sequential(const ExecOptions& o) {
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    CaseSpec spec;
    if (!parse_spec(line, spec)) return 2;
    CaseResult r;
    try {
      r = execute_case(spec, o);
    } catch (const std::exception& e) {
      r = exception_result(spec, o, e);
    }
    std::cout << r.to_json().dump() << "\n" << std::flush;
  }
  return 0;
}

// Reader thread -> (ordered queue of futures) -> main thread; a pool of threads prepares the futures.
// The main thread keeps the process-wide OpenMP setting (all cores) for the implementation under test.
int worker_pipelined(const ExecOptions& o) {
  struct Item {
    CaseSpec spec;
    std::future<PreparedCase> prepared;
  };
  std::mutex mu;
  std::condition_variable cv, pool_cv;
  std::deque<Item> ordered;                            // results leave in this order
  std::deque<std::packaged_task<PreparedCase()>> work;  // prepare tasks for the pool
  bool eof = false, bad = false, stopping = false;

  // At most prefetch + 1 cases are queued (the supervisor's window), so more pool threads would idle.
  // The references parallelise with OpenMP: split the cores between the pool threads instead of letting
  // every pool thread start a full team (hw x hw threads on a big node).
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const unsigned n_threads = std::min(hw, static_cast<unsigned>(o.prefetch) + 1);
  const int omp_per_thread = static_cast<int>(std::max(1u, hw / n_threads));
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < n_threads; ++i)
    pool.emplace_back([&] {
#ifdef _OPENMP
      omp_set_num_threads(omp_per_thread);
#else
      (void)omp_per_thread;
#endif
      for (;;) {
        std::packaged_task<PreparedCase()> t;
        {
          std::unique_lock lk(mu);
          pool_cv.wait(lk, [&] { return stopping || !work.empty(); });
          if (work.empty()) return;
          t = std::move(work.front());
          work.pop_front();
        }
        t();
      }
    });
  std::thread reader([&] {
    std::string line;
    while (std::getline(std::cin, line)) {
      if (line.empty()) continue;
      CaseSpec spec;
      if (!parse_spec(line, spec)) {
        std::lock_guard lk(mu);
        bad = true;
        break;
      }
      std::packaged_task<PreparedCase()> t([spec] { return prepare_case(spec); });
      std::lock_guard lk(mu);
      ordered.push_back(Item{spec, t.get_future()});
      work.push_back(std::move(t));
      pool_cv.notify_one();
      cv.notify_all();
    }
    std::lock_guard lk(mu);
    eof = true;
    cv.notify_all();
  });

  int rc = 0;
  for (;;) {
    Item item;
    {
      std::unique_lock lk(mu);
      cv.wait(lk, [&] { return !ordered.empty() || eof || bad; });
      if (ordered.empty()) {
        rc = bad ? 2 : 0;
        break;
      }
      item = std::move(ordered.front());
      ordered.pop_front();
    }
    CaseResult r;
    try {
      r = finish_case(item.spec, item.prepared.get(), o);
    } catch (const std::exception& e) {
      r = exception_result(item.spec, o, e);
    }
    std::cout << r.to_json().dump() << "\n" << std::flush;
  }
  {
    std::lock_guard lk(mu);
    stopping = true;
    pool_cv.notify_all();
  }
  for (auto& t : pool) t.join();
  reader.join();
  return rc;
}

}  // namespace

int worker_main(const ExecOptions& o) {
  prepare_registry();  // before any pool thread reads the registry
  return o.prefetch > 0 ? worker_pipelined(o) : worker_sequential(o);
}

}  // namespace dsv4::fuzz
