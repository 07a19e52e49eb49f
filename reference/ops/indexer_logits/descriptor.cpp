// Descriptor of op 'indexer_logits' (placeholder until its reference lands: registers nothing).
#include "reference/registry/registry.hpp"

namespace dsv4 {
void register_indexer_logits(Registry&) {}
}  // namespace dsv4
