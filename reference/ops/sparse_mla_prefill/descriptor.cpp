// Descriptor of op 'sparse_mla_prefill' (placeholder until its reference lands: registers nothing).
#include "reference/registry/registry.hpp"

namespace dsv4 {
void register_sparse_mla_prefill(Registry&) {}
}  // namespace dsv4
