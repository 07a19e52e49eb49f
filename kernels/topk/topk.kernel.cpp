// Indexer top-k kernel (plan and algorithm: topk_plan.hpp). One block per row: three radix-select passes over
// order-preserving keys (11, 11, 10 bits; 2048-bin LDS histogram, block suffix scan to find the k-th largest key's
// bin), then one selection pass writing indices through LDS counters, and -1 in the unused slots. Variants (bug
// zoo): raw_bits_key uses the float bits as keys; neg_inf_valid counts -inf logits as valid.
#include "kernels/port/hip_port.hpp"
#include "kernels/common/fp8_codec.hpp"
#include "kernels/common/plan_errors.hpp"
#include "kernels/topk/topk_launch_detail.hpp"

namespace dsv4::kernels::topk {
namespace {

struct TParams {
  const float* logits;
  const int* starts;
  const int* ends;
  int* out;
  long long cols, ld, topk;
  int relative, variant;
};

__device__ __forceinline__ bool is_valid(const TParams& p, float x) {
  if (x != x) return false;  // NaN: precondition violation, never selected
  return p.variant == static_cast<int>(TopkVariant::neg_inf_valid) || fp8::f32_bits(x) != 0xff800000u;  // x > -inf
}

__device__ __forceinline__ std::uint32_t order_key(const TParams& p, float x) {
  const std::uint32_t u = fp8::f32_bits(x);
  if (p.variant == static_cast<int>(TopkVariant::raw_bits_key)) return u;
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

__global__ void __launch_bounds__(1024) topk_kernel(TParams p) {
  DSV4_LDS(unsigned, hist, kHistBins);
  DSV4_LDS(unsigned, scan, 2 * kMaxBlockThreads);
  DSV4_LDS(unsigned, st, 4);  // [0] bin found, [1] remaining after it, [2] count of key > T taken, [3] ties taken
  const int tid = static_cast<int>(threadIdx.x);
  const int nt = static_cast<int>(blockDim.x);
  const long long r = blockIdx.x;
  long long start = port::global_load(p.starts + r), end = port::global_load(p.ends + r);
  start = start < 0 ? 0 : (start > p.cols ? p.cols : start);
  end = end < start ? start : (end > p.cols ? p.cols : end);
  const float* row = p.logits + r * p.ld;
  int* out = p.out + r * p.topk;
  const long long base = p.relative ? start : 0;

  std::uint32_t prefix = 0;
  unsigned remaining = static_cast<unsigned>(p.topk);
  bool take_all = false;
  int shift = 32;
  for (int pass = 0; pass < kRadixPasses; ++pass) {
    const int bits = pass == kRadixPasses - 1 ? 10 : 11;  // kRadixBits (a host array) as an expression
    const unsigned nbins = 1u << bits;
    shift -= bits;
    for (int b = tid; b < kHistBins; b += nt) hist[b] = 0u;
    __syncthreads();
    for (long long j = start + tid; j < end; j += nt) {
      const float x = port::global_load(row + j);
      if (!is_valid(p, x)) continue;
      const std::uint32_t k = order_key(p, x);
      if (pass > 0 && (k >> (shift + bits)) != prefix) continue;
      port::lds_atomic_add(hist, static_cast<std::ptrdiff_t>((k >> shift) & (nbins - 1u)), 1u);
    }
    __syncthreads();
    // Suffix scan over per-thread chunks of bins (chunk = nbins / nt >= 1: nt <= 1024 <= nbins).
    const int chunk = static_cast<int>(nbins) / nt;
    const int lo = tid * chunk;
    unsigned mine = 0;
    for (int b = lo; b < lo + chunk; ++b) mine += hist[b];
    scan[tid] = mine;
    __syncthreads();
    int cur = 0;
    for (int off = 1; off < nt; off <<= 1) {
      unsigned v = scan[cur * nt + tid];
      if (tid + off < nt) v += scan[cur * nt + tid + off];
      scan[(1 - cur) * nt + tid] = v;
      __syncthreads();
      cur = 1 - cur;
    }
    const unsigned suffix = scan[cur * nt + tid];  // elements in bins of this chunk and above
    if (pass == 0 && scan[cur * nt] <= remaining) {  // |L| <= topk: uniform decision
      take_all = true;
      break;
    }
    unsigned above = suffix - mine;
    if (above < remaining && above + mine >= remaining) {  // the k-th largest lies in this chunk
      for (int b = lo + chunk - 1; b >= lo; --b) {
        const unsigned h = hist[b];
        if (above + h >= remaining) {
          st[0] = static_cast<unsigned>(b);
          st[1] = remaining - above;
          break;
        }
        above += h;
      }
    }
    __syncthreads();
    prefix = (prefix << bits) | st[0];
    remaining = st[1];
    __syncthreads();
  }

  if (tid == 0) st[2] = 0u, st[3] = 0u;
  __syncthreads();
  const unsigned n_valid_out = take_all ? 0u : static_cast<unsigned>(p.topk) - remaining;  // n_gt when selecting
  for (long long j = start + tid; j < end; j += nt) {
    const float x = port::global_load(row + j);
    if (!is_valid(p, x)) continue;
    const int idx = static_cast<int>(j - base);
    if (take_all) {
      const unsigned pos = port::lds_atomic_add(st, 2, 1u);
      port::global_store(out + pos, idx);
      continue;
    }
    const std::uint32_t k = order_key(p, x);
    if (k > prefix) {
      const unsigned pos = port::lds_atomic_add(st, 2, 1u);
      port::global_store(out + pos, idx);
    } else if (k == prefix) {
      const unsigned e = port::lds_atomic_add(st, 3, 1u);
      if (e < remaining) port::global_store(out + n_valid_out + e, idx);
    }
  }
  __syncthreads();
  const long long filled = take_all ? static_cast<long long>(st[2]) : p.topk;
  for (long long s = filled + tid; s < p.topk; s += nt) port::global_store(out + s, -1);
}

}  // namespace

void launch_topk_kernel(const TopkPlan& plan, const TopkBuffers& io, port::Stream& stream) {
  TParams p{};
  p.logits = io.logits;
  p.starts = io.row_starts;
  p.ends = io.row_ends;
  p.out = io.out;
  p.cols = plan.shape.cols;
  p.ld = plan.ld;
  p.topk = plan.shape.topk;
  p.relative = plan.shape.index_base == IndexBase::row_relative;
  p.variant = static_cast<int>(plan.options.variant);
  const auto R = static_cast<std::size_t>(plan.shape.rows);
  const char* name = plan.options.variant == TopkVariant::fixed          ? "topk"
                     : plan.options.variant == TopkVariant::raw_bits_key ? "topk<raw_bits_key>"
                                                                         : "topk<neg_inf_valid>";
  port::LaunchConfig cfg{port::Dim3(static_cast<unsigned>(plan.grid)), port::Dim3(static_cast<unsigned>(plan.block)),
                         0, &stream, name,
                         {port::reads(io.logits, R * static_cast<std::size_t>(plan.ld) * 4, "logits"),
                          port::reads(io.row_starts, R * 4, "row_starts"), port::reads(io.row_ends, R * 4, "row_ends"),
                          port::writes(io.out, R * static_cast<std::size_t>(plan.shape.topk) * 4, "topk_indices")}};
  with_plan_in_errors(plan.describe(), [&] { port::launch(topk_kernel, cfg, p); });
}

}  // namespace dsv4::kernels::topk
