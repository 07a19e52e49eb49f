// Runner helpers of kernels/runner_support.hpp.
#include "kernels/runner_support.hpp"

#include <algorithm>
#include <cstring>

#include "kernels/port/sim.hpp"

namespace dsv4::kernels {

const port::ArchProfile& run_arch(const std::string& op, const RunOptions& o) {
  if (o.arch.empty()) return port::device_profile();
  const auto a = port::parse_arch(o.arch);
  if (!a) throw InputError(op + ": unknown arch '" + o.arch + "' (gfx942, gfx950, sm_90)");
  return port::profile(*a);
}

InputError unknown_variant(const std::string& op, const std::string& variant) {
  std::string admitted;
  if (const KernelEntry* e = KernelRegistry::instance().find(op))
    for (const std::string& v : e->variants) admitted += (admitted.empty() ? "" : ", ") + v;
  return InputError(op + ": unknown variant '" + variant + "' (" + admitted + ")");
}

SimRunScope::SimRunScope(const port::ArchProfile& arch, const RunOptions& o) : active_(port::sim::sim_active()) {
  if (!active_) return;
  saved_ = port::sim::options();
  port::sim::Options so = saved_;
  so.arch = arch.arch;
  if (o.seed) {
    so.schedule = port::sim::Schedule::random;
    so.seed = o.seed;
  }
  port::sim::set_options(so);
}

SimRunScope::~SimRunScope() {
  if (active_) port::sim::set_options(saved_);
}

int effective_wave_size(const port::ArchProfile& arch) {
  if (port::sim::sim_active() && port::sim::options().wave_size != 0) return port::sim::options().wave_size;
  return arch.wave_size;
}

port::DeviceBuffer upload_bytes(const void* src, std::size_t bytes, std::size_t min_bytes) {
  port::DeviceBuffer b(std::max(min_bytes, bytes));
  if (bytes) b.copy_from_host(src, bytes);
  return b;
}

port::DeviceBuffer upload_contiguous(const Tensor& t, std::size_t min_bytes) {
  const Tensor c = t.contiguous();
  return upload_bytes(c.data(), static_cast<std::size_t>(c.numel()) * c.element_bytes(), min_bytes);
}

namespace {

// Calls f(linear index, multi-index) for every element of t in row-major order.
template <class F>
void for_each_index(const Tensor& t, F&& f) {
  std::vector<std::int64_t> idx(static_cast<std::size_t>(t.dim()), 0);
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    f(static_cast<std::size_t>(i), idx);
    for (int d = t.dim() - 1; d >= 0; --d) {
      if (++idx[static_cast<std::size_t>(d)] < t.size(d)) break;
      idx[static_cast<std::size_t>(d)] = 0;
    }
  }
}

}  // namespace

std::vector<std::uint8_t> pack_codes(const Tensor& t) {
  const std::size_t eb = t.element_bytes();
  std::vector<std::uint8_t> buf(static_cast<std::size_t>(t.numel()) * eb);
  for_each_index(t, [&](std::size_t i, const std::vector<std::int64_t>& idx) {
    const std::uint64_t code = t.code(idx);
    std::memcpy(buf.data() + i * eb, &code, eb);  // little-endian host
  });
  return buf;
}

void unpack_codes(const std::vector<std::uint8_t>& bytes, Tensor& t) {
  const std::size_t eb = t.element_bytes();
  for_each_index(t, [&](std::size_t i, const std::vector<std::int64_t>& idx) {
    std::uint64_t code = 0;
    std::memcpy(&code, bytes.data() + i * eb, eb);
    t.set_code(idx, code);
  });
}

port::DeviceBuffer upload_codes(const Tensor& t, std::size_t min_bytes) {
  const std::vector<std::uint8_t> b = pack_codes(t);
  return upload_bytes(b.data(), b.size(), min_bytes);
}

void download_codes(const port::DeviceBuffer& dev, Tensor& t) {
  std::vector<std::uint8_t> b(static_cast<std::size_t>(t.numel()) * t.element_bytes());
  if (b.empty()) return;
  dev.copy_to_host(b.data(), b.size());
  unpack_codes(b, t);
}

WordLayout::WordLayout(const Tensor& t, std::int64_t rows_, std::int64_t cols_, std::size_t words, Offset offset_,
                       std::size_t min_bytes)
    : rows(rows_), cols(cols_), offset(std::move(offset_)), host(words, kPadWord), mapped(words, false) {
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) {
      const auto w = static_cast<std::size_t>(offset(r, c));
      host[w] = static_cast<std::uint32_t>(t.code({r, c}));
      mapped[w] = true;
    }
  dev = upload_vector(host, min_bytes);
}

bool WordLayout::unmapped_words_equal(std::uint32_t v) const {
  for (std::size_t w = 0; w < host.size(); ++w)
    if (!mapped[w] && host[w] != v) return false;
  return true;
}

void WordLayout::copy_back(Tensor& t) {
  if (!host.empty()) dev.copy_to_host(host.data(), host.size() * 4);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) t.set_code({r, c}, at(r, c));
}

Json plan_json(const PlanFields& f) {
  Json j;
  j["kernel"] = f.kernel;
  j["variant"] = f.variant;
  j["grid"] = {f.grid[0], f.grid[1], f.grid[2]};
  j["block"] = {f.block, 1, 1};
  if (f.wave_size) j["wave_size"] = *f.wave_size;
  j["lds_bytes"] = f.lds_bytes;
  j["lds_capacity"] = f.lds_capacity;
  j["workspace_bytes"] = f.workspace_bytes;
  j["tile_map"] = f.tile_map;
  j["text"] = f.text;
  return j;
}

Json tile_map_json(const std::string& output, std::int64_t row_tile, const std::string& row_name,
                   std::int64_t col_tile, const std::string& col_name, std::optional<int> row_dims) {
  Json t = {{"output", output}, {"row_tile", row_tile}, {"row_name", row_name}, {"col_tile", col_tile},
            {"col_name", col_name}};
  if (row_dims) t["row_dims"] = *row_dims;
  return t;
}

}  // namespace dsv4::kernels
