// Host API of the KV-cache writer on device buffers (plan in kv_write_plan.hpp).
#pragma once
#include "kernels/kv_cache_write/kv_write_plan.hpp"
#include "kernels/port/runtime.hpp"

namespace dsv4::kernels::kvw {

// Device pointers. kv: [n_tokens, kv_ld] bf16 or fp32 codes; slots: [n_tokens] int64 or int32; cache: num_blocks
// blocks of plan.block_stride bytes, updated in place (only the bytes of slots named by slots are written).
struct KvWriteBuffers {
  const void* kv = nullptr;
  const void* slots = nullptr;
  void* cache = nullptr;
};

// Refuses before launch (dsv4::InputError with the plan's reason) when the plan is not admitted or a pointer is
// null; a launch error is a port::Error naming the kernel and the plan.
void launch_kv_cache_write(const KvWritePlan& plan, const KvWriteBuffers& io, port::Stream& stream);

}  // namespace dsv4::kernels::kvw
