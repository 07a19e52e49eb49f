// The formats CLI, run as a subprocess: single-value show/encode, bulk encode/decode round trip, packed
// fp4, the self-check table, and bad input (exit 2, clear message, no output file left behind).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <bit>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct CliRun {
  int code;
  std::string out;  // stdout and stderr together
};

CliRun run(const std::string& args) {
  const std::string cmd = std::string(DSV4CHECK_BIN) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {-1, "popen failed"};
  std::string out;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

class Tmp {
 public:
  Tmp() : dir_(fs::temp_directory_path() / ("dsv4_formats_cli_" + std::to_string(::getpid()) + "_" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~Tmp() { fs::remove_all(dir_); }
  std::string path(const std::string& n) const { return (dir_ / n).string(); }
  bool only(const std::vector<std::string>& names) const {  // exactly these files exist
    std::size_t count = 0;
    for (auto& e : fs::directory_iterator(dir_)) {
      (void)e;
      ++count;
    }
    for (const auto& n : names)
      if (!fs::exists(dir_ / n)) return false;
    return count == names.size();
  }

 private:
  fs::path dir_;
};

void write_bytes(const std::string& p, const void* d, std::size_t n) {
  std::ofstream o(p, std::ios::binary);
  o.write(static_cast<const char*>(d), static_cast<std::streamsize>(n));
}
std::vector<unsigned char> read_bytes(const std::string& p) {
  std::ifstream i(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(i), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST(FormatsCli, ShowPrintsValueAndClass) {
  CliRun r = run("formats show e4m3fnuz 0x7f");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("= 240 (normal)"), std::string::npos) << r.out;
  r = run("formats show e4m3fnuz 0x80");
  EXPECT_NE(r.out.find("(nan)"), std::string::npos) << r.out;
  r = run("formats show e8m0fnu 0x00 --e8m0-decode e8m0-shift23");
  EXPECT_NE(r.out.find("= 0 "), std::string::npos) << r.out;
  r = run("formats show e4m3fn 0x80");
  EXPECT_NE(r.out.find("= -0 (zero)"), std::string::npos) << r.out;
}

TEST(FormatsCli, EncodeSingleValues) {
  EXPECT_EQ(run("formats encode e4m3fn 464.5 --mode rne-nonsat").out, "0x7f\n");
  EXPECT_EQ(run("formats encode e4m3fn 464.5 --mode rne-satfinite").out, "0x7e\n");
  EXPECT_EQ(run("formats encode e4m3fn 449 --mode hip-sw-precheck:nonsat").out, "0x7f\n");
  EXPECT_EQ(run("formats encode e8m0fnu 448 --mode e8m0-floor").out, "0x87\n");
  EXPECT_EQ(run("formats encode bf16 f32:0xffc00000 --mode torch").out, "0x7fc0\n");
  EXPECT_EQ(run("formats encode e5m2 f32:0xffc00000 --mode ml_dtypes").out, "0xfe\n");
}

TEST(FormatsCli, BulkEncodeDecodeRoundTrip) {
  Tmp t;
  const std::vector<float> x = {0.0f, -0.0f, 1.0f, -2.5f, 448.0f, 464.0f, 500.0f, 1e-9f, -3.0f, 0.015625f};
  write_bytes(t.path("x.f32"), x.data(), x.size() * 4);
  CliRun r = run("formats encode --format e4m3fn --mode rne-satfinite --in " + t.path("x.f32") + " --out " + t.path("c.bin"));
  ASSERT_EQ(r.code, 0) << r.out;
  const auto codes = read_bytes(t.path("c.bin"));
  // Hand-derived: 0, -0, 1.0, -2.5, 448, 464 (tie -> 448), 500 -> 448, tiny -> 0, -3, 2^-6.
  EXPECT_EQ(codes, (std::vector<unsigned char>{0x00, 0x80, 0x38, 0xC2, 0x7E, 0x7E, 0x7E, 0x00, 0xC4, 0x08}));
  r = run("formats decode --format e4m3fn --in " + t.path("c.bin") + " --out " + t.path("y.f32"));
  ASSERT_EQ(r.code, 0) << r.out;
  const auto y = read_bytes(t.path("y.f32"));
  ASSERT_EQ(y.size(), x.size() * 4);
  const std::vector<float> want = {0.0f, -0.0f, 1.0f, -2.5f, 448.0f, 448.0f, 448.0f, 0.0f, -3.0f, 0.015625f};
  for (std::size_t i = 0; i < want.size(); ++i) {
    float v;
    std::memcpy(&v, y.data() + 4 * i, 4);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(v), std::bit_cast<std::uint32_t>(want[i])) << i;
  }
  // bf16: two bytes per code, little-endian.
  r = run("formats encode --format bf16 --mode torch --in " + t.path("x.f32") + " --out " + t.path("b.bin"));
  ASSERT_EQ(r.code, 0) << r.out;
  const auto b = read_bytes(t.path("b.bin"));
  ASSERT_EQ(b.size(), x.size() * 2);
  EXPECT_EQ(b[4], 0x80);  // 1.0 = 0x3F80, low byte first
  EXPECT_EQ(b[5], 0x3F);
  EXPECT_TRUE(t.only({"x.f32", "c.bin", "y.f32", "b.bin"}));  // no temporaries left
}

TEST(FormatsCli, PackedFp4) {
  Tmp t;
  const std::vector<float> x = {1.0f, -6.0f, 0.5f};
  write_bytes(t.path("x.f32"), x.data(), x.size() * 4);
  CliRun r = run("formats encode --format e2m1fn --mode ml_dtypes --fp4x2 --in " + t.path("x.f32") + " --out " + t.path("p.bin"));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(read_bytes(t.path("p.bin")), (std::vector<unsigned char>{0xF2, 0x01}));  // element 0 in the low nibble
}

TEST(FormatsCli, CheckTablePasses) {
  const CliRun r = run("check --only formats");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("codes decoded"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("e8m0fnu"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;
}

TEST(FormatsCli, BadInputExitsTwoAndLeavesNoFile) {
  Tmp t;
  const std::vector<unsigned char> seven(7, 0);
  write_bytes(t.path("seven.bin"), seven.data(), seven.size());
  const std::vector<float> x = {1.0f};
  write_bytes(t.path("x.f32"), x.data(), 4);
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"formats encode --format e9m9 --mode torch --in " + t.path("x.f32") + " --out " + t.path("o.bin"), "unknown format 'e9m9'"},
      {"formats encode --format e4m3fn --mode bogus --in " + t.path("x.f32") + " --out " + t.path("o.bin"), "unknown mode 'bogus'"},
      {"formats encode --format e4m3fn --mode e8m0-ceil --in " + t.path("x.f32") + " --out " + t.path("o.bin"), "does not apply"},
      {"formats encode --format e4m3fn --mode torch --in " + t.path("seven.bin") + " --out " + t.path("o.bin"), "not a multiple of 4"},
      {"formats decode --format bf16 --in " + t.path("seven.bin") + " --out " + t.path("o.bin"), "not a multiple of 2"},
      {"formats encode --format e4m3fn --mode torch --in " + t.path("missing.f32") + " --out " + t.path("o.bin"), "cannot read"},
      {"formats encode --format e4m3fn --mode torch --in " + t.path("x.f32") + " --out " + t.path("nodir/o.bin"), "cannot write"},
      {"formats decode --format e2m1fn --in " + t.path("x.f32") + " --out " + t.path("o.bin"), "not a e2m1fn code"},
      {"formats show e4m3fn 0x100", "out of range"},
      {"formats encode e4m3fn 1.0", "--mode"},
      {"formats encode e2m1fn 1.0 --mode torch", "no float32 -> float4_e2m1fn"},
  };
  for (const Case& c : cases) {
    const CliRun r = run(c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.message), std::string::npos) << c.args << "\n" << r.out;
  }
  EXPECT_TRUE(t.only({"seven.bin", "x.f32"}));
}
