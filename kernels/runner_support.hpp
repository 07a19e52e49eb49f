// Helpers shared by the kernel-registry runners (host side, every backend): the arch profile a run targets, the
// wave size its kernels will see, the sim's profile and schedule for a run, device copies of OpCase tensors (storage bytes or logical raw codes) and the way
// back into the caller's poisoned outputs, words laid out at runner-chosen offsets with a 0xA5 fill, and the plan
// JSON fields of kernels/kernel_registry.hpp's convention.
//
// Every upload takes `min_bytes`, the smallest allocation (an empty tensor still gets a valid pointer); each runner
// passes the minimum it has always used, so the buffers a kernel sees are unchanged.
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernels/kernel_registry.hpp"
#include "kernels/port/arch.hpp"
#include "kernels/port/runtime.hpp"
#include "kernels/port/sim.hpp"

namespace dsv4::kernels {

// RunOptions::arch parsed ("gfx942", "gfx950", "sm_90"); empty: the device's (on sim: the simulated) profile.
// An unknown name is an InputError naming the op.
const port::ArchProfile& run_arch(const std::string& op, const RunOptions& o);

// The wave size kernels see on `arch`: the profile's, unless the simulator is told to run another (sim::Options).
int effective_wave_size(const port::ArchProfile& arch);

// On sim, for its lifetime: the simulated profile is `arch` and, for a nonzero RunOptions::seed, the schedule is
// random with that seed; the options before it come back when it ends (also on a throw). Elsewhere it does nothing.
class SimRunScope {
 public:
  SimRunScope(const port::ArchProfile& arch, const RunOptions& o);
  ~SimRunScope();
  SimRunScope(const SimRunScope&) = delete;
  SimRunScope& operator=(const SimRunScope&) = delete;

 private:
  bool active_ = false;
  port::sim::Options saved_;
};

// ---- device buffers from host data and tensors

// max(min_bytes, bytes) bytes on the device; the first `bytes` copied from src (nothing copied when bytes == 0).
port::DeviceBuffer upload_bytes(const void* src, std::size_t bytes, std::size_t min_bytes);
template <class T>
port::DeviceBuffer upload_vector(const std::vector<T>& v, std::size_t min_bytes) {
  return upload_bytes(v.data(), v.size() * sizeof(T), min_bytes);
}

// The bytes of t.contiguous() (its elements in row-major order, as stored).
port::DeviceBuffer upload_contiguous(const Tensor& t, std::size_t min_bytes);

// A tensor's logical elements in row-major order (any strides) as raw codes of its own element size, and back.
// A view (transpose, ...) of an output tensor writes through to the tensor it views.
std::vector<std::uint8_t> pack_codes(const Tensor& t);
void unpack_codes(const std::vector<std::uint8_t>& bytes, Tensor& t);

// pack_codes on the device, and the device codes back into t (t's numel x element size bytes).
port::DeviceBuffer upload_codes(const Tensor& t, std::size_t min_bytes);
void download_codes(const port::DeviceBuffer& dev, Tensor& t);

// A [rows, cols] tensor of 4-byte codes (fp32 / int32 scales, logits) in a device buffer of `words` words where
// element (r, c) lives at word offset(r, c); words no element maps to hold kPadWord (0xA5A5A5A5). After
// copy_back() `host` holds what the device left in every word (padding checks read it).
class WordLayout {
 public:
  static constexpr std::uint32_t kPadWord = 0xA5A5A5A5u;
  using Offset = std::function<std::int64_t(std::int64_t r, std::int64_t c)>;
  WordLayout(const Tensor& t, std::int64_t rows, std::int64_t cols, std::size_t words, Offset offset,
             std::size_t min_bytes);
  void copy_back(Tensor& t);  // device -> host -> the logical elements of t
  std::uint32_t at(std::int64_t r, std::int64_t c) const { return host[static_cast<std::size_t>(offset(r, c))]; }
  bool unmapped_words_equal(std::uint32_t v) const;  // every word no element maps to holds v (after copy_back)

  std::int64_t rows, cols;
  Offset offset;
  std::vector<std::uint32_t> host;
  std::vector<bool> mapped;  // per word: some element (r, c) lives there
  port::DeviceBuffer dev;
};

// The skeleton every runner shares around its own conversion and copies: an unknown variant is an InputError
// naming the op, the variant and the entry's admitted ones; a plan that refuses the case is CannotImplement with
// the plan's reason (a discard for fuzzing, never a kernel failure).
InputError unknown_variant(const std::string& op, const std::string& variant);
template <class Plan>
const Plan& require_plan(const std::string& op, const Plan& plan) {
  if (!plan.ok) throw CannotImplement(op + " kernel cannot implement this case: " + plan.reason);
  return plan;
}

// Runs launch(stream) RunOptions::repeats times (at least once) on one new stream, then waits for the stream.
template <class Launch>
void launch_repeated(const RunOptions& o, Launch&& launch) {
  port::Stream stream;
  for (int r = 0; r < std::max(1, o.repeats); ++r) launch(stream);
  stream.synchronize();
}

// ---- plan JSON

// The fields every runner reports (kernel_registry.hpp's convention); runners add their own keys to the result.
struct PlanFields {
  std::string kernel;
  std::string variant;
  std::array<std::int64_t, 3> grid{1, 1, 1};
  std::int64_t block = 1;               // block.x; block is reported as [block, 1, 1]
  std::optional<int> wave_size = std::nullopt;  // reported when set
  Json lds_bytes = Json::object();      // {"phase": bytes, ...}
  std::size_t lds_capacity = 0;         // bytes
  std::size_t workspace_bytes = 0;
  Json tile_map = Json::object();       // tile_map_json()
  std::string text;                     // plan.describe()
};
Json plan_json(const PlanFields& f);

// The PlanFields a plan with the usual members gives: variant_name(plan.options.variant) (found with the plan's
// namespace), grid [plan.grid, 1, 1], plan.block, plan.wave_size and plan.describe(); the runner adds the rest.
template <class Plan>
PlanFields plan_fields(const std::string& kernel, const Plan& plan) {
  return PlanFields{.kernel = kernel,
                    .variant = variant_name(plan.options.variant),
                    .grid = {plan.grid, 1, 1},
                    .block = plan.block,
                    .wave_size = plan.wave_size,
                    .text = plan.describe()};
}

// The tile map of the oracle's localisation (rows x columns over the output's 2-D view); row_dims only when set.
Json tile_map_json(const std::string& output, std::int64_t row_tile, const std::string& row_name,
                   std::int64_t col_tile, const std::string& col_name, std::optional<int> row_dims = std::nullopt);

// {"name": bytes, ...} of a plan's LDS phases / carves (anything with .name and .bytes).
template <class Phases>
Json lds_json(const Phases& phases) {
  Json j = Json::object();
  for (const auto& ph : phases) j[ph.name] = ph.bytes;
  return j;
}

}  // namespace dsv4::kernels
