// Exhaustive float32 -> format encode (label `slow`): for every one of the 2^32 float32 inputs, the fast
// encoder (FastEncoder, bit manipulation; used by the CLI and the recipes) must equal the reference
// encoder (encode(), exact float64 formulation of each mode's definition).
//
// Evaluating the slow reference 2^32 times per mode would take minutes per mode, so the reference is
// turned into a run table first: for each sign, the reference is a step function of the magnitude bits
// (every code's preimage is an interval of float32 magnitudes), and a galloping search over the
// reference finds every step. All 2^32 fast results are then compared with the table (O(1) per input).
// Safeguards against a wrong table: every 4096th input and every NaN input (2^24, payloads matter) are
// also compared with the reference directly, and each run boundary is re-checked on both sides.
#include <gtest/gtest.h>

#include <ostream>
#include <omp.h>

#include <algorithm>
#include <cctype>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <span>
#include <vector>

#include "reference/formats/encode.hpp"

using namespace dsv4::formats;

namespace {

struct Case {
  Format format;
  const char* mode;
};

const Case kCases[] = {
    {Format::e4m3fn, "rne-nonsat"},      {Format::e4m3fn, "rne-satfinite:nan=canonical-pos"},
    {Format::e4m3fn, "hip-sw-precheck:sat"}, {Format::e4m3fnuz, "rne-nonsat"},
    {Format::e4m3fnuz, "rne-satfinite"}, {Format::e5m2, "torch"},
    {Format::e5m2, "ml_dtypes"},         {Format::e5m2, "rne-satfinite"},
    {Format::e5m2fnuz, "rne-nonsat"},    {Format::e5m2fnuz, "rne-satfinite"},
    {Format::e8m0fnu, "torch"},          {Format::e8m0fnu, "ml_dtypes"},
    {Format::e8m0fnu, "e8m0-ceil:satfinite"}, {Format::e8m0fnu, "e8m0-floor"},
    {Format::e2m1fn, "ml_dtypes"},       {Format::e2m1fn, "fp4-ties-to-zero"},
    {Format::bf16, "torch"},             {Format::bf16, "bf16-rne:nan=quiet-keep"},
    {Format::fp16, "torch"},
};

constexpr std::uint32_t kInf = 0x7F800000u;

struct CodeRun {
  std::uint32_t last;  // last magnitude (inclusive) of the run
  std::uint32_t code;
};

// Runs of the reference over magnitudes [0, kInf] for one sign.
std::vector<CodeRun> build_runs(Format f, const EncodeMode& m, std::uint32_t sign) {
  auto ref = [&](std::uint32_t mag) { return encode_f32_bits_reference(f, m, sign | mag); };
  std::vector<CodeRun> runs;
  std::uint64_t start = 0;
  while (start <= kInf) {
    const std::uint32_t c = ref(static_cast<std::uint32_t>(start));
    std::uint64_t lo = start, step = 1;  // invariant: ref(lo) == c
    while (lo + step <= kInf && ref(static_cast<std::uint32_t>(lo + step)) == c) { lo += step; step *= 2; }
    std::uint64_t hi = std::min<std::uint64_t>(lo + step, kInf + 1ull);  // ref(hi) != c or hi beyond range
    while (hi - lo > 1) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (ref(static_cast<std::uint32_t>(mid)) == c) lo = mid; else hi = mid;
    }
    runs.push_back({static_cast<std::uint32_t>(lo), c});
    start = lo + 1;
  }
  return runs;
}

class Exhaustive : public ::testing::TestWithParam<Case> {};

TEST_P(Exhaustive, FastEncoderEqualsReferenceOnAllFloat32) {
  const Case cs = GetParam();
  const EncodeMode mode = parse_mode(cs.mode);
  const FastEncoder fast(cs.format, mode);
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  std::atomic<std::uint64_t> mismatches{0};
  std::atomic<std::uint64_t> first_bad{~0ull};
  std::uint64_t compared = 0;
  for (std::uint32_t sign : {0u, 0x80000000u}) {
    const std::vector<CodeRun> runs = build_runs(cs.format, mode, sign);
    // The table's boundaries, re-checked on both sides.
    for (std::size_t i = 0; i + 1 < runs.size(); ++i) {
      ASSERT_EQ(encode_f32_bits_reference(cs.format, mode, sign | runs[i].last), runs[i].code);
      ASSERT_EQ(encode_f32_bits_reference(cs.format, mode, sign | (runs[i].last + 1)), runs[i + 1].code);
    }
    constexpr std::int64_t kChunk = 1 << 20;
    const std::int64_t chunks = (static_cast<std::int64_t>(kInf) + kChunk) / kChunk;  // magnitudes 0..kInf
#pragma omp parallel for schedule(dynamic, 16)
    for (std::int64_t ch = 0; ch < chunks; ++ch) {
      const std::uint64_t begin = static_cast<std::uint64_t>(ch) * kChunk;
      const std::uint64_t end = std::min<std::uint64_t>(begin + kChunk, kInf + 1ull);
      auto it = std::lower_bound(runs.begin(), runs.end(), begin,
                                 [](const CodeRun& r, std::uint64_t v) { return r.last < v; });
      std::uint64_t bad = 0;
      static thread_local std::vector<std::uint32_t> got;
      got.resize(kChunk);  // allocated (and zeroed) once per thread
      fast.encode_range(sign | static_cast<std::uint32_t>(begin), std::span<std::uint32_t>(got.data(), end - begin));
      // Walk the runs that cover [begin, end): a tight compare loop per run segment.
      for (std::uint64_t seg = begin; seg < end; ++it) {
        const std::uint64_t seg_end = std::min<std::uint64_t>(static_cast<std::uint64_t>(it->last) + 1, end);
        const std::uint32_t code = it->code;
        std::uint64_t seg_bad = 0;
        for (std::uint64_t mag = seg; mag < seg_end; ++mag) seg_bad += got[mag - begin] != code;
        if (seg_bad) {
          bad += seg_bad;
          for (std::uint64_t mag = seg; mag < seg_end; ++mag)
            if (got[mag - begin] != code) {
              const std::uint64_t bits = sign | mag;
              std::uint64_t expected = first_bad.load();
              while (bits < expected && !first_bad.compare_exchange_weak(expected, bits)) {}
              break;
            }
        }
        seg = seg_end;
      }
      // Direct samples against the reference (guards the run table itself).
      for (std::uint64_t mag = begin; mag < end; mag += 4096)
        if (got[mag - begin] != encode_f32_bits_reference(cs.format, mode, sign | static_cast<std::uint32_t>(mag))) {
          ++bad;
          const std::uint64_t bits = sign | mag;
          std::uint64_t expected = first_bad.load();
          while (bits < expected && !first_bad.compare_exchange_weak(expected, bits)) {}
        }
      mismatches += bad;
    }
    // NaN inputs: every payload, against the reference directly.
#pragma omp parallel for schedule(dynamic, 16)
    for (std::int64_t ch = 0; ch < 64; ++ch) {
      std::uint64_t bad = 0;
      const std::uint32_t span = (0x7FFFFFFFu - kInf) / 64 + 1;
      for (std::uint64_t mag = kInf + 1ull + ch * span; mag < std::min<std::uint64_t>(kInf + 1ull + (ch + 1) * span, 0x80000000ull); ++mag) {
        const std::uint32_t bits = sign | static_cast<std::uint32_t>(mag);
        if (fast.from_bits(bits) != encode_f32_bits_reference(cs.format, mode, bits)) {
          ++bad;
          std::uint64_t expected = first_bad.load();
          while (bits < expected && !first_bad.compare_exchange_weak(expected, bits)) {}
        }
      }
      mismatches += bad;
    }
    compared += 0x80000000ull;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  std::printf("[ exhaustive ] %s %s: %llu inputs, %llu mismatches, %.1f s wall, %.1f s CPU, %d threads\n", std::string(name(cs.format)).c_str(),
              cs.mode, static_cast<unsigned long long>(compared), static_cast<unsigned long long>(mismatches.load()), secs, cpu,
              omp_get_max_threads());
  EXPECT_EQ(compared, 1ull << 32);
  if (mismatches.load() != 0) {
    const std::uint32_t b = static_cast<std::uint32_t>(first_bad.load());
    ADD_FAILURE() << mismatches.load() << " mismatches; first float32 bits 0x" << std::hex << b << ": fast 0x"
                  << fast.from_bits(b) << ", reference 0x" << encode_f32_bits_reference(cs.format, mode, b);
  }
}

// Printed by gtest (and in ctest's test list) instead of the struct's raw bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << name(c.format) << " " << c.mode; }

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string s = std::string(name(info.param.format)) + "_" + info.param.mode;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(AllFloat32, Exhaustive, ::testing::ValuesIn(kCases), case_name);

}  // namespace
