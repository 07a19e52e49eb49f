// The small-row product's dispatch and threading; see gemm_smallrow.hpp. The kernels are in
// gemm_smallrow_{portable,avx2,avx512}.cpp behind smallrow::Job.
#include "reference/ops/common/gemm_smallrow.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <omp.h>

#include "reference/ops/common/gemm_smallrow_job.hpp"
#include "reference/ops/common/quant_scale_layout.hpp"

namespace dsv4::gemm {

namespace {
// Rows of B per OpenMP task (a multiple of every kernel's tile height: 3 and 4).
constexpr std::int64_t kRowsPerTask = 96;
// A's k chunk is kept near 256 KiB (in L2 across a task's rows of B), never shorter than 512.
constexpr std::int64_t kChunkDoubles = 32768;

struct FreeDeleter {
  void operator()(double* p) const { std::free(p); }
};

// A copied to rows aligned to 64 bytes (row stride a multiple of 8 doubles): the kernels' vector loads
// of A then never straddle a cache line.
std::unique_ptr<double[], FreeDeleter> aligned_copy(const ConstRef& A, std::int64_t& lda) {
  lda = (A.cols() + 7) / 8 * 8;
  const std::size_t bytes = static_cast<std::size_t>(std::max<std::int64_t>(1, A.rows() * lda)) * sizeof(double);
  std::unique_ptr<double[], FreeDeleter> p(static_cast<double*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64)));
  if (!p) throw std::bad_alloc();
  for (Eigen::Index i = 0; i < A.rows(); ++i) std::copy(A.row(i).data(), A.row(i).data() + A.cols(), p.get() + i * lda);
  return p;
}

bool cpu_has(SimdLevel level) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();  // idempotent; needed if this runs before the constructors that set the CPU model
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
  switch (level) {
    case SimdLevel::portable: return true;
    case SimdLevel::avx2: return avx2;
    case SimdLevel::avx512: return avx2 && __builtin_cpu_supports("avx512f");
  }
  return false;
#else
  return level == SimdLevel::portable;
#endif
}

void run(SimdLevel level, const smallrow::Job& job) {
  switch (level) {
    case SimdLevel::portable: smallrow::run_portable(job); return;
#if defined(__x86_64__) || defined(__i386__)
    case SimdLevel::avx2: smallrow::run_avx2(job); return;
    case SimdLevel::avx512: smallrow::run_avx512(job); return;
#else
    default: break;
#endif
  }
  throw std::invalid_argument("gemm::product_nt_smallrow: no kernel for this level on this CPU");
}
}  // namespace

const char* simd_level_name(SimdLevel level) {
  switch (level) {
    case SimdLevel::portable: return "portable";
    case SimdLevel::avx2: return "avx2";
    case SimdLevel::avx512: return "avx512";
  }
  return "?";
}

std::vector<SimdLevel> simd_levels_available() {
  std::vector<SimdLevel> r;
  for (SimdLevel l : {SimdLevel::portable, SimdLevel::avx2, SimdLevel::avx512})
    if (cpu_has(l)) r.push_back(l);
  return r;
}

SimdLevel best_simd_level() {
  static const SimdLevel best = simd_levels_available().back();
  return best;
}

bool smallrow_operand(const Tensor& b) {
  return b.dim() == 2 && (b.dtype() == DType::BF16 || b.dtype() == DType::F16) && (b.size(1) <= 1 || b.stride(1) == 1);
}

void product_nt_smallrow(const ConstRef& A, const Tensor& b, MutRef C) { product_nt_smallrow(A, b, C, best_simd_level()); }

namespace {
void check_product(const ConstRef& A, std::int64_t m, std::int64_t bk, const MutRef& C, SimdLevel level) {
  if (bk != A.cols() || C.rows() != A.rows() || C.cols() != m)
    throw std::invalid_argument(fmt::format("gemm::product_nt_smallrow: A [{}, {}] x B [{}, {}]ᵀ -> C [{}, {}] do not agree",
                                            A.rows(), A.cols(), m, bk, C.rows(), C.cols()));
  if (!cpu_has(level))
    throw std::invalid_argument(fmt::format("gemm::product_nt_smallrow: level {} is not available on this CPU",
                                            simd_level_name(level)));
}

// B's rows over the OpenMP threads, kRowsPerTask a task; base describes the whole product.
template <typename Code>
void run_tasks(SimdLevel level, const smallrow::Job& base) {
  const std::int64_t m = base.m, tasks = (m + kRowsPerTask - 1) / kRowsPerTask;
#pragma omp parallel for schedule(dynamic, 1) if (tasks > 1 && !omp_in_parallel())
  for (std::int64_t p = 0; p < tasks; ++p) {
    smallrow::Job job = base;
    const std::int64_t j0 = p * kRowsPerTask;
    job.m = std::min(kRowsPerTask, m - j0);
    job.b = static_cast<const Code*>(base.b) + j0 * base.ldb;
    job.c = base.c + j0;
    job.row0 = base.row0 + j0;
    run(level, job);
  }
}
}  // namespace

void product_nt_smallrow(const ConstRef& A, const Tensor& b, MutRef C, SimdLevel level) {
  if (!smallrow_operand(b))
    throw std::invalid_argument("gemm::product_nt_smallrow needs a 2-D bf16/fp16 B with unit stride along k, got " +
                                describe(b));
  const std::int64_t n = A.rows(), k = A.cols(), m = b.size(0);
  check_product(A, m, b.size(1), C, level);
  if (n == 0 || m == 0) return;
  std::int64_t lda = 0;
  const auto a = aligned_copy(A, lda);
  smallrow::Job base{};
  base.a = a.get();
  base.lda = lda;
  base.b = b.data();
  base.ldb = b.stride(0);
  base.kind = b.dtype() == DType::F16 ? smallrow::BKind::fp16 : smallrow::BKind::bf16;
  base.table = code_table(DType::F16);
  base.c = C.data();
  base.ldc = C.outerStride();
  base.n = n;
  base.m = m;
  base.k = k;
  base.kc = std::max<std::int64_t>(512, kChunkDoubles / n / 8 * 8);
  run_tasks<std::uint16_t>(level, base);
}

namespace {
// Whether an e4m3fn/e4m3fnuz tensor (unit stride along dim 1) holds a NaN code (fn: 0x7F, 0xFF; fnuz: 0x80).
bool has_nan_code(const Tensor& q) {
  const auto* base = reinterpret_cast<const unsigned char*>(q.data());
  const auto w = static_cast<std::size_t>(q.size(1));
  for (std::int64_t r = 0; r < q.size(0); ++r) {
    const unsigned char* row = base + r * q.stride(0);
    if (q.dtype() == DType::F8_E4M3FNUZ ? std::memchr(row, 0x80, w) != nullptr
                                        : std::memchr(row, 0x7F, w) != nullptr || std::memchr(row, 0xFF, w) != nullptr)
      return true;
  }
  return false;
}
}  // namespace

bool smallrow_fp8_operand(const Tensor& q) {
  return q.dim() == 2 && q.element_bytes() == 1 && code_table(q.dtype()) != nullptr &&
         (q.size(1) <= 1 || q.stride(1) == 1);
}

void product_nt_smallrow_blockscaled(const ConstRef& A, const Tensor& q, const Tensor& sf, std::int64_t row_block,
                                     MutRef C) {
  product_nt_smallrow_blockscaled(A, q, sf, row_block, C, best_simd_level());
}

void product_nt_smallrow_blockscaled(const ConstRef& A, const Tensor& q, const Tensor& sf, std::int64_t row_block,
                                     MutRef C, SimdLevel level) {
  if (!smallrow_fp8_operand(q))
    throw std::invalid_argument("gemm::product_nt_smallrow_blockscaled needs a 2-D fp8 B with unit stride along k, got " +
                                describe(q));
  if (row_block < 1) throw std::invalid_argument("gemm::product_nt_smallrow_blockscaled: row_block must be >= 1");
  const std::int64_t n = A.rows(), k = A.cols(), m = q.size(0);
  check_product(A, m, q.size(1), C, level);
  if (n == 0 || m == 0) return;
  const std::int64_t rows_s = (m + row_block - 1) / row_block, groups = (k + smallrow::kScaleGroupCols - 1) / smallrow::kScaleGroupCols;
  // e4m3 codes without NaN are widened in registers (the factor 2^8 or 2^7 moved into the scales), any
  // other fp8 code through its table.
  const bool e4m3 = (q.dtype() == DType::F8_E4M3FN || q.dtype() == DType::F8_E4M3FNUZ) && !has_nan_code(q);
  const double factor = q.dtype() == DType::F8_E4M3FN ? 256.0 : 128.0;
  std::vector<double> scales(static_cast<std::size_t>(std::max<std::int64_t>(1, rows_s * groups)));
  for (std::int64_t r = 0; r < rows_s; ++r)
    for (std::int64_t g = 0; g < groups; ++g) scales[r * groups + g] = quant::scale_at(sf, r, g) * (e4m3 ? factor : 1.0);
  std::int64_t lda = 0;
  const auto a = aligned_copy(A, lda);
  smallrow::Job base{};
  base.a = a.get();
  base.lda = lda;
  base.b = q.data();
  base.ldb = q.stride(0);
  base.kind = e4m3 ? smallrow::BKind::e4m3 : smallrow::BKind::fp8;
  base.code_factor = 1.0 / factor;
  base.table = code_table(q.dtype());
  base.scales = scales.data();
  base.scale_rows = row_block;
  base.scale_groups = groups;
  base.c = C.data();
  base.ldc = C.outerStride();
  base.n = n;
  base.m = m;
  base.k = k;
  const std::int64_t g = smallrow::kScaleGroupCols;
  base.kc = std::max<std::int64_t>(512, kChunkDoubles / n / g * g);  // whole scale groups
  run_tasks<std::uint8_t>(level, base);
}

}  // namespace dsv4::gemm
