// hipsim watchdog (DSV4_SIM_TIMEOUT=<seconds>, default 60, 0: off). Progress is a kernel thread returning; when the
// host runs queued work and no thread returns for that long, the thread that is running is stopped inside the
// hook it called (a checked access, barrier, fence or wave op: every spin loop on memory makes them), its launch
// fails, and a `timeout` finding names the kernel and, for every block in flight, where each wave is: the running
// thread at the line of its last access, threads at a barrier or wave op at its site, the others at their last
// access. Findings made before stay in the report.
// Rules: a kernel that spins without any memory access, fence or wave op is not seen; time is host wall time.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "hipsim/runtime/state.hpp"
#include "kernels/backend/sim/sim_internal.hpp"

namespace sd = dsv4::port::sim::detail;
using Clock = std::chrono::steady_clock;

namespace hipsim {

namespace {
double g_timeout_s = 60.0;
std::string g_timeout_text = "60";
const char* g_timeout_env = " (DSV4_SIM_TIMEOUT unset: the default)";
std::uint64_t g_progress = 0, g_seen = 0;
Clock::time_point g_since = Clock::now();
unsigned g_ticks = 0;
std::uint64_t g_stopped_launch = 0;  // launch the watchdog stopped: its other blocks stop at their next tick

std::string where(const sd::SimThread& t, const sd::SimThread* running) {
  auto site = [](const std::source_location& l) { return std::string(l.file_name()) + ":" + std::to_string(l.line()); };
  auto last = [&t] { return t.last_access ? std::string(t.last_access) : std::string("no checked access yet"); };
  if (&t == running) return "running, no progress, at " + last();
  switch (t.state) {
    case sd::ThreadState::done: return "returned";
    case sd::ThreadState::at_barrier: return "waiting at __syncthreads " + site(t.loc);
    case sd::ThreadState::at_wave: return "waiting at a wave op " + site(t.loc);
    case sd::ThreadState::ready: return t.started ? "ready, last access at " + last() : "not started";
    default: return "waiting at " + site(t.loc);
  }
}

// Every wave of b: runs of threads at the same place.
std::string waves(const sd::BlockExec& b, const sd::SimThread* running) {
  std::string s = "block " + dsv4::port::to_string(b.block_idx) + ":";
  for (int w = 0; w < b.nwaves; ++w) {
    s += " wave " + std::to_string(w) + ":";
    const int first = w * b.wave_size, end = first + b.wave_lanes(w);
    for (int i = first; i < end;) {
      const std::string p = where(b.threads[std::size_t(i)], running);
      int j = i + 1;
      while (j < end && where(b.threads[std::size_t(j)], running) == p) ++j;
      s += " thread" + std::string(j - i > 1 ? "s " : " ") + std::to_string(i) +
           (j - i > 1 ? "-" + std::to_string(j - 1) : "") + " " + p + ";";
      i = j;
    }
  }
  return s;
}

[[noreturn]] void stop(sd::Executor& ex, sd::BlockExec& b) {
  sd::LaunchExec& l = *b.launch;
  if (l.id != g_stopped_launch) {
    const sd::SimThread* running = &ex.current_thread();
    Finding f;
    f.kind = "timeout";
    f.kernel = l.spec->name;
    f.launch = l.id;
    f.line = "timeout in kernel '" + f.kernel + "' (launch " + std::to_string(l.id) + "): no thread returned for " +
             g_timeout_text + " s" + g_timeout_env + ": a loop that never ends (a spin on a value no block sets) or a "
             "wait that cannot complete; the launch was stopped. Where each wave is:";
    for (const sd::BlockExec* o : ex.blocks_in_flight())
      if (o->launch == &l) f.line += " " + waves(*o, running);
    if (const std::size_t waiting = l.total_blocks - l.next_block)
      f.line += " " + std::to_string(waiting) + " block(s) not started";
    add_finding(std::move(f));
    g_stopped_launch = l.id;
    ex.fail_launch(b, "stopped by the watchdog after " + g_timeout_text + " s without progress (DSV4_SIM_TIMEOUT)");
    watchdog_arm();
  }
  b.aborted = true;
  throw sd::LaunchAbort{};
}
}  // namespace

void watchdog_setup() {
  const char* s = std::getenv("DSV4_SIM_TIMEOUT");
  if (!s) return;
  char* end = nullptr;
  const double v = std::strtod(s, &end);
  if (end == s || *end != '\0' || !(v >= 0)) {
    std::fprintf(stderr, "hipsim: DSV4_SIM_TIMEOUT='%s' is not a number of seconds (0 turns the watchdog off)\n", s);
    std::exit(2);
  }
  g_timeout_s = v;
  g_timeout_text = s;
  g_timeout_env = " (DSV4_SIM_TIMEOUT)";
}

void watchdog_arm() {
  g_since = Clock::now();
  g_seen = g_progress;
}

void watchdog_progress() { ++g_progress; }

void watchdog_tick(const char* loc) {
  if (g_timeout_s <= 0) return;
  sd::Executor& ex = sd::Executor::get();
  sd::SimThread& t = ex.current_thread();
  if (loc) t.last_access = loc;
  sd::BlockExec& b = *sd::g_current->block;
  if (b.launch->id == g_stopped_launch) stop(ex, b);
  if (++g_ticks % 1024 != 0) return;
  const Clock::time_point now = Clock::now();
  if (g_progress != g_seen) {
    g_seen = g_progress;
    g_since = now;
    return;
  }
  if (std::chrono::duration<double>(now - g_since).count() >= g_timeout_s) stop(ex, b);
}

}  // namespace hipsim
