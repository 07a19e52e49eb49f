// `dsv4check zoo` end to end: the JSON of one bug says caught by the expected detector with no false
// alarm (exit 0), and an unknown bug id is a usage error (exit 2).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

namespace {

int run(const std::string& args, std::string& out) {
  const std::string cmd = std::string(DSV4CHECK_EXE) + " " + args + " 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return -1;
  std::array<char, 4096> buf{};
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), p)) > 0;) out.append(buf.data(), n);
  const int st = ::pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

}  // namespace

TEST(CmdZoo, JsonOfOneBug) {
  std::string out;
  ASSERT_EQ(run("zoo --bug 2 --bug 8 --json", out), 0) << out;
  const nlohmann::json j = nlohmann::json::parse(out);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["id"], "2");
  EXPECT_EQ(j[0]["expected_detector"], "plan-property");
  EXPECT_TRUE(j[0]["caught"].get<bool>());
  EXPECT_FALSE(j[0]["false_alarm"].get<bool>());
  EXPECT_EQ(j[1]["expected_detector"], "nan-placement");
  EXPECT_EQ(j[1]["cases_until_detection"], 2);
}

TEST(CmdZoo, TableAndUnknownBug) {
  std::string out;
  ASSERT_EQ(run("zoo --bug 6b", out), 0) << out;
  EXPECT_NE(out.find("nan-placement"), std::string::npos) << out;
  EXPECT_NE(out.find("quiet"), std::string::npos) << out;
  std::string err;
  EXPECT_EQ(run("zoo --bug nope", err), 2);
}
