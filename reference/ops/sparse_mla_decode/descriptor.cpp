// Descriptor of op 'sparse_mla_decode' (placeholder until its reference lands: registers nothing).
#include "reference/registry/registry.hpp"

namespace dsv4 {
void register_sparse_mla_decode(Registry&) {}
}  // namespace dsv4
