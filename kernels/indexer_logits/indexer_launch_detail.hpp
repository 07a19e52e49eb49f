// Internal: the kernel TU's raw launch entry points (no admission checks; indexer_launch.cpp does them).
#pragma once
#include "kernels/indexer_logits/indexer_logits.hpp"

namespace dsv4::kernels::indexer {

void launch_indexer_kernel(const IndexerPlan& plan, const IndexerBuffers& io, port::Stream& stream);
void launch_paged_kernel(const PagedPlan& plan, const PagedBuffers& io, port::Stream& stream);

}  // namespace dsv4::kernels::indexer
