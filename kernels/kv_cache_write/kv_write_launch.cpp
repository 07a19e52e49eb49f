// Host launcher of the KV-cache writer: admission (refuse before launch with the plan's reason), then the raw
// launch in the kernel TU.
#include "kernels/kv_cache_write/kv_write_launch_detail.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::kernels::kvw {

void launch_kv_cache_write(const KvWritePlan& plan, const KvWriteBuffers& io, port::Stream& stream) {
  if (!plan.ok) throw InputError("kv_cache_write refused before launch: " + plan.reason + " [" + plan.describe() + "]");
  if (plan.shape.n_tokens == 0) return;
  if (!io.kv || !io.slots || (!io.cache && plan.num_slots > 0))
    throw InputError("kv_cache_write: null device pointer among kv, slot_mapping, k_cache");
  launch_kv_write_kernel(plan, io, stream);
}

}  // namespace dsv4::kernels::kvw
