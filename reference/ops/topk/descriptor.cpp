// Descriptor of op 'topk' (placeholder until its reference lands: registers nothing).
#include "reference/registry/registry.hpp"

namespace dsv4 {
void register_topk(Registry&) {}
}  // namespace dsv4
