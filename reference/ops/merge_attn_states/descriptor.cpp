// Descriptor of op 'merge_attn_states' (placeholder until its reference lands: registers nothing).
#include "reference/registry/registry.hpp"

namespace dsv4 {
void register_merge_attn_states(Registry&) {}
}  // namespace dsv4
