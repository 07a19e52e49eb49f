// Mode strings: parsing, canonical names, option errors, and per-format applicability.
#include <gtest/gtest.h>

#include <stdexcept>

#include "reference/formats/encode.hpp"
#include "reference/formats/mode.hpp"

using namespace dsv4::formats;

TEST(Modes, ParseIdsAndOptions) {
  EXPECT_EQ(parse_mode("rne-nonsat").kind, ModeKind::rne_nonsat);
  const EncodeMode h = parse_mode("hip-sw-precheck:sat");
  EXPECT_EQ(h.kind, ModeKind::hip_sw_precheck);
  EXPECT_TRUE(h.saturate);
  const EncodeMode c = parse_mode("e8m0-ceil:satfinite");
  EXPECT_TRUE(c.saturate);
  EXPECT_EQ(c.inf, E8m0Inf::max);  // SATFINITE sends Inf to 0xFE unless inf= says otherwise
  EXPECT_EQ(parse_mode("e8m0-ceil:satfinite,inf=nan").inf, E8m0Inf::nan);
  const EncodeMode e = parse_mode("e8m0-nearest-tiesup:zero=nan,neg=nan");
  EXPECT_EQ(e.zero, E8m0Zero::nan);
  EXPECT_EQ(e.neg, E8m0Neg::nan);
  EXPECT_EQ(parse_mode("fp4-rne-satfinite:nan=+6").nan, NanPolicy::fp4_pos6);
  EXPECT_EQ(parse_mode("fp4-rne-satfinite:nan=+-6").nan, NanPolicy::fp4_signed6);
  EXPECT_EQ(parse_mode("bf16-rne").nan, NanPolicy::canonical_pos);
  EXPECT_EQ(parse_mode("bf16-rne:nan=quiet-keep").nan, NanPolicy::quiet_keep);
  EXPECT_EQ(parse_mode("rne-satfinite:nan=canonical-pos").nan, NanPolicy::canonical_pos);
  EXPECT_EQ(parse_mode("hip-sw-precheck:sat,hip=old").hip, HipHeaders::old);
}

TEST(Modes, CanonicalNameRoundTrips) {
  for (const char* s : {"rne-nonsat", "rne-satfinite:nan=canonical-pos", "rne-sat-keepinf", "hip-sw-precheck:sat",
                        "hip-sw-precheck:nonsat,hip=old", "hip-fast-clamp", "rtz:sat", "e8m0-nearest-tiesup:zero=nan,neg=nan",
                        "e8m0-ceil:satfinite", "e8m0-floor", "fp4-rne-satfinite:nan=sign-inverted-0", "fp4-ties-to-zero",
                        "bf16-rne:nan=quiet-keep", "torch", "ml_dtypes"}) {
    const EncodeMode m = parse_mode(s);
    EXPECT_EQ(parse_mode(mode_name(m)), m) << s << " -> " << mode_name(m);
  }
  EXPECT_EQ(mode_name(parse_mode("hip-sw-precheck:sat")), "hip-sw-precheck:sat");
}

TEST(Modes, BadStringsAreRefusedWithTheRule) {
  auto msg = [](const char* s) {
    try {
      parse_mode(s);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(msg("rne").find("unknown mode 'rne'"), std::string::npos);
  EXPECT_NE(msg("fp4-rne-satfinite").find("needs a NaN policy"), std::string::npos);  // no silent NaN choice
  EXPECT_NE(msg("rne-nonsat:sat").find("applies only to"), std::string::npos);
  EXPECT_NE(msg("e8m0-ceil:zero=maybe").find("zero=min or zero=nan"), std::string::npos);
  EXPECT_NE(msg("rne-nonsat:nan=+6").find("only valid for fp4"), std::string::npos);
  EXPECT_NE(msg("rne-nonsat:").find("empty option"), std::string::npos);
  EXPECT_NE(msg("rne-nonsat:bogus=1").find("unknown"), std::string::npos);
}

TEST(Modes, ApplicabilityPerFormat) {
  EXPECT_THROW(resolve_mode(Format::e4m3fn, parse_mode("e8m0-ceil")), std::invalid_argument);
  EXPECT_THROW(resolve_mode(Format::e8m0fnu, parse_mode("rne-nonsat")), std::invalid_argument);
  EXPECT_THROW(resolve_mode(Format::e2m1fn, parse_mode("torch")), std::invalid_argument);  // PyTorch has no fp4 cast
  EXPECT_THROW(resolve_mode(Format::fp16, parse_mode("ml_dtypes")), std::invalid_argument);
  EXPECT_THROW(resolve_mode(Format::bf16, parse_mode("hip-fast-clamp")), std::invalid_argument);
  EXPECT_THROW(encode(Format::e2m1fn, parse_mode("rne-nonsat"), 1.0), std::invalid_argument);
  EXPECT_THROW(FastEncoder(Format::e4m3fn, parse_mode("fp4-ties-to-zero")), std::invalid_argument);
  EXPECT_EQ(resolve_mode(Format::e8m0fnu, parse_mode("torch")).kind, ModeKind::e8m0_nearest_tiesup);
  EXPECT_EQ(resolve_mode(Format::e2m1fn, parse_mode("ml_dtypes")).nan, NanPolicy::fp4_sign_inverted_zero);
}
