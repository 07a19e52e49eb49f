// Host helpers shared by the two indexer kernel-registry runners: arch profile from RunOptions, packing a tensor's
// logical elements into a contiguous host/device buffer, and the padded logits buffer (caller's poisoned codes at
// the logical positions, 0xA5 bytes in the row padding) with its copy back and the padding check.
#pragma once
#include "kernels/runner_support.hpp"
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/indexer_logits/indexer_plan.hpp"
#include "kernels/kernel_registry.hpp"
#include "kernels/port/runtime.hpp"

namespace dsv4::kernels::indexer {

// The wave size launches run with: the sim's override when set, else the profile's.

// Logical elements in row-major order as raw codes of the tensor's own element size.
std::vector<std::uint8_t> packed_bytes(const Tensor& t);
// Int32 tensor elements as int64 (for host-side range checks).
std::vector<std::int64_t> int_values(const Tensor& t);
port::DeviceBuffer to_device(const std::vector<std::uint8_t>& bytes);

// The fp8 format of a q tensor (its dtype); throws InputError naming `op` for anything else.
Fp8 fp8_of(const Tensor& q, const char* op);

// Logits [rows, width] F32 (the caller's poisoned tensor) laid out with row_stride; padding bytes 0xA5.
struct PaddedLogits {
  std::int64_t rows = 0, width = 0, stride = 0;
  std::vector<std::uint32_t> host;
  port::DeviceBuffer dev;
  PaddedLogits(const Tensor& out, std::int64_t row_stride);
  void copy_back(Tensor& out);       // device -> host -> the logical elements of out
  bool padding_untouched() const;    // after copy_back
};

// The plan JSON fields common to both runners (kernel, grid, block, LDS phases, tile map, text).
Json common_plan_json(const CommonPlan& plan, const char* kernel, const std::string& text);

}  // namespace dsv4::kernels::indexer
