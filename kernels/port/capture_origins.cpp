// The capture-origin table of kernels/port/detail/capture_origins.hpp (process-wide, thread-safe).
#include "kernels/port/detail/capture_origins.hpp"

#include <map>
#include <mutex>

namespace dsv4::port::detail {
namespace {
std::mutex g_mu;
std::map<unsigned long long, const void*>& origins() {
  static std::map<unsigned long long, const void*> m;
  return m;
}
}  // namespace

void note_capture_begin(unsigned long long capture_id, const void* origin_stream) {
  std::lock_guard lock(g_mu);
  origins()[capture_id] = origin_stream;
}
const void* capture_origin(unsigned long long capture_id) {
  std::lock_guard lock(g_mu);
  auto it = origins().find(capture_id);
  return it == origins().end() ? nullptr : it->second;
}
void note_capture_end(unsigned long long capture_id) {
  std::lock_guard lock(g_mu);
  origins().erase(capture_id);
}

}  // namespace dsv4::port::detail
