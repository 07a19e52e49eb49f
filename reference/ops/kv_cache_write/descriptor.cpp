// Descriptor of op 'kv_cache_write' (placeholder until its reference lands: registers nothing).
#include "reference/registry/registry.hpp"

namespace dsv4 {
void register_kv_cache_write(Registry&) {}
}  // namespace dsv4
