// Descriptor of op 'skinny_gemm' (placeholder until its reference lands: registers nothing).
#include "reference/registry/registry.hpp"

namespace dsv4 {
void register_skinny_gemm(Registry&) {}
}  // namespace dsv4
