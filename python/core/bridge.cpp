// The Python API's C++ side; see bridge.hpp. Every call goes through the fixture layer (reference/io): the
// arguments become the fixture save_fixture writes, parsed back by the reader `verify` uses, so the schema
// checks, the FNUZ/E8M0 re-typing and the judgement are `verify`'s own (tools/dsv4check/fixture_verify).
#include "python/core/bridge.hpp"

#include <cstring>
#include <random>

#include "oracle/report.hpp"
#include "reference/io/fixture.hpp"
#include "reference/registry/registry.hpp"
#include "tools/dsv4check/fixture_verify.hpp"

namespace dsv4py {

namespace {

using dsv4::DType;
using dsv4::InputError;
using dsv4::Json;
using dsv4::Tensor;

constexpr const char* kSource = "<python arguments>";

DType dtype_of(const std::string& name, const ArrayView& a) {
  auto t = dsv4::parse_dtype(a.dtype);
  if (!t) throw InputError("tensor '" + name + "': unknown dtype '" + a.dtype + "'");
  return *t;
}

// A tensor owning a copy of the bytes the view spans, viewed with the view's strides.
Tensor to_tensor(const std::string& name, const ArrayView& a) {
  const DType t = dtype_of(name, a);
  if (a.shape.size() != a.strides.size())
    throw InputError("tensor '" + name + "': shape and strides differ in rank");
  std::int64_t lo = 0, hi = 0, numel = 1;
  for (std::size_t i = 0; i < a.shape.size(); ++i) {
    if (a.shape[i] < 0) throw InputError("tensor '" + name + "': negative size");
    numel *= a.shape[i];
    if (a.shape[i] > 0) (a.strides[i] >= 0 ? hi : lo) += (a.shape[i] - 1) * a.strides[i];
  }
  if (numel == 0) return Tensor::empty(t, a.shape);
  const std::size_t es = dsv4::element_size(t);
  Tensor storage = Tensor::empty(t, {hi - lo + 1});
  std::memcpy(storage.data(), a.data + lo * static_cast<std::int64_t>(es), static_cast<std::size_t>(hi - lo + 1) * es);
  return storage.as_strided(a.shape, a.strides, -lo);
}

Array to_array(const Tensor& t) {
  Tensor c = t.contiguous();
  Array a{std::string(dsv4::dtype_name(c.dtype())), c.shape(), {}};
  const std::size_t n = static_cast<std::size_t>(c.numel()) * c.element_bytes();
  a.bytes.resize(n);
  if (n) std::memcpy(a.bytes.data(), c.data(), n);
  return a;
}

Json parse_attrs(const std::string& op, const std::string& attrs_json) {
  if (attrs_json.empty()) return Json::object();
  Json j;
  try {
    j = Json::parse(attrs_json);
  } catch (const Json::exception& e) {
    throw InputError(op + ": attrs are not valid JSON (" + e.what() + ")");
  }
  if (!j.is_object()) throw InputError(op + ": attrs must be a JSON object (a dict)");
  return j;
}

// The fixture for these arguments, as bytes and parsed back by `verify`'s reader. The reader's messages name
// kSource ("<python arguments>: invalid fixture: ..."); they are re-worded to name the op instead.
struct Parsed {
  std::vector<std::byte> bytes;
  dsv4::io::Fixture fixture;
};

Parsed parse_arguments(const std::string& op, const ArrayViews& inputs, const ArrayViews& outputs,
                       const std::string& attrs_json, const std::string& source, const std::string& note) {
  dsv4::Registry::instance().get(op);  // an unknown op: InputError listing the known ones
  dsv4::io::Fixture f;
  f.op = op;
  f.attrs = parse_attrs(op, attrs_json);
  if (f.attrs.contains("dtypes"))
    throw InputError(op + ": attrs 'dtypes' must be resolved before the call (dsv4check/_arrays.py does this)");
  f.source = source;
  f.note = note;
  for (auto& [n, a] : inputs) f.inputs[n] = to_tensor(n, a);
  for (auto& [n, a] : outputs) f.outputs[n] = to_tensor("out." + n, a);
  Parsed p;
  p.bytes = dsv4::io::serialize_fixture(f);
  try {
    p.fixture = dsv4::io::parse_fixture(dsv4::io::parse_safetensors(p.bytes, kSource));
  } catch (const InputError& e) {
    std::string msg = e.what();
    const std::string prefix = std::string(kSource) + ": invalid fixture: ";
    if (msg.rfind(prefix, 0) == 0) msg = msg.substr(prefix.size());
    throw InputError(op + ": " + msg);
  }
  return p;
}

Json arg_json(const dsv4::ArgSpec& a) {
  Json dts = Json::array();
  for (DType t : a.dtypes) dts.push_back(std::string(dsv4::dtype_name(t)));
  return {{"name", a.name}, {"dtypes", dts}, {"shape", a.shape}, {"optional", a.optional}, {"note", a.note}};
}

}  // namespace

std::string registry_json() {
  dsv4::cli::ensure_default_policies();
  Json ops = Json::array();
  for (const dsv4::OpDescriptor* d : dsv4::Registry::instance().all()) {
    Json j{{"name", d->name}, {"summary", d->summary}, {"contract", d->contract}};
    j["inputs"] = Json::array();
    for (auto& a : d->inputs) j["inputs"].push_back(arg_json(a));
    j["outputs"] = Json::array();
    for (auto& a : d->outputs) j["outputs"].push_back(arg_json(a));
    j["attrs"] = Json::array();
    for (auto& a : d->attrs)
      j["attrs"].push_back({{"name", a.name}, {"default", a.default_value}, {"doc", a.doc}, {"choices", a.choices},
                            {"optional", a.optional}});
    j["oracle"] = Json::object();
    for (auto& [out, spec] : d->oracle)
      j["oracle"][out] = {{"policy", spec.policy}, {"params", spec.params}, {"rationale", spec.rationale}};
    j["default_shapes"] = d->default_shapes;
    ops.push_back(std::move(j));
  }
  return ops.dump();
}

std::string canonical_dtype(const std::string& spelling) {
  if (auto t = dsv4::io::byte_dtype_from_name(spelling)) return std::string(dsv4::dtype_name(*t));
  if (auto t = dsv4::parse_dtype(spelling)) return std::string(dsv4::dtype_name(*t));
  return {};
}

std::map<std::string, Array> reference(const std::string& op, const ArrayViews& inputs, const std::string& attrs_json) {
  Parsed p = parse_arguments(op, inputs, {}, attrs_json, "", "");
  const dsv4::OpDescriptor& d = dsv4::Registry::instance().get(op);
  dsv4::OpCase c = p.fixture.to_case();
  dsv4::validate_case(d, c);
  if (!d.reference) throw InputError(op + ": no reference implementation registered");
  std::map<std::string, Array> r;
  for (auto& [n, t] : d.reference(c)) r[n] = to_array(t);
  return r;
}

Judgement judge(const std::string& op, const ArrayViews& inputs, const ArrayViews& outputs,
                const std::string& attrs_json, const std::string& name) {
  Parsed p = parse_arguments(op, inputs, outputs, attrs_json, "", "");
  dsv4::cli::FixtureVerdict v = dsv4::cli::judge_fixture(p.fixture);
  Json j = dsv4::oracle::to_json(v.outputs);
  for (std::size_t i = 0; i < v.outputs.outputs.size(); ++i)
    j["outputs"][i]["summary"] = dsv4::oracle::summary_line(v.outputs.outputs[i]);
  return {v.pass(), dsv4::cli::verdict_text(name, p.fixture, v), j.dump()};
}

std::vector<std::byte> fixture_bytes(const std::string& op, const ArrayViews& inputs, const ArrayViews& outputs,
                                     const std::string& attrs_json, const std::string& source,
                                     const std::string& note) {
  return parse_arguments(op, inputs, outputs, attrs_json, source, note).bytes;
}

Case example_case(const std::string& op, std::uint64_t seed, int shape_index) {
  const dsv4::OpDescriptor& d = dsv4::Registry::instance().get(op);
  if (!d.generate) throw InputError(op + ": the registry has no input generator for this op");
  if (shape_index < 0 || static_cast<std::size_t>(shape_index) >= d.default_shapes.size())
    throw InputError(op + ": shape_index " + std::to_string(shape_index) + " out of range (the op has " +
                     std::to_string(d.default_shapes.size()) + " default shapes)");
  std::mt19937_64 rng(seed);
  dsv4::OpCase c = d.generate(rng, d.default_shapes[static_cast<std::size_t>(shape_index)]);
  Case r;
  for (auto& [n, t] : c.inputs)
    if (t.defined()) r.inputs[n] = to_array(t);
  r.attrs_json = c.attrs.dump();
  return r;
}

std::vector<double> decode(const std::string& dtype, const std::vector<std::byte>& bytes) {
  ArrayView v{dtype, {}, {}, bytes.data()};
  const DType t = dtype_of("decode", v);
  const std::size_t es = dsv4::element_size(t);
  if (bytes.size() % es) throw InputError("decode: byte count is not a multiple of the element size");
  v.shape = {static_cast<std::int64_t>(bytes.size() / es)};
  v.strides = {1};
  return to_tensor("decode", v).to_f64();
}

}  // namespace dsv4py
