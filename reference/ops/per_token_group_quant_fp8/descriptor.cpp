// Descriptor of op 'per_token_group_quant_fp8' (placeholder until its reference lands: registers nothing).
#include "reference/registry/registry.hpp"

namespace dsv4 {
void register_per_token_group_quant_fp8(Registry&) {}
}  // namespace dsv4
