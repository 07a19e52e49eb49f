// Tests of reference/registry/shape_check: shape rules evaluated from shape fields, the memory check's
// message (which tensor, its size, the memory available) before anything is allocated, the unknown-field
// error listing the op's fields, and that every op's default shapes use only its declared fields and fit.
#include <gtest/gtest.h>

#include "reference/registry/registry.hpp"
#include "reference/registry/shape_check.hpp"

namespace dsv4 {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ShapeCheck, RulesEvaluateProductsSumsAndLiterals) {
  const Json s{{"B", 3}, {"next_n", 2}, {"H", 64}, {"num_blocks", 5}, {"block_kv", 64}, {"D", 128}};
  EXPECT_EQ(eval_shape_rule("[B\xC2\xB7next_n, H]", s), (std::vector<std::int64_t>{6, 64}));
  EXPECT_EQ(eval_shape_rule("[num_blocks, block_kv, 1, D+4]", s), (std::vector<std::int64_t>{5, 64, 1, 132}));
  EXPECT_EQ(eval_shape_rule("[H], [B, H] or [1, H]", s), (std::vector<std::int64_t>{64}));
  EXPECT_FALSE(eval_shape_rule("[S, max_seqlen_k]", s).has_value());  // not given: skipped, never guessed
  EXPECT_FALSE(eval_shape_rule("[cos(32) \xE2\x80\x96 sin(32)]", s).has_value());
}

TEST(ShapeCheck, TooLargeNamesTheTensorItsSizeAndTheMemoryBeforeAllocating) {
  const OpDescriptor& d = Registry::instance().get("skinny_gemm");
  const Json shape{{"N", 128}, {"K", 100000000}, {"M", 100000}};
  const std::string e = error_of([&] { check_shape_fits(d, shape, 16.0 * (1ull << 30)); });
  EXPECT_NE(e.find("input 'b' [M, K] = [100000, 100000000]"), std::string::npos) << e;
  EXPECT_NE(e.find("18.2 TiB"), std::string::npos) << e;  // 1e13 elements x 2 bytes
  EXPECT_NE(e.find("16.0 GiB of memory available"), std::string::npos) << e;
  EXPECT_NE(e.find("also too large: input 'a' 23.8 GiB"), std::string::npos) << e;  // 128 x 1e8 x 2 bytes
  // Each tensor fits alone but not together: the sum is named with its parts.
  const Json mid{{"N", 1000}, {"K", 1000000}, {"M", 1000}};  // a and b 1.9 GiB each (bf16/fp16)
  const std::string t = error_of([&] { check_shape_fits(d, mid, 3.0 * (1ull << 30)); });
  EXPECT_NE(t.find("together"), std::string::npos) << t;
  EXPECT_NE(t.find("input 'a' 1.9 GiB"), std::string::npos) << t;
  EXPECT_EQ(error_of([&] { check_shape_fits(d, Json{{"N", 4}, {"K", 64}, {"M", 16}}, 1e6); }), "");
}

TEST(ShapeCheck, TheLimitIsExactAtTheByte) {
  const OpDescriptor& d = Registry::instance().get("skinny_gemm");
  const Json shape{{"N", 1}, {"K", 1024}, {"M", 1024}};  // a 2 KiB, b 2 MiB, out 2 KiB (bf16/fp16); bias optional
  const double b = 1024.0 * 1024 * 2, total = b + 2048 + 2048;
  EXPECT_EQ(error_of([&] { check_shape_fits(d, shape, total); }), "");
  const std::string together = error_of([&] { check_shape_fits(d, shape, total - 1); });
  EXPECT_NE(together.find("need 2.0 MiB together"), std::string::npos) << together;
  const std::string alone = error_of([&] { check_shape_fits(d, shape, b - 1); });
  EXPECT_NE(alone.find("input 'b' [M, K] = [1024, 1024] needs 2.0 MiB (2 bytes per element)"), std::string::npos) << alone;
}

TEST(ShapeCheck, UnknownFieldIsAnErrorListingTheOpsFields) {
  const OpDescriptor& d = Registry::instance().get("skinny_gemm");
  const std::string e = error_of([&] { check_shape_fields(d, Json{{"N", 1}, {"K", 64}, {"M", 16}, {"Q", 3}}); });
  EXPECT_NE(e.find("unknown shape field 'Q'"), std::string::npos) << e;
  EXPECT_NE(e.find("N, K, M, Kap, dtype, bias"), std::string::npos) << e;
  EXPECT_EQ(error_of([&] { check_shape_fields(d, Json{{"N", 1}, {"values", "normal"}, {"attr.x", 1}}); }), "");
}

TEST(ShapeCheck, EveryOpDeclaresItsFieldsAndItsDefaultShapesUseOnlyThemAndFit) {
  for (const std::string& name : Registry::instance().names()) {
    const OpDescriptor& d = Registry::instance().get(name);
    if (!d.generate) continue;
    EXPECT_FALSE(shape_fields(name).empty()) << name;
    for (const Json& s : d.default_shapes) {
      EXPECT_EQ(error_of([&] { check_shape_fields(d, s); }), "") << name << " " << s.dump();
      EXPECT_EQ(error_of([&] { check_shape_fits(d, s, 1e9); }), "") << name << " " << s.dump();
      EXPECT_FALSE(planned_tensors(d, s).empty()) << name << ": no shape rule evaluates for " << s.dump();
    }
  }
}

TEST(ShapeCheck, AvailableMemoryIsPositiveAndHumanBytesRound) {
  EXPECT_GT(available_memory_bytes(), 1e6);
  EXPECT_EQ(human_bytes(512), "512 B");
  EXPECT_EQ(human_bytes(1536), "1.5 KiB");
}

}  // namespace
}  // namespace dsv4
