// Files written by real PyTorch + safetensors (0.8.0, torch 2.11) with the docs/fixtures.md capture snippet
// (tests/tools/verify/python/capture_fixture.py; outputs computed in float64 by torch, not by dsv4check): the
// reader accepts them byte for byte, and verify passes the correct ones and localises the planted element.
#include <gtest/gtest.h>

#include <sstream>

#include "reference/io/fixture.hpp"
#include "tools/dsv4check/fixture_verify.hpp"

namespace dsv4::cli {
namespace {

const std::string kData = DSV4_VERIFY_DATA;

TEST(PythonWrittenFiles, ContainerMatchesTheFormatWeRead) {
  for (const char* f : {"torch_merge_f32", "torch_merge_bf16", "torch_fnuz_container"}) {
    SCOPED_TRACE(f);
    auto bytes = io::read_file_bytes(kData + "/" + f + ".safetensors");
    std::uint64_t n = 0;
    for (int i = 0; i < 8; ++i) n |= std::uint64_t(std::to_integer<std::uint8_t>(bytes[i])) << (8 * i);
    EXPECT_EQ(n % 8, 0u) << "the Python library pads the header to 8 bytes";
    io::SafetensorsFile sf = io::parse_safetensors(bytes, f);
    EXPECT_EQ(sf.metadata.at("schema"), io::kFixtureSchema);
  }
  io::Fixture fx = io::read_fixture(kData + "/torch_fnuz_container.safetensors");
  EXPECT_EQ(fx.inputs.at("x").dtype(), DType::BF16);
  EXPECT_EQ(fx.outputs.at("x_q").dtype(), DType::F8_E4M3FNUZ) << "U8 re-typed through attrs dtypes";
  EXPECT_EQ(fx.outputs.at("x_q").shape(), (Shape{4, 8}));
}

TEST(PythonWrittenFiles, VerifyPassesTorchOutputsAndCatchesThePlantedOne) {
  for (const char* dt : {"f32", "bf16"}) {
    SCOPED_TRACE(dt);
    std::ostringstream out;
    EXPECT_EQ(verify_file(kData + "/torch_merge_" + dt + ".safetensors", {}, out), 0) << out.str();
    const std::string planted = kData + "/torch_merge_" + dt + "_planted.safetensors";
    EXPECT_EQ(verify_file(planted, {}, out), 1) << out.str();
    FixtureVerdict v = judge_fixture(io::read_fixture(planted));
    const oracle::Verdict& o = v.outputs.outputs.at(0);
    EXPECT_EQ(o.output, "output");
    EXPECT_EQ(o.failed, 1);
    ASSERT_FALSE(o.worst.empty());
    EXPECT_EQ(o.worst[0].index, (std::vector<std::int64_t>{3, 1, 7}));
    EXPECT_TRUE(v.outputs.outputs.at(1).pass) << "output_lse was not touched";
  }
}

}  // namespace
}  // namespace dsv4::cli
