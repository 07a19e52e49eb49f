// Poison patterns: each is a pattern a correct kernel cannot produce (signalling NaN for wide floats,
// the NaN code for fp8, 0xA5.. for integers); check_written lists exactly the untouched elements and
// applies the NaN rule; byte outputs use two runs.
#include <gtest/gtest.h>

#include <cmath>

#include "oracle/poison.hpp"

using namespace dsv4;
using namespace dsv4::oracle;

TEST(Poison, FloatPatternsAreSignallingNaNs) {
  for (DType t : {DType::F32, DType::F16, DType::BF16, DType::F64}) {
    Tensor x = Tensor::empty(t, {4});
    poison(x);
    EXPECT_TRUE(std::isnan(x.get_linear(0))) << dtype_name(t);
    // quiet bit (top mantissa bit) clear: arithmetic never yields this code
    std::uint64_t c = poison_code(t);
    int mant = t == DType::F32 ? 23 : t == DType::F16 ? 10 : t == DType::BF16 ? 7 : 52;
    EXPECT_EQ((c >> (mant - 1)) & 1u, 0u) << dtype_name(t);
  }
  for (DType t : {DType::F8_E4M3FN, DType::F8_E4M3FNUZ, DType::F8_E5M2, DType::F8_E5M2FNUZ, DType::F8_E8M0}) {
    Tensor x = Tensor::empty(t, {2});
    poison(x);
    EXPECT_TRUE(std::isnan(x.get_linear(1))) << dtype_name(t);
  }
  Tensor i = Tensor::empty(DType::I32, {1});
  poison(i);
  EXPECT_EQ(i.get_linear(0), static_cast<double>(static_cast<std::int32_t>(0xA5A5A5A5u)));
}

TEST(Poison, CheckWrittenListsUntouchedElementsOfAView) {
  Tensor base = Tensor::empty(DType::BF16, {4, 6});
  Tensor v = base.slice(1, 1, 4);  // non-contiguous view [4, 4]
  poison(v);
  EXPECT_EQ(base.get({0, 0}), 0.0);  // outside the view: untouched
  for (std::int64_t i = 0; i < v.numel(); ++i) if (i != 5 && i != 10) v.set_linear(i, 1.0 + i);
  WriteCheck w = check_written(v);
  EXPECT_EQ(w.unwritten, (std::vector<std::int64_t>{5, 10}));
  // A quiet NaN written by the kernel is a written element.
  v.set_code_linear(5, 0x7FC0);
  EXPECT_EQ(check_written(v).unwritten, (std::vector<std::int64_t>{10}));
}

TEST(Poison, NaNRuleForFp8AndWideFloats) {
  // fp8: the poison is the format's NaN code, so where the reference expects NaN it is indeterminate.
  Tensor a = Tensor::empty(DType::F8_E4M3FNUZ, {3});
  poison(a);
  a.set_code_linear(0, 0x40);
  Tensor e = Tensor::from_codes(DType::F8_E4M3FNUZ, {3}, {0x40, 0x80, 0x41});
  WriteCheck w = check_written(a, PoisonPattern::primary, &e);
  EXPECT_EQ(w.unwritten, (std::vector<std::int64_t>{2}));
  EXPECT_EQ(w.indeterminate, (std::vector<std::int64_t>{1}));
  // bf16: the signalling payload still identifies an unwritten element where NaN is expected.
  Tensor b = Tensor::empty(DType::BF16, {2});
  poison(b);
  Tensor eb = Tensor::from_codes(DType::BF16, {2}, {0x7FC0, 0x3F80});
  WriteCheck wb = check_written(b, PoisonPattern::primary, &eb);
  EXPECT_EQ(wb.unwritten, (std::vector<std::int64_t>{0, 1}));
  EXPECT_TRUE(wb.indeterminate.empty());
}

TEST(Poison, ByteOutputsNeedTwoRuns) {
  // A uint8 output where the kernel legitimately writes 0xA5 at [1] and never writes [3].
  Tensor r1 = Tensor::empty(DType::U8, {4}), r2 = Tensor::empty(DType::U8, {4});
  poison(r1, PoisonPattern::primary);
  poison(r2, PoisonPattern::alternate);
  for (Tensor* r : {&r1, &r2}) {
    r->set_code_linear(0, 0x00);
    r->set_code_linear(1, 0xA5);
    r->set_code_linear(2, 0x5A);
  }
  EXPECT_EQ(check_written(r1).unwritten, (std::vector<std::int64_t>{1, 3}));  // ambiguous alone
  EXPECT_EQ(unwritten_in_both(r1, r2), (std::vector<std::int64_t>{3}));
}

TEST(Poison, ByteRuleWithExpected) {
  // A uint8 output (a KV cache): [0] legitimately 0xA5 where the reference expects 0xA5 (indeterminate, not a
  // failure), [1] left at the poison where the reference expects 0x10 (unwritten), [2] written.
  Tensor a = Tensor::empty(DType::U8, {3});
  poison(a);
  a.set_code_linear(2, 0x33);
  Tensor e = Tensor::from_codes(DType::U8, {3}, {0xA5, 0x10, 0x33});
  WriteCheck w = check_written(a, PoisonPattern::primary, &e);
  EXPECT_EQ(w.unwritten, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(w.indeterminate, (std::vector<std::int64_t>{0}));
}
