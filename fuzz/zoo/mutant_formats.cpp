// Zoo mutants of format paths (no kernel here does them): each is a small implementation of the path
// with the bug, beside the correct implementation built on reference/formats, both judged by the
// oracle (policy exact, or allclose for a quantize round trip) against float64 expectations:
//  6a UE8M0 scale bytes used as FP8 (e4m3fn) values;     6b e8m0 decoded by bits<<23 (0x00 -> 0, 0xFF -> inf);
//  7a FNUZ quantized with the OCP max 448;               7b fn->fnuz migration without doubling the scales;
//  7c fn->fnuz migration leaving 0x80 (fn -0) unmapped (fnuz NaN);
//  8  HIP x2 SATFINITE fast path: clamps (.y from .x) but converts the unclamped inputs.
#include <fmt/format.h>

#include <cmath>
#include <random>

#include "fuzz/zoo/zoo_detail.hpp"
#include "reference/formats/encode.hpp"
#include "reference/formats/format.hpp"
#include "reference/formats/recipes.hpp"

namespace dsv4::fuzz::zoo::detail {

namespace {

using namespace dsv4::formats;

Tensor f32_tensor(const std::vector<double>& v, std::int64_t rows) {
  Tensor t = Tensor::empty(DType::F32, {rows, static_cast<std::int64_t>(v.size()) / rows});
  for (std::size_t i = 0; i < v.size(); ++i) t.set_linear(static_cast<std::int64_t>(i), v[i]);
  return t;
}

Probe judge_exact(const std::string& name, const std::vector<double>& expected, const std::vector<double>& actual,
                  std::int64_t rows) {
  const OracleSpec spec{"exact", {{"signed_zero", false}}, "format path: exact decode, bit for bit"};
  Probe p;
  add_verdict_findings(judge_mutant(name, {{"out", f32_tensor(expected, rows)}}, {{"out", f32_tensor(actual, rows)}}, spec),
                       Detector::exact_bits, p);
  return p;
}

std::uint8_t finite_fn_code(std::mt19937_64& rng, bool positive_only) {
  for (;;) {
    const auto c = static_cast<std::uint8_t>(rng() & (positive_only ? 0x7F : 0xFF));
    if ((c & 0x7F) != 0x7F && (!positive_only || c != 0)) return c;
  }
}

// ---- 6: dequantization x = fp8(code) * scale(byte), 8 rows of 32 codes, one UE8M0 byte per row ----
ZooEntry e8m0_entry(bool as_fp8) {
  ZooEntry e;
  e.id = as_fp8 ? "6a" : "6b";
  e.title = as_fp8 ? "UE8M0 scale bytes used as FP8 values" : "e8m0 decoded by bits<<23 (0x00 -> 0, 0xFF -> inf)";
  e.known_bugs_ref = as_fp8 ? "known-bugs #12" : "known-bugs #13";
  e.enable = std::string("mutant dequant (fuzz/zoo/mutant_formats.cpp): scale = ") +
             (as_fp8 ? "decode(e4m3fn, byte)" : "decode_e8m0(byte, shift23)");
  e.expected = as_fp8 ? Detector::exact_bits : Detector::nan_placement;
  e.diagnosis_must_contain = {"FAIL"};
  for (int i = 0; i < 3; ++i) e.cases.push_back({fmt::format("scale bytes 0x60..0x9F seed {}", i), {{"seed", i}, {"edges", false}}});
  e.cases.push_back({"scale bytes incl. 0x00 and 0xFF", {{"seed", 7}, {"edges", true}}});
  e.probe = [as_fp8](const ZooCase& c, bool buggy) {
    std::mt19937_64 rng(c.params["seed"].get<std::uint64_t>());
    const int rows = 8, cols = 32;
    std::vector<double> exp, act;
    for (int r = 0; r < rows; ++r) {
      std::uint8_t byte = static_cast<std::uint8_t>(0x60 + rng() % 0x40);
      if (c.params["edges"].get<bool>() && r == 2) byte = 0x00;
      if (c.params["edges"].get<bool>() && r == 5) byte = 0xFF;
      const float exact = decode_e8m0(byte, E8m0Decode::exact);
      const float used = !buggy ? exact : as_fp8 ? decode_f32(Format::e4m3fn, byte) : decode_e8m0(byte, E8m0Decode::shift23);
      for (int k = 0; k < cols; ++k) {
        const std::uint8_t code = finite_fn_code(rng, false);
        exp.push_back(decode(Format::e4m3fn, code) * static_cast<double>(exact));
        act.push_back(static_cast<double>(decode_f32(Format::e4m3fn, code) * used));
      }
    }
    return judge_exact("zoo_dequant_ue8m0", exp, act, rows);
  };
  return e;
}

// ---- 7a: per-row quantization to e4m3fnuz (plain-fp32 recipe) and its round trip ----
ZooEntry fnuz_max_entry() {
  ZooEntry e;
  e.id = "7a";
  e.title = "FNUZ quantized with the OCP max 448";
  e.known_bugs_ref = "known-bugs #15";
  e.enable = "mutant quantizer: formats::quantize_block(plain-fp32, e4m3fnuz) with elem_max = 448";
  e.expected = Detector::oracle_localisation;
  e.diagnosis_must_contain = {"FAIL"};
  for (int i = 0; i < 3; ++i) e.cases.push_back({fmt::format("8 rows x 64 N(0,1) seed {}", i), {{"seed", i}}});
  e.probe = [](const ZooCase& c, bool buggy) {
    std::mt19937_64 rng(c.params["seed"].get<std::uint64_t>());
    std::normal_distribution<float> n(0.f, 1.f);
    const int rows = 8, cols = 64;
    std::vector<double> x, dq;
    double amax_all = 0;
    for (int r = 0; r < rows; ++r) {
      std::vector<float> blk(cols);
      for (auto& v : blk) v = n(rng);
      RecipeOptions opt;
      if (buggy) opt.elem_max = 448.0;
      const QuantResult q = quantize_block(Recipe::plain_fp32, blk, Format::e4m3fnuz, opt);
      const std::vector<float> back = dequantize_block(q.codes, Format::e4m3fnuz, q.scale.scale);
      for (int k = 0; k < cols; ++k) {
        x.push_back(blk[k]);
        dq.push_back(back[k]);
      }
      amax_all = std::max(amax_all, static_cast<double>(q.amax));
    }
    // Round trip of e4m3fnuz: half an ulp relative (2^-4) for normals, half the smallest subnormal below.
    const OracleSpec spec{"allclose", {{"rtol", 0.0625}, {"atol", amax_all / 240.0 * std::ldexp(1.0, -10)}},
                          "fp8 round trip: half ulp relative, half a scaled subnormal absolute"};
    Probe p;
    add_verdict_findings(judge_mutant("zoo_quant_fnuz", {{"x", f32_tensor(x, rows)}}, {{"x", f32_tensor(dq, rows)}}, spec),
                         Detector::oracle_localisation, p);
    return p;
  };
  return e;
}

// ---- 7b/7c: fn -> fnuz weight migration (same bits = half the value; 0x80 must become 0x00) ----
ZooEntry migration_entry(bool zero_code) {
  ZooEntry e;
  e.id = zero_code ? "7c" : "7b";
  e.title = zero_code ? "fn->fnuz migration leaves 0x80 unmapped (fn -0 becomes fnuz NaN)"
                      : "fn->fnuz migration does not double the scales";
  e.known_bugs_ref = "known-bugs #15";
  e.enable = zero_code ? "mutant migration: codes copied without the 0x80 -> 0x00 rewrite"
                       : "mutant migration: formats::migrate_fn_to_fnuz codes, scale not doubled";
  e.expected = zero_code ? Detector::nan_placement : Detector::exact_bits;
  e.diagnosis_must_contain = {"FAIL"};
  e.cases.push_back({"positive codes only", {{"seed", 1}, {"positive", true}}});
  for (int i = 2; i < 5; ++i) e.cases.push_back({fmt::format("all finite codes seed {}", i), {{"seed", i}, {"positive", false}}});
  e.probe = [zero_code](const ZooCase& c, bool buggy) {
    std::mt19937_64 rng(c.params["seed"].get<std::uint64_t>());
    const int rows = 4, cols = 64;
    std::vector<std::uint8_t> fn(rows * cols);
    for (auto& b : fn) b = finite_fn_code(rng, c.params["positive"].get<bool>());
    const float s = std::ldexp(1.0f, static_cast<int>(rng() % 9) - 4);
    const FnuzMigration m = migrate_fn_to_fnuz(fn);
    const std::vector<std::uint8_t>& codes = (buggy && zero_code) ? fn : m.codes;
    const float s2 = (buggy && !zero_code) ? s : migrate_scale_fp32(s);
    std::vector<double> exp, act;
    for (std::size_t i = 0; i < fn.size(); ++i) {
      exp.push_back(decode(Format::e4m3fn, fn[i]) * s);
      act.push_back(static_cast<double>(decode_f32(Format::e4m3fnuz, codes[i]) * s2));
    }
    return judge_exact("zoo_migrate_fnuz", exp, act, rows);
  };
  return e;
}

// ---- 8: two-value saturating convert to e4m3fn ----
ZooEntry x2_satfinite_entry() {
  ZooEntry e;
  e.id = "8";
  e.title = "x2 SATFINITE convert clamps, then converts the unclamped values";
  e.known_bugs_ref = "known-bugs #16";
  e.enable = "mutant cvt_float2_to_fp8x2(SATFINITE): clamped pair computed (.y from .x), originals converted";
  e.expected = Detector::nan_placement;
  e.diagnosis_must_contain = {"NaN"};
  e.cases.push_back({"pairs in [-400, 400]", {{"seed", 1}, {"overflow", false}}});
  e.cases.push_back({"pairs (500, 1), (1, 500), (-500, 2), (3, -1e4)", {{"seed", 2}, {"overflow", true}}});
  e.probe = [](const ZooCase& c, bool buggy) {
    std::mt19937_64 rng(c.params["seed"].get<std::uint64_t>());
    std::uniform_real_distribution<float> u(-400.f, 400.f);
    std::vector<std::pair<float, float>> pairs;
    for (int i = 0; i < 12; ++i) pairs.push_back({u(rng), u(rng)});
    if (c.params["overflow"].get<bool>()) {
      pairs[1] = {500.f, 1.f};
      pairs[4] = {1.f, 500.f};
      pairs[7] = {-500.f, 2.f};
      pairs[10] = {3.f, -1e4f};
    }
    const FastEncoder sat(Format::e4m3fn, parse_mode("rne-satfinite"));
    const FastEncoder hw(Format::e4m3fn, parse_mode("rne-nonsat"));  // the conversion without saturation
    const float mx = static_cast<float>(max_finite(Format::e4m3fn));
    std::vector<double> exp, act;
    for (auto [x, y] : pairs) {
      exp.push_back(decode(Format::e4m3fn, sat(x)));
      exp.push_back(decode(Format::e4m3fn, sat(y)));
      if (!buggy) {
        act.push_back(decode(Format::e4m3fn, sat(x)));
        act.push_back(decode(Format::e4m3fn, sat(y)));
      } else {
        const float cx = std::fmin(std::fmax(x, -mx), mx);
        const float cy = std::fmin(std::fmax(cx, -mx), mx);  // the defect clamps .y from .x ...
        (void)cy;
        act.push_back(decode(Format::e4m3fn, hw(x)));  // ... and converts the original inputs
        act.push_back(decode(Format::e4m3fn, hw(y)));
      }
    }
    return judge_exact("zoo_cvt_fp8x2", exp, act, static_cast<std::int64_t>(pairs.size()));
  };
  return e;
}

}  // namespace

std::vector<ZooEntry> format_entries() {
  return {e8m0_entry(true), e8m0_entry(false), fnuz_max_entry(), migration_entry(false), migration_entry(true),
          x2_satfinite_entry()};
}

}  // namespace dsv4::fuzz::zoo::detail
