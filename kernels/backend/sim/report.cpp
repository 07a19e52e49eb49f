// sim backend: options, the violation report and executor statistics (kernels/port/sim.hpp).
#include "kernels/backend/sim/sim_internal.hpp"

namespace dsv4::port::sim {

using detail::Executor;

bool sim_active() { return true; }

void set_options(const Options& o) {
  Executor& ex = Executor::get();
  ex.synchronize_all();
  if (o.wave_size != 0 && o.wave_size != 32 && o.wave_size != 64)
    throw Error("sim::set_options: wave_size must be 0 (profile), 32 or 64, got " + std::to_string(o.wave_size));
  const bool new_stacks = o.stack_bytes != ex.options.stack_bytes;
  ex.options = o;
  ex.profile = &profile(o.arch);
  ex.rng.seed(o.seed);
  if (new_stacks) ex.reset_stacks();
}

const Options& options() { return Executor::get().options; }
void reset_options() { set_options(Options{}); }

std::string_view to_string(ViolationKind k) {
  switch (k) {
    case ViolationKind::lds_out_of_range: return "lds_out_of_range";
    case ViolationKind::lds_uninitialized_read: return "lds_uninitialized_read";
    case ViolationKind::lds_hazard: return "lds_hazard";
    case ViolationKind::lds_capacity: return "lds_capacity";
    case ViolationKind::barrier_divergence: return "barrier_divergence";
    case ViolationKind::wave_divergence: return "wave_divergence";
    case ViolationKind::deadlock: return "deadlock";
    case ViolationKind::kernel_exception: return "kernel_exception";
    case ViolationKind::shuffle_source_inactive: return "shuffle_source_inactive";
    case ViolationKind::cluster_lds: return "cluster_lds";
    case ViolationKind::global_out_of_range: return "global_out_of_range";
    case ViolationKind::lds_async_read_before_wait: return "lds_async_read_before_wait";
  }
  return "?";
}

std::string Violation::to_string() const {
  std::string s = std::string(sim::to_string(kind)) + " in kernel '" + kernel + "' ";
  s += has_position ? "(launch " + std::to_string(launch_id) + ") block " + port::to_string(block) + " thread " +
                          port::to_string(thread)
                    : std::string("(launch rejected before any block ran)");
  if (!array.empty()) {
    s += " array '" + array + "' offset " + std::to_string(offset) + " size " + std::to_string(size) + " (array " +
         std::to_string(array_bytes) + " B)";
  }
  if (!detail.empty()) s += ": " + detail;
  return s;
}

std::size_t Report::count(ViolationKind k) const {
  std::size_t n = 0;
  for (const Violation& v : violations) n += v.kind == k;
  return n;
}

std::vector<Violation> Report::of_kind(ViolationKind k) const {
  std::vector<Violation> out;
  for (const Violation& v : violations)
    if (v.kind == k) out.push_back(v);
  return out;
}

std::string Report::to_string() const {
  std::string s;
  for (const Violation& v : violations) s += v.to_string() + "\n";
  if (total > violations.size()) s += "... and " + std::to_string(total - violations.size()) + " more\n";
  return s;
}

const Report& report() { return Executor::get().report; }

Report take_report() {
  Report r = std::move(Executor::get().report);
  Executor::get().report = Report{};
  return r;
}

Stats stats() { return Executor::get().stats; }

}  // namespace dsv4::port::sim
