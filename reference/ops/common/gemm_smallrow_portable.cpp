// The small-row kernel in portable C++ (gemm_smallrow_tile.hpp with one double a "vector"): the
// fallback on any CPU, and the level the tests force to check the tile loop without an ISA. Tiles of
// up to 4 B rows x 4 A rows: 16 independent sums. bf16 decoded by its bits, fp16 and fp8 through the table.
#define DSV4_SMALLROW_TARGET
#include "reference/ops/common/gemm_smallrow_tile.hpp"

namespace dsv4::gemm::smallrow {
namespace {

struct Portable {
  using vec = double;
  static constexpr int kLanes = 1;
  static constexpr int kMaxNr = 4;
  static constexpr int kMaxMr = 4;
  static constexpr int mr_for(int) { return 4; }
  static vec zero() { return 0.0; }
  static vec load_a(const double* p) { return *p; }
  template <BKind K>
  static vec load_b(const Code<K>* p, const Job& j) { return decode1<K>(*p, j); }
  static vec set1(double x) { return x; }
  static vec mul(vec a, vec b) { return a * b; }
  static vec fma(vec a, vec b, vec c) { return a * b + c; }
  static double hsum(vec v) { return v; }
};

}  // namespace

void run_portable(const Job& job) { run_job<Portable>(job); }

}  // namespace dsv4::gemm::smallrow
