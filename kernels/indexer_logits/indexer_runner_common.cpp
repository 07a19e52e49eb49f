// Host helpers of the indexer runners; see indexer_runner_common.hpp.
#include "kernels/indexer_logits/indexer_runner_common.hpp"

#include <algorithm>
#include <cstring>

#include "kernels/port/sim.hpp"

namespace dsv4::kernels::indexer {

namespace {
constexpr std::uint32_t kPadWord = 0xA5A5A5A5u;
}

std::vector<std::uint8_t> packed_bytes(const Tensor& t) {
  const std::size_t eb = t.element_bytes();
  std::vector<std::uint8_t> buf(static_cast<std::size_t>(t.numel()) * eb);
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    const std::uint64_t code = t.code_linear(i);
    std::memcpy(buf.data() + static_cast<std::size_t>(i) * eb, &code, eb);  // little-endian host
  }
  return buf;
}

std::vector<std::int64_t> int_values(const Tensor& t) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(t.numel()));
  for (std::int64_t i = 0; i < t.numel(); ++i) v[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(t.get_linear(i));
  return v;
}

port::DeviceBuffer to_device(const std::vector<std::uint8_t>& bytes) {
  port::DeviceBuffer b(std::max<std::size_t>(16, bytes.size()));
  if (!bytes.empty()) b.copy_from_host(bytes.data(), bytes.size());
  return b;
}

Fp8 fp8_of(const Tensor& q, const char* op) {
  if (q.dtype() == DType::F8_E4M3FN) return Fp8::e4m3fn;
  if (q.dtype() == DType::F8_E4M3FNUZ) return Fp8::e4m3fnuz;
  throw InputError(std::string(op) + ": q must be F8_E4M3FN or F8_E4M3FNUZ, got " + std::string(dtype_name(q.dtype())));
}

PaddedLogits::PaddedLogits(const Tensor& out, std::int64_t row_stride)
    : rows(out.size(0)), width(out.size(1)), stride(row_stride),
      host(static_cast<std::size_t>(rows * row_stride), kPadWord),
      dev(std::max<std::size_t>(16, static_cast<std::size_t>(rows * row_stride) * 4)) {
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < width; ++c)
      host[static_cast<std::size_t>(r * stride + c)] = static_cast<std::uint32_t>(out.code({r, c}));
  if (!host.empty()) dev.copy_from_host(host.data(), host.size() * 4);
}

void PaddedLogits::copy_back(Tensor& out) {
  if (!host.empty()) dev.copy_to_host(host.data(), host.size() * 4);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < width; ++c) out.set_code({r, c}, host[static_cast<std::size_t>(r * stride + c)]);
}

bool PaddedLogits::padding_untouched() const {
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = width; c < stride; ++c)
      if (host[static_cast<std::size_t>(r * stride + c)] != kPadWord) return false;
  return true;
}

Json common_plan_json(const CommonPlan& plan, const char* kernel, const std::string& text) {
  Json j;
  j["kernel"] = kernel;
  j["variant"] = variant_name(plan.variant);
  j["grid"] = {plan.grid[0], plan.grid[1], plan.grid[2]};
  j["block"] = {plan.block, 1, 1};
  j["lds_bytes"] = Json::object();
  for (const LdsPhase& ph : plan.lds_phases()) j["lds_bytes"][ph.name] = ph.bytes;
  j["lds_capacity"] = plan.lds_capacity;
  j["workspace_bytes"] = plan.workspace_bytes;
  j["row_stride"] = plan.row_stride;
  j["tile_map"] = {{"output", "logits"}, {"row_tile", 1},          {"row_name", "query row"},
                   {"col_tile", kKeysPerBlock}, {"col_name", "key tile"}};
  j["text"] = text;
  return j;
}

}  // namespace dsv4::kernels::indexer
