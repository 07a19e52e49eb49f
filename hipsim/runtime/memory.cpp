// hipsim runtime: device allocations. Every hipMalloc is its own host allocation followed by kRedzone bytes, kept
// in an ordered registry; freed allocations stay mapped (quarantined) so an access after hipFree is reported as
// such instead of reaching reused memory. The quarantine is bounded (kQuarantineBytes, oldest freed first out): a
// campaign of millions of launches keeps a fixed footprint; an access to a block past the quarantine is outside
// every allocation. Kernel-argument blocks are freed when their launch is done (nothing can reach them after it).
// File-scope `__device__` variables join the registry at their first access from a kernel (they keep their static
// storage: an access past one is reported, and performed).
// The registry is never destroyed: quarantined blocks stay reachable until exit, so LeakSanitizer's exit check
// (which runs after static destructors) does not count them as leaks.
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>

#include "hipsim/runtime/state.hpp"

namespace hipsim {

namespace {
struct Registry {
  std::map<std::uintptr_t, Allocation> by_base;  // live and quarantined allocations, by first byte
  std::deque<std::uintptr_t> quarantine;         // freed hipMalloc blocks, oldest first
  std::size_t quarantined_bytes = 0;
  std::size_t held_bytes = 0;  // footprints of every block allocate() made that is not yet forgotten
};
Registry& registry() {
  static Registry* r = new Registry;  // immortal (see the header comment)
  return *r;
}
std::size_t footprint(std::size_t bytes) { return (bytes + kRedzone + 255) / 256 * 256; }

void forget(Registry& r, std::map<std::uintptr_t, Allocation>::iterator it) {
  r.held_bytes -= footprint(it->second.bytes);
  std::free(reinterpret_cast<void*>(it->first));
  r.by_base.erase(it);
}
}  // namespace

const char* kind_name(AllocKind k) {
  switch (k) {
    case AllocKind::user_malloc: return "hipMalloc";
    case AllocKind::kernel_args: return "kernel arguments";
    case AllocKind::device_var: return "__device__ variable";
  }
  return "?";
}

void* allocate(std::size_t bytes, AllocKind kind) {
  const std::size_t total = footprint(bytes);
  void* p = std::aligned_alloc(256, total);
  if (!p) return nullptr;
  std::memset(p, 0xCD, total);
  const auto base = reinterpret_cast<std::uintptr_t>(p);
  static std::uint64_t user_serial = 0;
  const bool user = kind == AllocKind::user_malloc;
  registry().by_base[base] = Allocation{base, bytes, true, kind, user ? ++user_serial : 0, user, {}};
  registry().held_bytes += total;
  return p;
}

void register_device_var(const DeviceVarSite& s) {
  const auto base = reinterpret_cast<std::uintptr_t>(s.addr);
  auto [it, fresh] = registry().by_base.try_emplace(base);
  if (fresh) it->second = Allocation{base, std::size_t(s.bytes), true, AllocKind::device_var, 0, true, s.name};
}

std::string Allocation::describe() const {
  if (serial) return std::string(kind_name(kind)) + " allocation #" + std::to_string(serial);
  if (!name.empty()) return std::string(kind_name(kind)) + " '" + name + "'";
  return std::string(kind_name(kind)) + " allocation";
}

bool release(void* p) {
  Registry& r = registry();
  auto it = r.by_base.find(reinterpret_cast<std::uintptr_t>(p));
  if (it == r.by_base.end() || !it->second.live) return false;
  if (it->second.kind == AllocKind::kernel_args) {  // the launch that read them is done
    forget(r, it);
    return true;
  }
  if (it->second.kind != AllocKind::user_malloc) return false;  // a __device__ variable is not freed
  it->second.live = false;
  r.quarantine.push_back(it->first);
  r.quarantined_bytes += footprint(it->second.bytes);
  while (r.quarantined_bytes > kQuarantineBytes && r.quarantine.size() > 1) {
    auto old = r.by_base.find(r.quarantine.front());
    r.quarantine.pop_front();
    r.quarantined_bytes -= footprint(old->second.bytes);
    forget(r, old);
  }
  return true;
}

std::size_t quarantined_bytes() { return registry().quarantined_bytes; }

}  // namespace hipsim

extern "C" std::size_t __hipsim_held_bytes() { return hipsim::registry().held_bytes; }

namespace hipsim {

const Allocation* find_allocation(std::uintptr_t p) {
  auto& r = registry().by_base;
  auto it = r.upper_bound(p);
  if (it == r.begin()) return nullptr;
  --it;
  return p < it->second.base + it->second.bytes + kRedzone ? &it->second : nullptr;
}

}  // namespace hipsim
