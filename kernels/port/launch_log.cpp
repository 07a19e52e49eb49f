// Backend-neutral parts of the runtime API: Dim3 printing, the launch log (bounded to the last 4096 launches) and
// the runtime observer slot (each backend calls it at its stream-ordering calls).
#include "kernels/port/detail/launch_log.hpp"

#include <atomic>
#include <deque>
#include <mutex>

namespace dsv4::port {

std::string to_string(const Dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

namespace {
std::atomic<RuntimeObserver*> g_observer{nullptr};

struct Log {
  std::mutex mu;
  std::deque<LaunchRecord> records;
  std::uint64_t next_id = 1;
};
Log& log() {
  static Log l;
  return l;
}
}  // namespace

void set_runtime_observer(RuntimeObserver* observer) { g_observer.store(observer); }
RuntimeObserver* runtime_observer() { return g_observer.load(); }

std::vector<LaunchRecord> launch_log() {
  std::lock_guard lock(log().mu);
  return {log().records.begin(), log().records.end()};
}

void clear_launch_log() {
  std::lock_guard lock(log().mu);
  log().records.clear();
}

namespace detail {
std::uint64_t record_launch(const LaunchConfig& cfg, const void* stream_native, bool captured, bool notify) {
  LaunchRecord rec{0, cfg.kernel_name ? cfg.kernel_name : "", cfg.grid, cfg.block, cfg.dynamic_lds_bytes,
                   stream_native, cfg.ranges, captured};
  {
    std::lock_guard lock(log().mu);
    rec.id = log().next_id++;
    log().records.push_back(rec);
    if (log().records.size() > 4096) log().records.pop_front();
  }
  if (notify)
    if (RuntimeObserver* o = runtime_observer()) o->on_launch(rec);
  return rec.id;
}

std::string describe_launch(const LaunchConfig& cfg) {
  return "kernel '" + std::string(cfg.kernel_name ? cfg.kernel_name : "") + "' grid " + to_string(cfg.grid) +
         " block " + to_string(cfg.block) + " dynamic LDS " + std::to_string(cfg.dynamic_lds_bytes) + " B" +
         (cfg.cluster_blocks > 1 ? " cluster " + std::to_string(cfg.cluster_blocks) : "");
}

std::string cluster_problem(const LaunchConfig& cfg, const ArchProfile& target) {
  const unsigned c = cfg.cluster_blocks;
  if (c == 1) return {};
  if (c == 0) return "cluster_blocks is 0 (1 means no clusters)";
  if (static_cast<int>(c) > target.max_cluster_blocks)
    return "a cluster of " + std::to_string(c) + " workgroups exceeds the " + std::string(target.name) + " limit of " +
           std::to_string(target.max_cluster_blocks) + (target.max_cluster_blocks == 1 ? " (no thread-block clusters)" : "");
  if (cfg.grid.x % c != 0)
    return "grid.x = " + std::to_string(cfg.grid.x) + " is not a multiple of the cluster size " + std::to_string(c);
  return {};
}
}  // namespace detail

}  // namespace dsv4::port
