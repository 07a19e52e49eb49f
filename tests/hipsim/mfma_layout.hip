// Every MFMA builtin of hipsim/amdgcn_mfma.h against the layout tables of tests/hipsim/mfma_layouts (AMD's Matrix
// Instruction Calculator for CDNA3; the extended dense rule of generate.sh for the gfx950-only ones): for every lane
// and register slot of A, B and D.
// Rules: inputs are placed and D is read only through the tables, never through the emulation's formulas. One run
// per k0 and checked matrix X (A or B): X holds a distinct nonzero code in every slot (+code where the slot's k is
// k0, -code elsewhere), the other operand is 1 at k0 and 0 elsewhere, C holds a distinct code per D slot, and slots
// the table leaves unused hold NaN. So D[i][j] must equal X's k0 entry plus C exactly (one product, all values exact
// in fp32): a slot read from the wrong lane, register, k, row or block, or an unused slot read at all, changes D.
// The broadcast modifiers (CBSZ/ABID, BLGP) of the 4x4x4 form use the calculator's tables for those settings. The
// scaled gfx950 MFMA runs with e8m0 scales of 1 on the one-hot operand and, on the coded one, a power of two per lane
// (rule: the scale of a value is op_sel's byte of the scale VGPR of the lane holding it; the other bytes are 0xFF,
// NaN, so a wrong byte shows) that keeps fp4's few values distinct across rows.
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
typedef int intx8 __attribute__((ext_vector_type(8)));

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
#if defined(__gfx950__)
  MFMA_OP(14, f32_16x16x32_f16, half8_t, floatx4)
  MFMA_OP(15, f32_16x16x32_bf16, bf16x8_t, floatx4)
  MFMA_OP(16, f32_32x32x16_f16, half8_t, floatx16)
  MFMA_OP(17, f32_32x32x16_bf16, bf16x8_t, floatx16)
  MFMA_SCALE_OP(18)
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

struct Case {
  std::string name, a_table, b_table, d_table;
  fmt::Format fa, fb;
  int k;
  Launch run;
  int opsel = -1;  // >= 0: the scaled MFMA, scales in byte opsel
};

int bits_of(fmt::Format f) {
  return f == fmt::Format::fp16 || f == fmt::Format::bf16 ? 16 : f == fmt::Format::e2m1fn ? 4 : 8;
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
double code_value(fmt::Format f, int r) {
  if (f == fmt::Format::e2m1fn) return std::array{0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0}[std::size_t(r % 7)];
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
  int bad = 0, printed = 0;
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
        // unused slots: NaN, or fp4's (which has none) largest value
        const std::uint32_t nan = code_of(f, f == fmt::Format::e2m1fn ? 6.0 : std::nan(""));
        for (int l = 0; l < kLanes; ++l) {
          for (int e = 0; e < kSlotBytes * 8 / w; ++e) put(buf, l, e, w, nan);
          // the coded operand's scale: 2^(4 * ((lane % 16) / 7)) for fp4, else 1; op_sel's byte, the rest NaN
          const int ex = codes && f == fmt::Format::e2m1fn ? 4 * ((l % 16) / 7) : 0;
          if (cs.opsel >= 0)
            scale[std::size_t(k0) * kLanes + std::size_t(l)] =
                int(~(0xFFu << (8 * cs.opsel)) | (unsigned(127 + ex) << (8 * cs.opsel)));
        }
        int rank_k0 = 0, rank_other = 0;
        for (const auto& s : t) {
          const int k = k_is_row ? s.entries[0].row : s.entries[0].col;
          double v;
          if (codes) v = k == k0 ? code_value(f, rank_k0++ % 64) : -code_value(f, rank_other++ % 64);
          else v = k == k0 ? 1.0 : 0.0;
          put(buf, s.lane, s.element, w, code_of(f, v));
          const int ex = cs.opsel >= 0 ? int((unsigned(scale[std::size_t(k0) * kLanes + std::size_t(s.lane)]) >>
                                              (8 * cs.opsel)) & 0xFFu) - 127 : 0;
          for (const auto& e : s.entries) val[{e.row, e.col, e.block}] = std::ldexp(v, ex);
        }
      };
      fill(a, sa, ta, cs.fa, checked == 0, false, av[std::size_t(k0)]);  // A[i][k]: k is the column
      fill(b, sb, tb, cs.fb, checked == 1, true, bv[std::size_t(k0)]);   // B[k][j]: k is the row
      int rank = 0;
      for (const auto& s : td) {
        const double v = double(1 + rank++) / 4;  // exact next to any code (codes < 256, steps >= 2^-10)
        c[(std::size_t(k0) * kLanes + std::size_t(s.lane)) * 16 + std::size_t(s.element)] = float(v);
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
        const float got = d[(std::size_t(k0) * kLanes + std::size_t(s.lane)) * 16 + std::size_t(s.element)];
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
                      Launch run) {
    return Case{builtin, c3(insn, "A"), c3(insn, "B"), c3(insn, "D"), fa, fb, k, run};
  };
  std::vector<Case> cases = {
      std_case("f32_4x4x4f16", "v_mfma_f32_4x4x4_16b_f16", h, h, 4, launch<0>),
      std_case("f32_16x16x16f16", "v_mfma_f32_16x16x16_f16", h, h, 16, launch<1>),
      std_case("f32_32x32x8f16", "v_mfma_f32_32x32x8_f16", h, h, 8, launch<2>),
      std_case("f32_4x4x4bf16_1k", "v_mfma_f32_4x4x4_16b_bf16", y, y, 4, launch<3>),
      std_case("f32_16x16x16bf16_1k", "v_mfma_f32_16x16x16_bf16", y, y, 16, launch<4>),
      std_case("f32_32x32x8bf16_1k", "v_mfma_f32_32x32x8_bf16", y, y, 8, launch<5>),
      std_case("f32_16x16x32_fp8_fp8", "v_mfma_f32_16x16x32_fp8_fp8", kFp8, kFp8, 32, launch<6>),
      std_case("f32_16x16x32_fp8_bf8", "v_mfma_f32_16x16x32_fp8_bf8", kFp8, kBf8, 32, launch<7>),
      std_case("f32_16x16x32_bf8_fp8", "v_mfma_f32_16x16x32_bf8_fp8", kBf8, kFp8, 32, launch<8>),
      std_case("f32_16x16x32_bf8_bf8", "v_mfma_f32_16x16x32_bf8_bf8", kBf8, kBf8, 32, launch<9>),
      std_case("f32_32x32x16_fp8_fp8", "v_mfma_f32_32x32x16_fp8_fp8", kFp8, kFp8, 16, launch<10>),
      std_case("f32_32x32x16_fp8_bf8", "v_mfma_f32_32x32x16_fp8_bf8", kFp8, kBf8, 16, launch<11>),
      std_case("f32_32x32x16_bf8_fp8", "v_mfma_f32_32x32x16_bf8_fp8", kBf8, kFp8, 16, launch<12>),
      std_case("f32_32x32x16_bf8_bf8", "v_mfma_f32_32x32x16_bf8_bf8", kBf8, kBf8, 16, launch<13>),
  };
  const std::string i4 = "v_mfma_f32_4x4x4_16b_bf16";
  auto a_mod = [&](const char* mod, Launch run) {
    return Case{std::string("f32_4x4x4bf16_1k ") + mod, c3(i4, (std::string("A.") + mod).c_str()), c3(i4, "B"),
                c3(i4, "D"), y, y, 4, run};
  };
  auto b_mod = [&](int g, Launch run) {
    const std::string mod = "blgp" + std::to_string(g);
    return Case{"f32_4x4x4bf16_1k " + mod, c3(i4, "A"), c3(i4, ("B." + mod).c_str()), c3(i4, "D"), y, y, 4, run};
  };
  cases.push_back(a_mod("cbsz1abid1", launch<3, 1, 1, 0>));
  cases.push_back(a_mod("cbsz2abid3", launch<3, 2, 3, 0>));
  cases.push_back(a_mod("cbsz4abid9", launch<3, 4, 9, 0>));
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
    const int k = std::string(insn).find("32x32") != std::string::npos ? 16 : 32;
    cases.push_back(Case{builtin, base + ".A.csv", base + ".B.csv", base + ".D.csv", f, f, k, op});
  }
  // the scaled MFMA: A/B formats (cbsz, blgp immediates) fp8 x fp8, fp8 x bf8, fp4 x fp4, fp4 x bf8, bf8 x fp4;
  // op_sel 0-3. A k order permuted alike in A and B leaves D as it is, so the mixed widths are what pin fp4's.
  const std::string sc = "cdna4/v_mfma_scale_f32_16x16x128_f8f6f4.";
  const fmt::Format e4 = fmt::Format::e4m3fn, e5 = fmt::Format::e5m2, e2 = fmt::Format::e2m1fn;
  cases.push_back(Case{"scale 16x16x128 fp8 x fp8 op_sel 0", sc + "A.fp8.csv", sc + "B.fp8.csv", sc + "D.csv", e4, e4,
                       128, launch<18, 0, 0, 0>, 0});
  cases.push_back(Case{"scale 16x16x128 fp8 x bf8 op_sel 1", sc + "A.fp8.csv", sc + "B.fp8.csv", sc + "D.csv", e4, e5,
                       128, launch<18, 0, 1, 1>, 1});
  cases.push_back(Case{"scale 16x16x128 fp4 x fp4 op_sel 2", sc + "A.fp4.csv", sc + "B.fp4.csv", sc + "D.csv", e2, e2,
                       128, launch<18, 4, 2, 4>, 2});
  cases.push_back(Case{"scale 16x16x128 fp4 x bf8 op_sel 1", sc + "A.fp4.csv", sc + "B.fp8.csv", sc + "D.csv", e2, e5,
                       128, launch<18, 4, 1, 1>, 1});
  cases.push_back(Case{"scale 16x16x128 bf8 x fp4 op_sel 3", sc + "A.fp8.csv", sc + "B.fp4.csv", sc + "D.csv", e5, e2,
                       128, launch<18, 1, 3, 4>, 3});
#endif
  int bad = 0;
  for (const auto& cs : cases) bad += run_case(cs, dir);
  const std::string fp8 = std::string(fmt::name(kFp8));
  if (bad) std::printf("FAIL %d mismatches (fp8 as %s)\n", bad, fp8.c_str());
  else std::printf("PASS (fp8 as %s)\n", fp8.c_str());
  return bad ? 1 : 0;
}
