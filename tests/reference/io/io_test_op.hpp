// A small op registered only inside the fixture and verify test executables ("io_test_op"), so fixture
// reading and verification are tested without depending on any real op's reference:
//   inputs  x [R, C] (F32, BF16, F8_E4M3FN, F8_E4M3FNUZ), idx [R] I32, s [R] F8_E8M0 (optional),
//           z [R] (F8_E4M3FNUZ, F8_E5M2FNUZ; optional, ignored)
//   attrs   alpha (number, 1.0), mode ("plus" | "minus"), count (int, 3), fp8_dtype ("e4m3fn" | "e4m3fnuz")
//   outputs y [R, C] F32 = alpha * x[r,c] * s[r] (+|-) idx[r];  q [R] fp8 (fp8_dtype) with codes idx[r] & 0x3F
// Oracle: y allclose (atol 1e-6, rtol 1e-6), q exact.
#pragma once
#include <cstdint>

#include "reference/registry/registry.hpp"

namespace dsv4::test {

inline void register_io_test_op() {
  Registry& reg = Registry::instance();
  if (reg.find("io_test_op")) return;
  OpDescriptor d;
  d.name = "io_test_op";
  d.summary = "test-only op for fixture I/O";
  d.inputs = {{"x", {DType::F32, DType::BF16, DType::F8_E4M3FN, DType::F8_E4M3FNUZ}, "[R, C]", false, ""},
              {"idx", {DType::I32}, "[R]", false, ""},
              {"s", {DType::F8_E8M0}, "[R]", true, ""},
              {"z", {DType::F8_E4M3FNUZ, DType::F8_E5M2FNUZ}, "[R]", true, ""}};
  d.outputs = {{"y", {DType::F32}, "[R, C]", false, ""}, {"q", {DType::F8_E4M3FN, DType::F8_E4M3FNUZ}, "[R]", false, ""}};
  d.attrs = {{"alpha", 1.0, "scale", {}, false},
             {"mode", "plus", "sign of idx", {"plus", "minus"}, false},
             {"count", 3, "an integer", {}, false},
             {"fp8_dtype", "e4m3fn", "q's format", {"e4m3fn", "e4m3fnuz"}, false}};
  d.reference = [](const OpCase& c) {
    const Tensor& x = c.in("x");
    const Tensor& idx = c.in("idx");
    if (x.dim() != 2 || idx.dim() != 1 || idx.size(0) != x.size(0))
      throw InputError("io_test_op: x must be [R, C] and idx [R]");
    const double alpha = c.attrs.at("alpha").get<double>();
    const double sign = c.attrs.at("mode") == "plus" ? 1.0 : -1.0;
    const std::int64_t R = x.size(0), C = x.size(1);
    Tensor y = Tensor::empty(DType::F32, {R, C});
    DType qt = c.attrs.at("fp8_dtype") == "e4m3fn" ? DType::F8_E4M3FN : DType::F8_E4M3FNUZ;
    Tensor q = Tensor::empty(qt, {R});
    for (std::int64_t r = 0; r < R; ++r) {
      const double s = c.has("s") ? c.in("s").get({r}) : 1.0;
      for (std::int64_t k = 0; k < C; ++k) y.set({r, k}, alpha * x.get({r, k}) * s + sign * idx.get({r}));
      q.set_code({r}, static_cast<std::uint64_t>(idx.code({r})) & 0x3F);
    }
    return Outputs{{"y", y}, {"q", q}};
  };
  d.oracle["y"] = {"allclose", {{"atol", 1e-6}, {"rtol", 1e-6}}, "test op"};
  d.oracle["q"] = {"exact", Json::object(), "test op"};
  d.generate = [](std::mt19937_64& rng, const Json& shape) {
    const std::int64_t R = shape.value("R", 4), C = shape.value("C", 8);
    OpCase c;
    std::uniform_real_distribution<double> u(-2.0, 2.0);
    std::vector<double> xs(static_cast<std::size_t>(R * C)), is(static_cast<std::size_t>(R));
    for (auto& v : xs) v = u(rng);
    for (std::int64_t r = 0; r < R; ++r) is[static_cast<std::size_t>(r)] = static_cast<double>(rng() % 100);
    c.inputs["x"] = Tensor::from_f64(DType::F32, {R, C}, xs);
    c.inputs["idx"] = Tensor::from_f64(DType::I32, {R}, is);
    c.attrs["alpha"] = shape.value("alpha", 1.5);
    return c;
  };
  d.default_shapes = {Json{{"R", 4}, {"C", 8}}};
  reg.add(std::move(d));
}

}  // namespace dsv4::test
