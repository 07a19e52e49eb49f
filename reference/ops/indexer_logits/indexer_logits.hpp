// Float64 reference of `indexer_logits` (non-paged, DeepGEMM fp8_mqa_logits layout, ops.md §4.1).
#pragma once
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops {

Outputs indexer_logits_reference(const OpCase& c);
OpDescriptor indexer_logits_descriptor();

}  // namespace dsv4::ops
