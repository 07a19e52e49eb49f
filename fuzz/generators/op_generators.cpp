// The value-distribution layer, the spec list and the registry hook; see op_generators.hpp.
#include "fuzz/generators/op_generators.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

#include <fmt/format.h>

#include "fuzz/campaign/shape_space.hpp"
#include "kernels/kernel_registry.hpp"
#include "reference/ops/common/fuzz_draw.hpp"
#include "reference/formats/format.hpp"
#include "reference/ops/common/quant_fp8_encode.hpp"
#include "reference/registry/registry.hpp"

namespace dsv4::fuzz {

const char* value_dist_name(ValueDist v) {
  switch (v) {
    case ValueDist::normal: return "normal";
    case ValueDist::heavy_tailed: return "heavy_tailed";
    case ValueDist::all_equal: return "all_equal";
    case ValueDist::tiny_scale: return "tiny_scale";
    case ValueDist::huge_scale: return "huge_scale";
    case ValueDist::specials: return "specials";
  }
  return "?";
}

std::optional<ValueDist> parse_value_dist(const std::string& s) {
  for (ValueDist v : kAllValueDists)
    if (s == value_dist_name(v)) return v;
  return std::nullopt;
}


namespace {

// log2 of the tiny / huge factor for a dtype: tiny lands F16 in its subnormals and BF16/F32 far below 1
// (products stay normal in fp32); huge stays far from overflow for one factor of a product.
int tiny_log2(DType t) {
  switch (t) {
    case DType::F16: return -14;
    case DType::BF16:
    case DType::F32: return -60;
    default: return -7;  // fp8: subnormal codes
  }
}
int huge_log2(DType t) {
  switch (t) {
    case DType::F16: return 8;
    case DType::BF16:
    case DType::F32: return 40;
    default: return 4;  // fp8: saturating codes near the format maximum
  }
}

void scale_all(Tensor& t, double f) {
  for (std::int64_t i = 0; i < t.numel(); ++i) draw::store(t, i, t.get_linear(i) * f);
}

}  // namespace

void apply_value_dist(const OpGenSpec& spec, OpCase& c, const Json& shape, ValueDist v, std::mt19937_64& rng) {
  auto floating = [&](const std::string& n) -> Tensor* {
    auto it = c.inputs.find(n);
    if (it == c.inputs.end() || !it->second.defined() || !draw::is_value_dtype(it->second.dtype())) return nullptr;
    return &it->second;
  };
  switch (v) {
    case ValueDist::normal: return;  // the op generator's own (normal) draw
    case ValueDist::all_equal:
      for (const auto& n : spec.value_inputs)
        if (Tensor* t = floating(n)) {
          double x = 0;
          for (std::int64_t i = 0; i < t->numel() && (x == 0 || !std::isfinite(x)); ++i) x = t->get_linear(i);
          if (x == 0 || !std::isfinite(x)) x = 0.75;
          for (std::int64_t i = 0; i < t->numel(); ++i) draw::store(*t, i, x);
        }
      return;
    case ValueDist::tiny_scale:
    case ValueDist::huge_scale:
      for (const auto& n : spec.scale_inputs)
        if (Tensor* t = floating(n))
          scale_all(*t, std::ldexp(1.0, v == ValueDist::tiny_scale ? tiny_log2(t->dtype()) : huge_log2(t->dtype())));
      return;
    case ValueDist::heavy_tailed:
      for (const auto& n : spec.scale_inputs)
        if (Tensor* t = floating(n)) {
          const int lim = t->dtype() == DType::F16 ? 10 : draw::max_finite_of(t->dtype()) < 1e5 ? 4 : 30;
          std::normal_distribution<double> k(0.0, lim / 4.0);
          for (std::int64_t i = 0; i < t->numel(); ++i) {
            const double e = std::clamp(std::round(k(rng)), -double(lim), double(lim));
            draw::store(*t, i, t->get_linear(i) * std::ldexp(1.0, static_cast<int>(e)));
          }
        }
      return;
    case ValueDist::specials:
      if (spec.specials) spec.specials(c, shape, rng);
      return;
  }
}

const std::vector<OpGenSpec>& op_gen_specs() {
  static const std::vector<OpGenSpec> specs = [] {
    std::vector<OpGenSpec> v;
    for (const OpDescriptor* d : Registry::instance().all()) {
      if (!d->fuzz.shapes) continue;
      OpGenSpec g;
      static_cast<FuzzSpace&>(g) = d->fuzz;
      g.op = d->name;
      const kernels::KernelEntry* k = kernels::KernelRegistry::instance().find(d->name);
      if (k && k->onto_plan_boundaries)
        g.shapes = [own = d->fuzz.shapes, onto = k->onto_plan_boundaries](std::mt19937_64& rng, ShapeScale sc) {
          Json s = own(rng, sc);
          return sc == ShapeScale::campaign ? onto(rng, std::move(s)) : s;
        };
      v.push_back(std::move(g));
    }
    return v;
  }();
  return specs;
}

const OpGenSpec* find_gen_spec(const std::string& op) {
  for (const auto& s : op_gen_specs())
    if (s.op == op) return &s;
  return nullptr;
}

Json draw_spec_shape(const OpGenSpec& spec, std::mt19937_64& rng, ShapeScale scale, std::optional<ValueDist> values) {
  Json s = spec.shapes(rng, scale);
  const ValueDist v = values ? *values : draw::pick(rng, std::vector<ValueDist>(std::begin(kAllValueDists), std::end(kAllValueDists)));
  s["values"] = value_dist_name(v);
  return s;
}

namespace {

Generator wrap(const std::string& op, Generator orig) {
  return [op, orig = std::move(orig)](std::mt19937_64& rng, const Json& shape) -> OpCase {
    if (!shape.is_object()) return orig(rng, shape);
    Json base = Json::object(), attrs = Json::object();
    std::optional<ValueDist> v;
    for (auto it = shape.begin(); it != shape.end(); ++it) {
      if (it.key() == "values") {
        const std::string name = it->is_string() ? it->get<std::string>() : it->dump();
        v = parse_value_dist(name);
        if (!v)
          throw InputError(fmt::format("{}: shape key 'values' must be one of normal, heavy_tailed, all_equal, "
                                       "tiny_scale, huge_scale, specials (got '{}')", op, name));
      } else if (it.key().rfind("attr.", 0) == 0) {
        attrs[it.key().substr(5)] = *it;
      } else {
        base[it.key()] = *it;
      }
    }
    OpCase c = orig(rng, base);
    for (auto it = attrs.begin(); it != attrs.end(); ++it) c.attrs[it.key()] = *it;
    if (v) {
      const OpGenSpec* spec = find_gen_spec(op);
      if (!spec) throw InputError(op + ": no fuzz value layer for this op (fuzz/generators/); drop the 'values' key");
      apply_value_dist(*spec, c, base, *v, rng);
    }
    return c;
  };
}

}  // namespace

void install_generators() {
  static std::once_flag once;
  std::call_once(once, [] {
    Registry& r = Registry::instance();
    for (const std::string& name : r.names()) {
      OpDescriptor& d = r.mutable_get(name);
      if (d.generate) d.generate = wrap(name, d.generate);
    }
    for (const OpGenSpec& s : op_gen_specs()) {
      if (!r.find(s.op)) continue;
      const OpGenSpec* sp = &s;
      register_shape_space(s.op, [sp](std::mt19937_64& rng) { return draw_spec_shape(*sp, rng, ShapeScale::campaign); });
    }
  });
}

}  // namespace dsv4::fuzz
