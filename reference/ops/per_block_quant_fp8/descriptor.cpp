// Descriptor of op 'per_block_quant_fp8' (placeholder until its reference lands: registers nothing).
#include "reference/registry/registry.hpp"

namespace dsv4 {
void register_per_block_quant_fp8(Registry&) {}
}  // namespace dsv4
