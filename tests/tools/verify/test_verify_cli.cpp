// End-to-end tests of the dsv4check executable: `verify` exit codes on files written here (2 for invalid
// files of every kind), and for every registered op with a generator, reference and oracle policies:
// `repro --backend reference --save` then `verify` gives 0, and the same file with one planted wrong
// element gives 1 with a FAIL verdict.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <sys/wait.h>
#include <unistd.h>

#include "reference/io/fixture.hpp"
#include "reference/registry/registry.hpp"
#include "tools/dsv4check/fixture_verify.hpp"

namespace dsv4::cli {
namespace {

struct CliRun {
  int rc = -1;
  std::string out;
};

CliRun dsv4check(const std::string& args) {
  CliRun r;
  const std::string cmd = std::string(DSV4CHECK_EXE) + " " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = ::pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::filesystem::path temp_file(const std::string& stem) {
  auto dir = std::filesystem::temp_directory_path() / ("dsv4_verify_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir / (stem + ".safetensors");
}

std::string write_raw(const std::string& stem, const std::map<std::string, std::string>& md,
                      const std::vector<std::pair<std::string, Tensor>>& t) {
  auto p = temp_file(stem);
  io::write_safetensors(p, md, t);
  return p.string();
}

TEST(VerifyCli, InvalidFilesExitTwo) {
  const Tensor a = Tensor::from_f64(DType::F32, {2}, {1, 2});
  CliRun r = dsv4check("verify " + temp_file("missing").string());
  EXPECT_EQ(r.rc, 2) << r.out;
  auto truncated = temp_file("truncated");
  io::write_file_bytes(truncated, std::vector<std::byte>(4));
  r = dsv4check("verify " + truncated.string());
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("INVALID"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("truncated"), std::string::npos) << r.out;
  r = dsv4check("verify " + write_raw("unknown_op", {{"schema", io::kFixtureSchema}, {"op", "no_such_op"}}, {{"a", a}}));
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("unknown op 'no_such_op'"), std::string::npos) << r.out;
  r = dsv4check("verify " + write_raw("no_schema", {{"op", "no_such_op"}}, {{"a", a}}));
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("'schema'"), std::string::npos) << r.out;
  r = dsv4check("verify");
  EXPECT_EQ(r.rc, 2) << "no file is a usage error: " << r.out;
}

// A shape JSON of scalars as a --shape argument; empty when some value is not a scalar.
std::string shape_arg(const Json& shape) {
  std::string s;
  for (auto it = shape.begin(); it != shape.end(); ++it) {
    if (it->is_object() || it->is_array() || it->is_null()) return "";
    const std::string v = it->is_string() ? it->get<std::string>() : it->dump();
    if (v.find(',') != std::string::npos) return "";
    s += (s.empty() ? "" : ",") + it.key() + "=" + v;
  }
  return s.empty() ? "_=0" : s;
}

// Changes the largest finite non-zero element of one output so that any policy must reject it.
bool plant_wrong(io::Fixture& f, std::string* where) {
  for (auto& [name, t] : f.outputs) {
    std::int64_t best = -1;
    double best_abs = 0;
    for (std::int64_t i = 0; i < t.numel(); ++i) {
      const double v = t.get_linear(i);
      if (std::isfinite(v) && std::abs(v) > best_abs) best_abs = std::abs(v), best = i;
    }
    if (best < 0) continue;
    if (format_of(t.dtype()) && element_size(t.dtype()) == 1) {
      t.set_code_linear(best, t.code_linear(best) ^ 0x80);  // fp8: flip the sign bit
      if (!(t.get_linear(best) == -best_abs)) continue;     // fnuz/e8m0: no sign bit to flip
    } else if (is_integer(t.dtype())) {
      t.set_code_linear(best, t.code_linear(best) ^ 1);
    } else {
      t.set_linear(best, -2 * t.get_linear(best));
    }
    *where = name + "[" + std::to_string(best) + "]";
    return true;
  }
  return false;
}

TEST(VerifyCli, EveryReadyOpRoundTripsThroughReproAndVerify) {
  ensure_default_policies();  // as dsv4check does
  int tried = 0;
  for (const OpDescriptor* d : Registry::instance().all()) {
    if (d->name == "io_test_op" || !d->generate || !d->reference || d->default_shapes.empty()) continue;
    bool policies = true;
    for (auto& o : d->outputs) policies = policies && d->oracle.count(o.name);
    if (!policies) continue;
    std::string shape;
    for (const Json& s : d->default_shapes)
      if (shape.empty()) shape = shape_arg(s);
    if (shape.empty()) continue;
    SCOPED_TRACE(d->name + " --shape " + shape);
    const auto file = temp_file("op_" + d->name);
    CliRun r = dsv4check("repro --op " + d->name + " --shape " + shape + " --backend reference --seed 5 --save " + file.string());
    ASSERT_EQ(r.rc, 0) << r.out;
    r = dsv4check("verify " + file.string());
    EXPECT_EQ(r.rc, 0) << r.out;
    EXPECT_EQ(r.out.rfind("PASS", 0), 0u) << r.out;
    io::Fixture f = io::read_fixture(file);
    std::string where;
    if (!plant_wrong(f, &where)) continue;
    io::write_fixture(file, f);
    r = dsv4check("verify " + file.string());
    EXPECT_EQ(r.rc, 1) << "planted " << where << "\n" << r.out;
    EXPECT_EQ(r.out.rfind("FAIL", 0), 0u) << r.out;
    ++tried;
  }
  if (tried == 0) GTEST_SKIP() << "no registered op has a generator, a reference and oracle policies yet";
}

}  // namespace
}  // namespace dsv4::cli
