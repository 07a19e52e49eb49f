// Plan of the indexer top-k kernel; see topk_plan.hpp.
#include "kernels/topk/topk_plan.hpp"

#include <fmt/format.h>

#include "kernels/plan_support.hpp"

namespace dsv4::kernels::topk {

const char* variant_name(TopkVariant v) {
  switch (v) {
    case TopkVariant::fixed: return "default";
    case TopkVariant::raw_bits_key: return "raw_bits_key";
    case TopkVariant::neg_inf_valid: return "neg_inf_valid";
  }
  return "?";
}

std::optional<TopkVariant> parse_topk_variant(const std::string& s) {
  if (s == "default" || s == "fixed") return TopkVariant::fixed;
  if (s == "raw_bits_key") return TopkVariant::raw_bits_key;
  if (s == "neg_inf_valid") return TopkVariant::neg_inf_valid;
  return std::nullopt;
}

double TopkPlan::bytes_compulsory() const {
  return static_cast<double>(shape.rows) * (4.0 * shape.cols + 4.0 * shape.topk + 8.0);
}

double TopkPlan::bytes_moved() const {
  return static_cast<double>(shape.rows) * (4.0 * shape.cols * (kRadixPasses + 1) + 4.0 * shape.topk + 8.0);
}

std::string TopkPlan::describe() const {
  return fmt::format("topk {} R={} C={} ld={} topk={} base={} radix=11/11/10 block={} grid={} lds={} B of {} "
                     "wave={} variant={}{}",
                     port::profile(arch).name, shape.rows, shape.cols, ld, shape.topk,
                     shape.index_base == IndexBase::absolute ? "absolute" : "row_relative", block, grid, lds_bytes,
                     lds_capacity, wave_size, variant_name(options.variant), ok ? "" : " REFUSED: " + reason);
}

TopkPlan make_topk_plan(const TopkShape& shape, const port::ArchProfile& arch, const TopkOptions& opt) {
  TopkPlan p;
  p.shape = shape;
  p.options = opt;
  p.arch = arch.arch;
  p.wave_size = opt.wave_size ? opt.wave_size : arch.wave_size;
  p.ld = shape.ld ? shape.ld : shape.cols;
  p.lds_capacity = arch.lds_bytes_per_block;
  p.lds = {{"histogram (2048 x u32)", kHistBins * 4u},
           {"suffix scan (2 x 1024 x u32)", 2u * kMaxBlockThreads * 4u},
           {"state (prefix bin, remaining, counters)", 16u}};
  for (const auto& c : p.lds) p.lds_bytes += c.bytes;
  if (shape.topk < 1 || shape.topk > kMaxTopk)
    return refuse(p, fmt::format("topk = {} must lie in [1, {}]", shape.topk, kMaxTopk));
  if (shape.rows < 0 || shape.rows > 0x7fffffff)
    return refuse(p, fmt::format("R = {} rows must lie in [0, 2^31 - 1] (one block per row, grid.x)", shape.rows));
  if (shape.cols < 0 || shape.cols > kMaxCols)
    return refuse(p, fmt::format("C = {} columns must lie in [0, 2^24] (int32 indices, u32 histogram counts; tested "
                              "up to 128K)", shape.cols));
  if (p.ld < shape.cols) return refuse(p, fmt::format("row stride {} is below C = {}", p.ld, shape.cols));
  if (shape.select_neg_inf)
    return refuse(p, "masked=select_neg_inf (torch.topk demo: fill with masked positions) is not implemented; this "
                  "kernel writes -1 (masked=minus1)");
  if (p.wave_size != 32 && p.wave_size != 64) return refuse(p, fmt::format("wave size {} is not 32 or 64", p.wave_size));
  int b = opt.block_threads ? opt.block_threads : (shape.cols <= 4096 ? 256 : 1024);
  if (b < 64 || b > kMaxBlockThreads || (b & (b - 1)) != 0)
    return refuse(p, fmt::format("block of {} threads must be a power of two in [64, {}] (the scan splits {} bins "
                              "evenly)", b, kMaxBlockThreads, kHistBins / 2));
  p.block = b;
  if (p.lds_bytes > p.lds_capacity)
    return refuse(p, fmt::format("LDS {} B exceeds the {} B per block of {}", p.lds_bytes, p.lds_capacity, arch.name));
  p.grid = shape.rows;
  p.ok = true;
  return p;
}

bool can_implement(const TopkShape& shape, const port::ArchProfile& arch, const TopkOptions& opt) {
  return make_topk_plan(shape, arch, opt).ok;
}

}  // namespace dsv4::kernels::topk
