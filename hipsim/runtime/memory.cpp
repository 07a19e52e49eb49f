// hipsim runtime: device allocations. Every hipMalloc is its own host allocation followed by kRedzone bytes, kept
// in an ordered registry; freed allocations stay mapped (quarantined) so an access after hipFree is reported as
// such instead of reaching reused memory. File-scope `__device__` variables join the registry at their first access
// from a kernel (they keep their static storage: an access past one is reported, and performed).
#include <cstdlib>
#include <cstring>
#include <map>

#include "hipsim/runtime/state.hpp"

namespace hipsim {

namespace {
std::map<std::uintptr_t, Allocation>& registry() {
  static std::map<std::uintptr_t, Allocation> r;
  return r;
}
}  // namespace

void* allocate(std::size_t bytes, const char* kind) {
  const std::size_t total = (bytes + kRedzone + 255) / 256 * 256;
  void* p = std::aligned_alloc(256, total);
  if (!p) return nullptr;
  std::memset(p, 0xCD, total);
  const auto base = reinterpret_cast<std::uintptr_t>(p);
  static std::uint64_t user_serial = 0;
  const bool user = std::strcmp(kind, "hipMalloc") == 0;
  registry()[base] = Allocation{base, bytes, true, kind, user ? ++user_serial : 0, user, {}};
  return p;
}

void register_device_var(const DeviceVarSite& s) {
  const auto base = reinterpret_cast<std::uintptr_t>(s.addr);
  auto [it, fresh] = registry().try_emplace(base);
  if (fresh) it->second = Allocation{base, std::size_t(s.bytes), true, "__device__ variable", 0, true, s.name};
}

std::string Allocation::describe() const {
  if (serial) return std::string(kind) + " allocation #" + std::to_string(serial);
  if (!name.empty()) return std::string(kind) + " '" + name + "'";
  return std::string(kind) + " allocation";
}

bool release(void* p) {
  auto it = registry().find(reinterpret_cast<std::uintptr_t>(p));
  if (it == registry().end() || !it->second.live) return false;
  it->second.live = false;
  return true;
}

const Allocation* find_allocation(std::uintptr_t p) {
  auto& r = registry();
  auto it = r.upper_bound(p);
  if (it == r.begin()) return nullptr;
  --it;
  return p < it->second.base + it->second.bytes + kRedzone ? &it->second : nullptr;
}

}  // namespace hipsim
