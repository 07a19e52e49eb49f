// Every MFMA builtin of hipsim/amdgcn_mfma.h against the layout tables of tests/hipsim/mfma_layouts (AMD's Matrix
// Instruction Calculator for CDNA3; the CDNA4 ISA guide for the gfx950-only ones, generate.sh): for every lane and
// register slot of A, B and D. First every table entry is checked against the CDNA4 ISA guide's layout formulas
// (7.1.4.1 inputs, 7.1.4.2 outputs, 7.1.5.1 FP8 halves of the f8f6f4 forms, 7.1.6.3 BLGP), written out here a second
// time, independently of generate.sh and of the emulation. The CBSZ/ABID tables of the 16-block 4x4x4 form are not:
// 7.1.6.1's p_a(l) = l % S + S*ABID (S = 64 / 2^CBSZ) would broadcast one block to the whole wave, where the
// calculator (and the sim) broadcast block ABID within each group of 2^CBSZ blocks; the two agree for 2 blocks.
// Rules: inputs are placed and D is read only through the tables, never through the emulation's formulas. One run
// per k0 and checked matrix X (A or B): X holds a distinct nonzero code in every slot (+code where the slot's k is
// k0, -code elsewhere), the other operand is 1 at k0 and 0 elsewhere, C holds a distinct code per D slot, and slots
// the table leaves unused hold NaN. So D[i][j] must equal X's k0 entry plus C exactly (one product, all values exact
// in fp32): a slot read from the wrong lane, register, k, row or block, or an unused slot read at all, changes D.
// The broadcast modifiers (CBSZ/ABID, BLGP) of the 4x4x4 form use the calculator's tables for those settings. The
// scaled gfx950 MFMAs run with e8m0 scales of 1 on the one-hot operand and, on the coded one, a power of two per lane
// (rule, CDNA4 ISA guide 7.2.1: the scale of row i's (column j's) k is op_sel's byte of the scale VGPR of lane
// i + T*(k/32), which for fp8 is not the lane holding the value; the other bytes are 0xFF, NaN, so a wrong byte
// shows): 2^(k/32 - 1), so a scale read from the wrong k group shows, times a per-row power of two that keeps fp4's
// and fp6's few values distinct across rows.
// The i8 forms run the same way with integer codes (C and D int32 bits); the codes that reach D are positive, so
// signedness is mfma_gemm.hip's to check.
// Argument: the mfma_layouts folder.
#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <array>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "reference/formats/format.hpp"
#include "tests/hipsim/mfma_tables.hpp"

typedef _Float16 half4_t __attribute__((ext_vector_type(4)));
typedef _Float16 half8_t __attribute__((ext_vector_type(8)));
typedef short short4_t __attribute__((ext_vector_type(4)));
typedef __bf16 bf16x8_t __attribute__((ext_vector_type(8)));
typedef float floatx4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));
typedef int intx4 __attribute__((ext_vector_type(4)));
typedef int intx8 __attribute__((ext_vector_type(8)));
typedef int intx16 __attribute__((ext_vector_type(16)));

namespace fmt = dsv4::formats;
constexpr int kLanes = 64, kSlotBytes = 32;

template <class VA, class VD, class F>
__device__ void apply(F f, const unsigned char* pa, const unsigned char* pb, const float* pc, float* pd, int sa,
                      int sb) {
  VA a, b;
  VD c;
  std::memcpy(&a, pa, sizeof a);
  std::memcpy(&b, pb, sizeof b);
  std::memcpy(&c, pc, sizeof c);
  const VD r = f(a, b, c, sa, sb);
  std::memcpy(pd, &r, sizeof r);
}

#define MFMA_OP(ID, NAME, VA, VD)                                                                                \
  if constexpr (Op == ID)                                                                                        \
    apply<VA, VD>([](VA a, VA b, VD c, int, int) { return __builtin_amdgcn_mfma_##NAME(a, b, c, CB, AB, BG); }, pa, \
                  pb, pc, pd, sa, sb);
// The scaled MFMA: CB and BG are the A and B formats, AB the op_sel of both scales.
#define MFMA_SCALE_OP(ID)                                                                                         \
  if constexpr (Op == ID)                                                                                         \
    apply<intx8, floatx4>([](intx8 a, intx8 b, floatx4 c, int sa, int sb) {                                       \
      return __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(a, b, c, CB, BG, AB, sa, AB, sb);                   \
    }, pa, pb, pc, pd, sa, sb);

template <int Op, int CB, int AB, int BG>
__device__ void call(const unsigned char* pa, const unsigned char* pb, const float* pc, float* pd, int sa, int sb) {
  MFMA_OP(0, f32_4x4x4f16, half4_t, floatx4)
  MFMA_OP(1, f32_16x16x16f16, half4_t, floatx4)
  MFMA_OP(2, f32_32x32x8f16, half4_t, floatx16)
  MFMA_OP(3, f32_4x4x4bf16_1k, short4_t, floatx4)
  MFMA_OP(4, f32_16x16x16bf16_1k, short4_t, floatx4)
  MFMA_OP(5, f32_32x32x8bf16_1k, short4_t, floatx16)
  MFMA_OP(6, f32_16x16x32_fp8_fp8, long, floatx4)
  MFMA_OP(7, f32_16x16x32_fp8_bf8, long, floatx4)
  MFMA_OP(8, f32_16x16x32_bf8_fp8, long, floatx4)
  MFMA_OP(9, f32_16x16x32_bf8_bf8, long, floatx4)
  MFMA_OP(10, f32_32x32x16_fp8_fp8, long, floatx16)
  MFMA_OP(11, f32_32x32x16_fp8_bf8, long, floatx16)
  MFMA_OP(12, f32_32x32x16_bf8_fp8, long, floatx16)
  MFMA_OP(13, f32_32x32x16_bf8_bf8, long, floatx16)
  MFMA_OP(20, i32_16x16x32_i8, long, intx4)
  MFMA_OP(21, i32_32x32x16_i8, long, intx16)
#if defined(__gfx950__)
  MFMA_OP(22, i32_16x16x64_i8, intx4, intx4)
  MFMA_OP(23, i32_32x32x32_i8, intx4, intx16)
  MFMA_OP(14, f32_16x16x32_f16, half8_t, floatx4)
  MFMA_OP(15, f32_16x16x32_bf16, bf16x8_t, floatx4)
  MFMA_OP(16, f32_32x32x16_f16, half8_t, floatx16)
  MFMA_OP(17, f32_32x32x16_bf16, bf16x8_t, floatx16)
  MFMA_SCALE_OP(18)
  if constexpr (Op == 19)
    apply<intx8, floatx16>([](intx8 a, intx8 b, floatx16 c, int sa, int sb) {
      return __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4(a, b, c, CB, BG, AB, sa, AB, sb);
    }, pa, pb, pc, pd, sa, sb);
#endif
}

template <int Op, int CB, int AB, int BG>
__global__ void mfma_kernel(const unsigned char* a, const unsigned char* b, const float* c, float* d, const int* sa,
                            const int* sb, int passes) {
  const int l = threadIdx.x;
  for (int p = 0; p < passes; ++p) {
    const std::size_t s = std::size_t(p) * kLanes + std::size_t(l);
    call<Op, CB, AB, BG>(a + kSlotBytes * s, b + kSlotBytes * s, c + 16 * s, d + 16 * s, sa[s], sb[s]);
  }
}

using Launch = void (*)(const unsigned char*, const unsigned char*, const float*, float*, const int*, const int*, int);
template <int Op, int CB = 0, int AB = 0, int BG = 0>
void launch(const unsigned char* a, const unsigned char* b, const float* c, float* d, const int* sa, const int* sb,
            int passes) {
  mfma_kernel<Op, CB, AB, BG><<<1, kLanes>>>(a, b, c, d, sa, sb, passes);
}

#if defined(__gfx950__)
const fmt::Format kFp8 = fmt::Format::e4m3fn, kBf8 = fmt::Format::e5m2;
#else
const fmt::Format kFp8 = fmt::Format::e4m3fnuz, kBf8 = fmt::Format::e5m2fnuz;
#endif

// The instruction's shape and modifiers, for the guide's formulas.
struct Shape {
  int m, n, blocks = 1, cbsz = 0, abid = 0, blgp = 0;
  bool f8f6f4 = false;
};

struct Case {
  std::string name, a_table, b_table, d_table;
  fmt::Format fa, fb;
  int k;
  Launch run;
  int opsel = -1;  // >= 0: the scaled MFMA, scales in byte opsel
  Shape shape{0, 0};
  bool i8 = false;  // the i8 forms: fa/fb are unused, the items signed 8-bit integers, C and D int32
};

int bits_of(fmt::Format f) {
  switch (f) {
    case fmt::Format::fp16: case fmt::Format::bf16: return 16;
    case fmt::Format::e2m1fn: return 4;
    case fmt::Format::e2m3fn: case fmt::Format::e3m2fn: return 6;
    default: return 8;
  }
}
// The formats without NaN (fp4, fp6): unused slots hold their largest value instead.
bool no_nan(fmt::Format f) {
  return f == fmt::Format::e2m1fn || f == fmt::Format::e2m3fn || f == fmt::Format::e3m2fn;
}

// The CDNA4 ISA guide's layout formulas (independent of generate.sh and of the emulation): where input value
// X[b][row][col] (A[b,i,k] or B[b,k,j]) and output D[b,i,j] live. Returns {lane, item}.
struct Place {
  int lane, item;
};
// 7.1.4.1: K_L = K / (64 / (T*B)); A[b,i,k] in item k % K_L of lane i + M*(b + B*(k/K_L)), B[b,k,j] likewise with
// N and j. 7.1.5.1's FP8 tables of the f8f6f4 forms: v0-v3 hold k < K/2, v4-v7 the rest, 16 k per lane in each.
// 7.1.6.3 table 29: BLGP makes lane l_b read B from lane p(l_b).
Place guide_input(const Shape& sh, int K, bool is_b, int bits, int b, int t, int k) {
  const int T = is_b ? sh.n : sh.m, KL = K / (64 / (T * sh.blocks));
  Place p{t + T * (b + sh.blocks * (k / KL)), k % KL};
  if (sh.f8f6f4 && bits == 8) {
    const int half = k / (K / 2), kk = k % (K / 2);
    p = {t + T * (kk / 16), 16 * half + kk % 16};
  }
  if (is_b) {
    const int l = p.lane;
    const int perm[8] = {l, l % 32, l % 32 + 32, (l + 16) % 64, l % 16, l % 16 + 16, l % 16 + 32, l % 16 + 48};
    p.lane = perm[sh.blgp];
  }
  return p;
}
// 7.1.4.2: H = 4, B_I = ceil(64 / (N*M/H)), M_I = (64/B_I) / N, G = M / (H*M_I); D[b,i,j] in item
// (i%H) + H*(i/(H*M_I) + G*(b/B_I)) of lane j + N*((i/H)%M_I + M_I*(b%B_I)).
Place guide_output(const Shape& sh, int b, int i, int j) {
  const int H = 4, BI = (64 + sh.n * sh.m / H - 1) / (sh.n * sh.m / H), MI = (64 / BI) / sh.n, G = sh.m / (H * MI);
  return {j + sh.n * ((i / H) % MI + MI * (b % BI)), (i % H) + H * (i / (H * MI) + G * (b / BI))};
}
// 7.2.1: the scale of row i of A (column j of B) for k is in lane i + T*(k/32).
int guide_scale_lane(int T, int t, int k) { return t + T * (k / 32); }

// Every entry of the three tables against the formulas above; returns the number of disagreements.
int check_tables_against_guide(const Case& cs, const std::vector<MfmaSlot>& ta, const std::vector<MfmaSlot>& tb,
                               const std::vector<MfmaSlot>& td) {
  if (cs.shape.cbsz != 0) return 0;  // 7.1.6.1 vs the calculator: see the header comment
  int bad = 0;
  auto check = [&](const char* what, const MfmaEntry& e, int lane, int item, Place want) {
    if (want.lane == lane && want.item == item) return;
    if (bad++ < 4)
      std::printf("FAIL %s: table has %s[%d][%d].B%d in lane %d item %d, the CDNA4 guide says lane %d item %d\n",
                  cs.name.c_str(), what, e.row, e.col, e.block, lane, item, want.lane, want.item);
  };
  for (const auto& s : ta)
    for (const auto& e : s.entries)
      check("A", e, s.lane, s.element, guide_input(cs.shape, cs.k, false, bits_of(cs.fa), e.block, e.row, e.col));
  for (const auto& s : tb)
    for (const auto& e : s.entries)
      check("B", e, s.lane, s.element, guide_input(cs.shape, cs.k, true, bits_of(cs.fb), e.block, e.col, e.row));
  for (const auto& s : td)
    for (const auto& e : s.entries) check("D", e, s.lane, s.element, guide_output(cs.shape, e.block, e.row, e.col));
  const std::size_t kb = std::size_t(cs.k) * std::size_t(cs.shape.blocks);
  const std::size_t want_a = std::size_t(cs.shape.m) * kb, want_b = std::size_t(cs.shape.n) * kb;
  if (cs.shape.blgp == 0 && (ta.size() != want_a || tb.size() != want_b)) {
    std::printf("FAIL %s: the A/B tables have %zu/%zu slots, the instruction reads %zu/%zu\n", cs.name.c_str(),
                ta.size(), tb.size(), want_a, want_b);
    ++bad;
  }
  return bad;
}

// The code of value v in format f (searched by the exact decode: v is exact in f by construction).
std::uint32_t code_of(fmt::Format f, double v) {
  static std::map<std::pair<int, double>, std::uint32_t> memo;  // NaN is keyed as +Inf (no input uses Inf)
  auto key = std::make_pair(int(f), std::isnan(v) ? HUGE_VAL : v);
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  for (std::uint32_t c = 0; c < fmt::info(f).code_count(); ++c) {
    const double d = fmt::decode(f, c);
    if ((std::isnan(v) && std::isnan(d)) || d == v) return memo[key] = c;
  }
  throw std::runtime_error("value not exact in the format");
}

// Distinct positive values, exact in every input format: 8 mantissa steps per binade for the 3-bit-mantissa
// formats, 4 for e5m2 (2 bits), 2^-8 .. 240 (normal in e4m3fn/fnuz and e5m2/fnuz alike).
// fp4 (e2m1) has 7 positive values: 0.5 .. 6; the scale sets them apart across rows.
// fp6: the 31 positive values of e2m3fn (0.125 .. 7.5) / e3m2fn (0.0625 .. 28), read from the decode.
// small_count: how many distinct values code_value gives for fp4/fp6 (the scale sets rows apart beyond that).
int small_count(fmt::Format f) { return f == fmt::Format::e2m1fn ? 7 : 31; }
int small_span(fmt::Format f) { return f == fmt::Format::e2m1fn ? 4 : f == fmt::Format::e2m3fn ? 6 : 9; }
double code_value(fmt::Format f, int r) {
  if (f == fmt::Format::e2m1fn) return std::array{0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0}[std::size_t(r % 7)];
  if (f == fmt::Format::e2m3fn || f == fmt::Format::e3m2fn) return fmt::decode(f, std::uint32_t(1 + r % 31));
  const int steps = (f == fmt::Format::e5m2 || f == fmt::Format::e5m2fnuz) ? 4 : 8;
  const int e0 = steps == 4 ? 8 : 4;
  return (1.0 + double(r % steps) / steps) * std::ldexp(1.0, r / steps - e0);
}

struct Key {
  int r, c, b;
  bool operator<(const Key& o) const { return std::tie(r, c, b) < std::tie(o.r, o.c, o.b); }
};

int run_case(const Case& cs, const std::string& dir) {
  const auto ta = read_mfma_table(dir + "/" + cs.a_table, bits_of(cs.fa));
  const auto tb = read_mfma_table(dir + "/" + cs.b_table, bits_of(cs.fb));
  const auto td = read_mfma_table(dir + "/" + cs.d_table, 32);
  int bad = check_tables_against_guide(cs, ta, tb, td), printed = 0;
  for (int checked = 0; checked < 2; ++checked) {  // 0: A carries the codes, 1: B does
    const int passes = cs.k;
    std::vector<unsigned char> a(std::size_t(passes) * kLanes * kSlotBytes), b(a.size());
    std::vector<float> c(std::size_t(passes) * kLanes * 16), d(c.size(), 0.f);
    std::vector<int> sa(std::size_t(passes) * kLanes), sb(sa.size());
    std::vector<std::map<Key, double>> av(static_cast<std::size_t>(passes)), bv = av, cv = av;
    for (int k0 = 0; k0 < passes; ++k0) {
      // fill: every slot first NaN (unused), then the table's slots
      auto put = [&](std::vector<unsigned char>& buf, int lane, int e, int w, std::uint32_t code) {
        const std::size_t bit = (std::size_t(k0) * kLanes + std::size_t(lane)) * kSlotBytes * 8 + std::size_t(e * w);
        for (int i = 0; i < w; ++i) {
          unsigned char& byte = buf[(bit + std::size_t(i)) / 8];
          const int at = int((bit + std::size_t(i)) % 8);
          byte = (unsigned char)((byte & ~(1 << at)) | (((code >> i) & 1u) << at));
        }
      };
      auto fill = [&](std::vector<unsigned char>& buf, std::vector<int>& scale, const std::vector<MfmaSlot>& t,
                      fmt::Format f, bool codes, bool k_is_row, std::map<Key, double>& val) {
        const int w = bits_of(f);
        // unused slots: NaN, or the largest value of fp4 / fp6 (which have none)
        // i8: values are their own codes (two's complement byte); no NaN, so unused slots hold 127
        auto code = [&](double v) { return cs.i8 ? std::uint32_t(std::uint8_t(std::int8_t(v))) : code_of(f, v); };
        const std::uint32_t nan = cs.i8 ? 0x7Fu : code_of(f, no_nan(f) ? fmt::max_finite(f) : std::nan(""));
        const int T = k_is_row ? cs.shape.n : cs.shape.m;
        for (int l = 0; l < kLanes; ++l) {
          for (int e = 0; e < kSlotBytes * 8 / w; ++e) put(buf, l, e, w, nan);
          // the coded operand's scale (lane l: row or column l % T, k group l / T): 2^(l/T - 1) times, for fp4 /
          // fp6, 2^(span * (row / values)); op_sel's byte, the other bytes NaN. The one-hot operand's: 1.
          const int ex = !codes ? 0 : l / T - 1 + (no_nan(f) ? small_span(f) * ((l % T) / small_count(f)) : 0);
          if (cs.opsel >= 0)
            scale[std::size_t(k0) * kLanes + std::size_t(l)] =
                int(~(0xFFu << (8 * cs.opsel)) | (unsigned(127 + ex) << (8 * cs.opsel)));
        }
        int rank_k0 = 0, rank_other = 0;
        for (const auto& s : t) {
          const int k = k_is_row ? s.entries[0].row : s.entries[0].col;
          double v;
          if (codes && cs.i8) v = k == k0 ? 1 + rank_k0++ % 64 : -(1 + rank_other++ % 64);
          else if (codes) v = k == k0 ? code_value(f, rank_k0++ % 64) : -code_value(f, rank_other++ % 64);
          else v = k == k0 ? 1.0 : 0.0;
          put(buf, s.lane, s.element, w, code(v));
          const int sl = guide_scale_lane(T, k_is_row ? s.entries[0].col : s.entries[0].row, k);
          const int ex = cs.opsel >= 0 ? int((unsigned(scale[std::size_t(k0) * kLanes + std::size_t(sl)]) >>
                                              (8 * cs.opsel)) & 0xFFu) - 127 : 0;
          for (const auto& e : s.entries) val[{e.row, e.col, e.block}] = std::ldexp(v, ex);
        }
      };
      fill(a, sa, ta, cs.fa, checked == 0, false, av[std::size_t(k0)]);  // A[i][k]: k is the column
      fill(b, sb, tb, cs.fb, checked == 1, true, bv[std::size_t(k0)]);   // B[k][j]: k is the row
      int rank = 0;
      for (const auto& s : td) {
        double v = double(1 + rank++) / 4;  // exact next to any code (codes < 256, steps >= 2^-10)
        float& slot = c[(std::size_t(k0) * kLanes + std::size_t(s.lane)) * 16 + std::size_t(s.element)];
        if (cs.i8) {
          const std::int32_t iv = 1 + rank;  // int32 C: distinct integers
          std::memcpy(&slot, &iv, sizeof iv);
          v = iv;
        } else {
          slot = float(v);
        }
        cv[std::size_t(k0)][{s.entries[0].row, s.entries[0].col, s.entries[0].block}] = v;
      }
    }
    unsigned char *da = nullptr, *db = nullptr;
    float *dc = nullptr, *dd = nullptr;
    int *dsa = nullptr, *dsb = nullptr;
    hipMalloc(&dsa, sa.size() * sizeof(int));
    hipMalloc(&dsb, sb.size() * sizeof(int));
    hipMemcpy(dsa, sa.data(), sa.size() * sizeof(int), hipMemcpyHostToDevice);
    hipMemcpy(dsb, sb.data(), sb.size() * sizeof(int), hipMemcpyHostToDevice);
    hipMalloc(&da, a.size());
    hipMalloc(&db, b.size());
    hipMalloc(&dc, c.size() * sizeof(float));
    hipMalloc(&dd, d.size() * sizeof(float));
    hipMemcpy(da, a.data(), a.size(), hipMemcpyHostToDevice);
    hipMemcpy(db, b.data(), b.size(), hipMemcpyHostToDevice);
    hipMemcpy(dc, c.data(), c.size() * sizeof(float), hipMemcpyHostToDevice);
    cs.run(da, db, dc, dd, dsa, dsb, passes);
    if (hipDeviceSynchronize() != hipSuccess) {
      std::printf("FAIL %s: launch failed\n", cs.name.c_str());
      return 1;
    }
    hipMemcpy(d.data(), dd, d.size() * sizeof(float), hipMemcpyDeviceToHost);
    hipFree(da), hipFree(db), hipFree(dc), hipFree(dd), hipFree(dsa), hipFree(dsb);
    for (int k0 = 0; k0 < passes; ++k0)
      for (const auto& s : td) {
        const MfmaEntry& e = s.entries[0];
        // the one-hot operand is 0 away from k0, so the k0 term is the whole sum
        const double want = cv[std::size_t(k0)].at({e.row, e.col, e.block}) +
                            av[std::size_t(k0)].at({e.row, k0, e.block}) * bv[std::size_t(k0)].at({k0, e.col, e.block});
        float got = d[(std::size_t(k0) * kLanes + std::size_t(s.lane)) * 16 + std::size_t(s.element)];
        if (cs.i8) {  // int32 bits
          std::int32_t gi;
          std::memcpy(&gi, &got, sizeof gi);
          got = float(gi);  // exact: |D| < 2^24 here
        }
        if (got != float(want)) {
          if (printed++ < 6)
            std::printf("FAIL %s (codes in %c, k0 %d): lane %d reg %d = D[%d][%d].B%d: got %.9g want %.9g\n",
                        cs.name.c_str(), checked == 0 ? 'A' : 'B', k0, s.lane, s.element, e.row, e.col, e.block,
                        double(got), want);
          ++bad;
        }
      }
  }
  std::printf("%s %s: %zu A, %zu B, %zu D slots, K %d\n", bad ? "FAIL" : "ok  ", cs.name.c_str(), ta.size(),
              tb.size(), td.size(), cs.k);
  return bad;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::printf("usage: %s <tests/hipsim/mfma_layouts>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const fmt::Format h = fmt::Format::fp16, y = fmt::Format::bf16;
  auto c3 = [](const std::string& insn, const char* m) { return "cdna3/" + insn + "." + m + ".csv"; };
  auto std_case = [&](const std::string& builtin, const std::string& insn, fmt::Format fa, fmt::Format fb, int k,
                      Launch run, Shape sh) {
    Case c{builtin, c3(insn, "A"), c3(insn, "B"), c3(insn, "D"), fa, fb, k, run};
    c.shape = sh;
    return c;
  };
  const Shape s4{4, 4, 16}, s16{16, 16}, s32{32, 32};
  std::vector<Case> cases = {
      std_case("f32_4x4x4f16", "v_mfma_f32_4x4x4_16b_f16", h, h, 4, launch<0>, s4),
      std_case("f32_16x16x16f16", "v_mfma_f32_16x16x16_f16", h, h, 16, launch<1>, s16),
      std_case("f32_32x32x8f16", "v_mfma_f32_32x32x8_f16", h, h, 8, launch<2>, s32),
      std_case("f32_4x4x4bf16_1k", "v_mfma_f32_4x4x4_16b_bf16", y, y, 4, launch<3>, s4),
      std_case("f32_16x16x16bf16_1k", "v_mfma_f32_16x16x16_bf16", y, y, 16, launch<4>, s16),
      std_case("f32_32x32x8bf16_1k", "v_mfma_f32_32x32x8_bf16", y, y, 8, launch<5>, s32),
      std_case("f32_16x16x32_fp8_fp8", "v_mfma_f32_16x16x32_fp8_fp8", kFp8, kFp8, 32, launch<6>, s16),
      std_case("f32_16x16x32_fp8_bf8", "v_mfma_f32_16x16x32_fp8_bf8", kFp8, kBf8, 32, launch<7>, s16),
      std_case("f32_16x16x32_bf8_fp8", "v_mfma_f32_16x16x32_bf8_fp8", kBf8, kFp8, 32, launch<8>, s16),
      std_case("f32_16x16x32_bf8_bf8", "v_mfma_f32_16x16x32_bf8_bf8", kBf8, kBf8, 32, launch<9>, s16),
      std_case("f32_32x32x16_fp8_fp8", "v_mfma_f32_32x32x16_fp8_fp8", kFp8, kFp8, 16, launch<10>, s32),
      std_case("f32_32x32x16_fp8_bf8", "v_mfma_f32_32x32x16_fp8_bf8", kFp8, kBf8, 16, launch<11>, s32),
      std_case("f32_32x32x16_bf8_fp8", "v_mfma_f32_32x32x16_bf8_fp8", kBf8, kFp8, 16, launch<12>, s32),
      std_case("f32_32x32x16_bf8_bf8", "v_mfma_f32_32x32x16_bf8_bf8", kBf8, kBf8, 16, launch<13>, s32),
  };
  auto i8_case = [&](const std::string& builtin, const std::string& table, int k, Launch run, Shape sh) {
    Case c{builtin, table + ".A.csv", table + ".B.csv", table + ".D.csv", kFp8, kFp8, k, run};
    c.shape = sh, c.i8 = true;
    return c;
  };
  cases.push_back(i8_case("i32_16x16x32_i8", "cdna3/v_mfma_i32_16x16x32_i8", 32, launch<20>, s16));
  cases.push_back(i8_case("i32_32x32x16_i8", "cdna3/v_mfma_i32_32x32x16_i8", 16, launch<21>, s32));
#if defined(__gfx950__)
  cases.push_back(i8_case("i32_16x16x64_i8", "cdna4/v_mfma_i32_16x16x64_i8", 64, launch<22>, s16));
  cases.push_back(i8_case("i32_32x32x32_i8", "cdna4/v_mfma_i32_32x32x32_i8", 32, launch<23>, s32));
#endif
  const std::string i4 = "v_mfma_f32_4x4x4_16b_bf16";
  auto a_mod = [&](const char* mod, int cbsz, int abid, Launch run) {
    Case c{std::string("f32_4x4x4bf16_1k ") + mod, c3(i4, (std::string("A.") + mod).c_str()), c3(i4, "B"),
           c3(i4, "D"), y, y, 4, run};
    c.shape = Shape{4, 4, 16, cbsz, abid, 0};
    return c;
  };
  auto b_mod = [&](int g, Launch run) {
    const std::string mod = "blgp" + std::to_string(g);
    Case c{"f32_4x4x4bf16_1k " + mod, c3(i4, "A"), c3(i4, ("B." + mod).c_str()), c3(i4, "D"), y, y, 4, run};
    c.shape = Shape{4, 4, 16, 0, 0, g};
    return c;
  };
  cases.push_back(a_mod("cbsz1abid1", 1, 1, launch<3, 1, 1, 0>));
  cases.push_back(a_mod("cbsz2abid3", 2, 3, launch<3, 2, 3, 0>));
  cases.push_back(a_mod("cbsz4abid9", 4, 9, launch<3, 4, 9, 0>));
  cases.push_back(b_mod(1, launch<3, 0, 0, 1>));
  cases.push_back(b_mod(2, launch<3, 0, 0, 2>));
  cases.push_back(b_mod(3, launch<3, 0, 0, 3>));
  cases.push_back(b_mod(4, launch<3, 0, 0, 4>));
  cases.push_back(b_mod(5, launch<3, 0, 0, 5>));
  cases.push_back(b_mod(6, launch<3, 0, 0, 6>));
  cases.push_back(b_mod(7, launch<3, 0, 0, 7>));
#if defined(__gfx950__)
  using Row = std::tuple<const char*, const char*, fmt::Format, Launch>;
  for (auto [builtin, insn, f, op] : {Row{"f32_16x16x32_f16", "v_mfma_f32_16x16x32_f16", h, launch<14>},
                                      Row{"f32_16x16x32_bf16", "v_mfma_f32_16x16x32_bf16", y, launch<15>},
                                      Row{"f32_32x32x16_f16", "v_mfma_f32_32x32x16_f16", h, launch<16>},
                                      Row{"f32_32x32x16_bf16", "v_mfma_f32_32x32x16_bf16", y, launch<17>}}) {
    const std::string base = std::string("cdna4/") + insn;
    const bool t32 = std::string(insn).find("32x32") != std::string::npos;
    Case c{builtin, base + ".A.csv", base + ".B.csv", base + ".D.csv", f, f, t32 ? 16 : 32, op};
    c.shape = t32 ? s32 : s16;
    cases.push_back(c);
  }
  // the scaled MFMAs: A/B formats (cbsz, blgp immediates: 0 fp8, 1 bf8, 2 fp6, 3 bf6, 4 fp4) in mixes that pair
  // every width with every other (a k order permuted alike in A and B leaves D as it is, so the mixed widths are what
  // pin each one's order); op_sel 0-3.
  const fmt::Format e4 = fmt::Format::e4m3fn, e5 = fmt::Format::e5m2, e2 = fmt::Format::e2m1fn;
  const fmt::Format f6 = fmt::Format::e2m3fn, b6 = fmt::Format::e3m2fn;
  auto table_of = [](fmt::Format f) { return bits_of(f) == 8 ? "fp8" : bits_of(f) == 6 ? "fp6" : "fp4"; };
  struct Mix {
    fmt::Format fa, fb;
    int opsel;
    Launch r16, r32;
  };
  const Mix mixes[] = {
      {e4, e4, 0, launch<18, 0, 0, 0>, launch<19, 0, 0, 0>}, {e4, e5, 1, launch<18, 0, 1, 1>, launch<19, 0, 1, 1>},
      {e2, e2, 2, launch<18, 4, 2, 4>, launch<19, 4, 2, 4>}, {e2, e5, 1, launch<18, 4, 1, 1>, launch<19, 4, 1, 1>},
      {e5, e2, 3, launch<18, 1, 3, 4>, launch<19, 1, 3, 4>}, {f6, f6, 0, launch<18, 2, 0, 2>, launch<19, 2, 0, 2>},
      {b6, e4, 2, launch<18, 3, 2, 0>, launch<19, 3, 2, 0>}, {e4, b6, 3, launch<18, 0, 3, 3>, launch<19, 0, 3, 3>},
      {f6, e2, 1, launch<18, 2, 1, 4>, launch<19, 2, 1, 4>}, {e2, b6, 0, launch<18, 4, 0, 3>, launch<19, 4, 0, 3>},
  };
  for (const Mix& x : mixes)
    for (const bool t32 : {false, true}) {
      const std::string shape = t32 ? "32x32x64" : "16x16x128";
      const std::string sc = "cdna4/v_mfma_scale_f32_" + shape + "_f8f6f4.";
      Case c{"scale " + shape + " " + std::string(fmt::name(x.fa)) + " x " + std::string(fmt::name(x.fb)) +
                 " op_sel " + std::to_string(x.opsel),
             sc + "A." + table_of(x.fa) + ".csv", sc + "B." + table_of(x.fb) + ".csv", sc + "D.csv", x.fa, x.fb,
             t32 ? 64 : 128, t32 ? x.r32 : x.r16, x.opsel};
      c.shape = t32 ? s32 : s16;
      c.shape.f8f6f4 = true;
      cases.push_back(c);
    }
#endif
  int bad = 0;
  for (const auto& cs : cases) bad += run_case(cs, dir);
  const std::string fp8 = std::string(fmt::name(kFp8));
  if (bad) std::printf("FAIL %d mismatches (fp8 as %s)\n", bad, fp8.c_str());
  else std::printf("PASS (fp8 as %s)\n", fp8.c_str());
  return bad ? 1 : 0;
}
