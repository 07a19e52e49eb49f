// Descriptor of op 'inv_rope_fp8_quant' (placeholder until its reference lands: registers nothing).
#include "reference/registry/registry.hpp"

namespace dsv4 {
void register_inv_rope_fp8_quant(Registry&) {}
}  // namespace dsv4
