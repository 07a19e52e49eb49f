// The one-line repro command (fuzz/harness/repro_line.hpp), shared by `dsv4check repro` and the fuzz
// campaign: exact text for the minimal and the full form (expected strings written by hand from the
// format `dsv4check repro` parses), dtype handling, and the shape list syntax.
#include <gtest/gtest.h>

#include "fuzz/harness/repro_line.hpp"

using dsv4::Json;
using dsv4::fuzz::ReproLine;
using dsv4::fuzz::repro_line;
using dsv4::fuzz::shape_kv_list;

TEST(ReproLine, MinimalFormOmitsDefaults) {
  ReproLine r;
  r.op = "topk";
  r.seed = 99;
  EXPECT_EQ(repro_line(r), "dsv4check repro --op topk --backend reference --seed 99");
}

TEST(ReproLine, FullFormInFlagOrder) {
  ReproLine r;
  r.op = "merge_attn_states";
  r.shape = Json{{"T", 6}, {"H", 4}, {"dtype", "F16"}};
  r.dtype = "BF16";
  r.attrs = Json{{"both_empty", "copy_prefix"}};
  r.backend = "sim";
  r.arch = "gfx942";
  r.variant = "nan_both_empty";
  r.seed = 12;
  r.streams = 2;
  r.set_codes = {"a:0=0xFF", "b:3=1"};
  EXPECT_EQ(repro_line(r),
            "dsv4check repro --op merge_attn_states --shape H=4,T=6 --dtype BF16 --attrs '{\"both_empty\":\"copy_prefix\"}' "
            "--backend sim --arch gfx942 --variant nan_both_empty --seed 12 --streams 2 --set-code a:0=0xFF --set-code b:3=1");
}

TEST(ReproLine, ShapeDtypeKeptWithoutDtypeFlag) {
  ReproLine r;
  r.op = "quant";
  r.shape = Json{{"M", 5}, {"dtype", "bf16"}, {"sink", true}};
  r.seed = 3;
  EXPECT_EQ(repro_line(r), "dsv4check repro --op quant --shape M=5,dtype=bf16,sink=true --backend reference --seed 3");
}

TEST(ReproLine, ShapeList) {
  EXPECT_EQ(shape_kv_list(Json{{"K", 5248}, {"N", 65}, {"values", "specials"}}), "K=5248,N=65,values=specials");
  EXPECT_EQ(shape_kv_list(Json::object()), "");
  EXPECT_EQ(shape_kv_list(Json(7)), "");
}
