// SkinnyWorkspacePool: pre-allocated, pre-zeroed workspace slots, one per stream, capture slots for graphs, and
// an on-demand fallback. See skinny_gemm.hpp for the contract.
#include <algorithm>
#include <string>

#include "kernels/skinny_gemm/skinny_gemm.hpp"

namespace dsv4::kernels::skinny {

SkinnyWorkspacePool::SkinnyWorkspacePool(int slots, std::size_t slot_bytes, int capture_slots)
    : slot_bytes_(slot_bytes) {
  for (int i = 0; i < slots; ++i) {
    slots_.emplace_back(slot_bytes);
    slots_.back().memset(0);
  }
  for (int i = 0; i < capture_slots; ++i) {
    capture_slots_.emplace_back(slot_bytes);
    capture_slots_.back().memset(0);
  }
}

SkinnyWorkspacePool::Lease SkinnyWorkspacePool::acquire(port::Stream& stream, std::size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stream.capturing()) {
    // A captured launch bakes its workspace address into the graph; that graph may later be replayed on any
    // stream, concurrently with live launches, so it gets a slot nobody else uses.
    if (bytes > slot_bytes_ || next_capture_ >= static_cast<int>(capture_slots_.size()))
      throw port::Error("skinny_gemm workspace pool: no capture slot for " + std::to_string(bytes) +
                        " B during stream capture (" + std::to_string(capture_slots_.size()) + " slots of " +
                        std::to_string(slot_bytes_) + " B reserved at init; reserve more)");
    port::DeviceBuffer& b = capture_slots_[next_capture_++];
    return {b.data(), b.bytes(), -1, true};
  }
  const void* key = stream.native();
  if (bytes <= slot_bytes_) {
    auto it = slot_of_stream_.find(key);
    if (it != slot_of_stream_.end()) return {slots_[it->second].data(), slot_bytes_, it->second, false};
    const int used = static_cast<int>(slot_of_stream_.size());
    if (used < static_cast<int>(slots_.size())) {
      slot_of_stream_[key] = used;
      return {slots_[used].data(), slot_bytes_, used, false};
    }
  }
  // On demand: one buffer per stream, grown when a larger request comes (the old one is retired, not freed,
  // since work or graphs may still use it).
  auto& od = on_demand_[key];
  if (!od || od->bytes() < bytes) {
    if (od) retired_.push_back(std::move(od));
    od = std::make_unique<port::DeviceBuffer>(bytes);
    od->memset(0);
  }
  return {od->data(), od->bytes(), -1, false};
}

std::vector<std::int32_t> SkinnyWorkspacePool::read_all_counters(std::size_t counter_bytes_per_slot) {
  std::lock_guard<std::mutex> lock(mu_);
  port::device_synchronize();
  std::vector<std::int32_t> all;
  auto read = [&](const port::DeviceBuffer& b) {
    const std::size_t n = std::min(counter_bytes_per_slot, b.bytes()) / 4;
    std::vector<std::int32_t> v(n);
    if (n) b.copy_to_host(v.data(), n * 4);
    all.insert(all.end(), v.begin(), v.end());
  };
  for (const auto& b : slots_) read(b);
  for (const auto& b : capture_slots_) read(b);
  for (const auto& [k, b] : on_demand_) read(*b);
  return all;
}

int SkinnyWorkspacePool::on_demand_count() const { return static_cast<int>(on_demand_.size()); }
int SkinnyWorkspacePool::stream_slots_used() const { return static_cast<int>(slot_of_stream_.size()); }

}  // namespace dsv4::kernels::skinny
