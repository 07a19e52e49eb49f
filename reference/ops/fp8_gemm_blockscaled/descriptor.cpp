// Descriptor of op 'fp8_gemm_blockscaled' (placeholder until its reference lands: registers nothing).
#include "reference/registry/registry.hpp"

namespace dsv4 {
void register_fp8_gemm_blockscaled(Registry&) {}
}  // namespace dsv4
