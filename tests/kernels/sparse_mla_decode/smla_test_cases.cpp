// Test support for the sparse_mla_decode kernel tests; see smla_test_cases.hpp.
#include "tests/kernels/sparse_mla_decode/smla_test_cases.hpp"

#include <cmath>

#include "fuzz/harness/under_test.hpp"
#include "kernels/sparse_mla_decode/smla_runner.hpp"
#include "oracle/poison.hpp"
#include "reference/formats/format.hpp"
#include "reference/formats/rne.hpp"
#include "reference/ops/common/kv_cache_gen.hpp"

namespace dsv4::test::smla {

kern::Checked run_tuned(OpCase c, const kernels::smla::SmlaOptions& tuning, const std::string& variant, int repeats) {
  const OpDescriptor& d = kern::descriptor(kOp);
  validate_case(d, c);
  kern::Checked r;
  r.expected = d.reference(c);
  for (auto& [name, e] : r.expected) {
    Tensor t = Tensor::empty(e.dtype(), e.shape());
    oracle::poison(t, oracle::PoisonPattern::primary);
    r.run.outputs[name] = t;
  }
  r.run.poison = oracle::PoisonPattern::primary;
  kernels::RunOptions ko;
  ko.variant = variant;
  ko.repeats = repeats;
  r.run.plan = kernels::smla::run_sparse_mla_decode_case(c, r.run.outputs, ko, tuning);
  r.run.tiles = fuzz::tile_map_from_plan(r.run.plan);
  oracle::JudgeOptions jo;
  jo.poison = r.run.poison;
  r.verdict = oracle::judge(d, c, r.expected, r.run.outputs, jo, r.run.tiles ? &*r.run.tiles : nullptr);
  r.c = std::move(c);
  return r;
}

namespace {
constexpr std::int64_t kBlock = 8;
formats::Format fmt_of(const std::string& f) {
  return f == "e4m3fnuz" ? formats::Format::e4m3fnuz : formats::Format::e4m3fn;
}
bool is_nan_code(std::uint32_t code, formats::Format f) {
  return f == formats::Format::e4m3fnuz ? code == 0x80 : (code & 0x7F) == 0x7F;
}
std::uint16_t bf16_code(double v) {
  return static_cast<std::uint16_t>(formats::encode_ieee_rne(formats::Format::bf16, v));
}
}  // namespace

OpCase scale_byte_case(std::mt19937_64& rng, const std::vector<int>& bytes, std::int64_t b, std::int64_t s_q,
                       const std::string& fp8) {
  const kv::CacheLayout l = kv::CacheLayout::MODEL1_FP8Sparse;
  const formats::Format f = fmt_of(fp8);
  const std::int64_t n_q = b * s_q;
  const std::int64_t nb = (n_q + kBlock - 1) / kBlock;
  Tensor cache = kv::alloc_cache(l, nb, kBlock);  // all 0xFF: unreferenced slots are NaN
  std::uint8_t* base = kv::cache_base(cache);
  const std::int64_t stride = kv::block_bytes_padded(l, kBlock);
  std::uniform_int_distribution<int> code_d(0, 255);
  std::normal_distribution<double> nd(0.0, 0.5);
  Tensor q = Tensor::empty(DType::BF16, {b, s_q, 1, 512});
  Tensor idx = Tensor::empty(DType::I32, {b, s_q, 4});
  for (std::int64_t qi = 0; qi < n_q; ++qi) {
    std::uint8_t* blk = base + (qi / kBlock) * stride;
    const std::int64_t t = qi % kBlock;
    std::uint8_t* nope = blk + kv::nope_offset(l, kBlock, t);
    std::uint8_t* sc = blk + kv::scale_offset(l, kBlock, t);
    std::uint8_t* rope = blk + kv::rope_offset(l, kBlock, t);
    for (int tile = 0; tile < 7; ++tile) {
      const int byte = bytes[static_cast<std::size_t>(qi * 7 + tile)];
      sc[tile] = static_cast<std::uint8_t>(byte);
      for (int k = 0; k < 64; ++k) {
        std::uint32_t code;
        do code = static_cast<std::uint32_t>(code_d(rng));
        while (is_nan_code(code, f));
        // Keep |value| x 2^(byte-127) below 2^127 (bf16 stays finite): large scales get subnormal-range codes.
        if (byte != 0xFF && std::fabs(formats::decode(f, code)) * std::ldexp(1.0, byte - 127) >= 0x1p126)
          code = (code & 0x87u) == 0x80u ? 0x81u : (code & 0x87u);  // fnuz: 0x80 is NaN
        nope[tile * 64 + k] = static_cast<std::uint8_t>(code);
      }
    }
    sc[7] = 0;
    for (int k = 0; k < 64; ++k) {
      const std::uint16_t c = bf16_code(nd(rng));
      rope[2 * k] = static_cast<std::uint8_t>(c & 0xFF);
      rope[2 * k + 1] = static_cast<std::uint8_t>(c >> 8);
    }
    const std::int64_t i = qi / s_q, s = qi % s_q;
    for (std::int64_t d = 0; d < 512; ++d) q.set_code({i, s, 0, d}, d < 448 ? 0u : bf16_code(nd(rng)));
    for (std::int64_t j = 0; j < 4; ++j)
      idx.set_code({i, s, j}, j == qi % 4 ? static_cast<std::uint32_t>(qi) : 0xFFFFFFFFu);
  }
  OpCase c;
  c.inputs["q"] = q;
  c.inputs["k_cache"] = cache;
  c.inputs["indices"] = idx;
  c.attrs["cache_layout"] = "MODEL1_FP8Sparse";
  c.attrs["softmax_scale"] = std::pow(512.0, -0.55);
  c.attrs["head_dim_v"] = 512;
  c.attrs["fp8_format"] = fp8;
  return c;
}

std::vector<std::uint16_t> scale_byte_expected_row(const OpCase& c, std::int64_t qi) {
  const kv::CacheLayout l = kv::CacheLayout::MODEL1_FP8Sparse;
  const formats::Format f = fmt_of(c.attrs.at("fp8_format").get<std::string>());
  const Tensor& cache = c.in("k_cache");
  const auto* base = reinterpret_cast<const std::uint8_t*>(cache.data());
  const std::uint8_t* blk = base + (qi / kBlock) * kv::block_bytes_padded(l, kBlock);
  const std::int64_t t = qi % kBlock;
  const std::uint8_t* nope = blk + kv::nope_offset(l, kBlock, t);
  const std::uint8_t* sc = blk + kv::scale_offset(l, kBlock, t);
  const std::uint8_t* rope = blk + kv::rope_offset(l, kBlock, t);
  std::vector<std::uint16_t> row(512);
  bool nan = false;
  for (int tile = 0; tile < 7; ++tile) nan = nan || sc[tile] == 0xFF;
  for (int d = 0; d < 512; ++d) {
    if (nan) row[d] = 0x7fc0;
    else if (d < 448)
      row[d] = bf16_code(formats::decode(f, nope[d]) * std::ldexp(1.0, sc[d / 64] - 127));
    else
      row[d] = static_cast<std::uint16_t>(rope[2 * (d - 448)] | (rope[2 * (d - 448) + 1] << 8));
  }
  return row;
}

std::int64_t num_slots(const OpCase& c, const char* arg) { return c.in(arg).size(0) * c.in(arg).size(1); }

void poison_slot(OpCase& c, const char* arg, std::int64_t slot) {
  Tensor& t = c.inputs.at(arg);
  const kv::CacheLayout l = c.attrs.at("cache_layout").get<std::string>() == "V32_FP8Sparse"
                                ? kv::CacheLayout::V32_FP8Sparse : kv::CacheLayout::MODEL1_FP8Sparse;
  const kv::LayoutInfo& li = kv::layout_info(l);
  const std::int64_t bs = t.size(1);
  const std::int64_t stride = t.size(0) > 1 ? t.stride(0) : kv::block_bytes_needed(l, bs);
  std::uint8_t* blk = kv::cache_base(t) + (slot / bs) * stride;
  const std::int64_t tok = slot % bs;
  std::uint8_t* nope = blk + kv::nope_offset(l, bs, tok);
  std::uint8_t* sc = blk + kv::scale_offset(l, bs, tok);
  std::uint8_t* rope = blk + kv::rope_offset(l, bs, tok);
  for (int i = 0; i < li.d_nope; ++i) nope[i] = 0xFF;
  for (int i = 0; i < (l == kv::CacheLayout::V32_FP8Sparse ? 16 : 8); ++i) sc[i] = 0xFF;
  for (int i = 0; i < 2 * li.d_rope; ++i) rope[i] = 0xFF;
}

}  // namespace dsv4::test::smla
