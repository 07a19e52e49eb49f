// Descriptor of op 'fp8_einsum' (placeholder until its reference lands: registers nothing).
#include "reference/registry/registry.hpp"

namespace dsv4 {
void register_fp8_einsum(Registry&) {}
}  // namespace dsv4
