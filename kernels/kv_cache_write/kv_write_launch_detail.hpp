// Internal: the kernel TU's raw launch entry point (no admission checks; launch_kv_cache_write does them).
#pragma once
#include "kernels/kv_cache_write/kv_cache_write.hpp"

namespace dsv4::kernels::kvw {

void launch_kv_write_kernel(const KvWritePlan& plan, const KvWriteBuffers& io, port::Stream& stream);

}  // namespace dsv4::kernels::kvw
