// Registry and case validation; see registry.hpp and op_descriptor.hpp.
#include "reference/registry/registry.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace dsv4 {

void register_builtin_ops(Registry& r);  // builtin_ops.cpp

const Tensor& OpCase::in(const std::string& name) const {
  auto it = inputs.find(name);
  if (it == inputs.end() || !it->second.defined()) throw InputError("missing input tensor '" + name + "'");
  return it->second;
}

const ArgSpec* OpDescriptor::find_input(const std::string& n) const {
  for (auto& a : inputs) if (a.name == n) return &a;
  return nullptr;
}
const ArgSpec* OpDescriptor::find_output(const std::string& n) const {
  for (auto& a : outputs) if (a.name == n) return &a;
  return nullptr;
}
const AttrSpec* OpDescriptor::find_attr(const std::string& n) const {
  for (auto& a : attrs) if (a.name == n) return &a;
  return nullptr;
}

namespace {
bool same_json_kind(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) return true;
  return a.type() == b.type();
}
}  // namespace

void validate_case(const OpDescriptor& d, OpCase& c) {
  if (c.attrs.is_null()) c.attrs = Json::object();
  if (!c.attrs.is_object()) throw InputError(d.name + ": attrs must be a JSON object");
  for (auto it = c.attrs.begin(); it != c.attrs.end(); ++it)
    if (!d.find_attr(it.key())) {
      std::string known;
      for (auto& a : d.attrs) known += (known.empty() ? "" : ", ") + a.name;
      throw InputError(fmt::format("{}: unknown attribute '{}' (known: {})", d.name, it.key(), known));
    }
  for (const AttrSpec& a : d.attrs) {
    if (!c.attrs.contains(a.name) || c.attrs[a.name].is_null()) {
      if (!a.default_value.is_null()) c.attrs[a.name] = a.default_value;
      else if (a.optional) c.attrs[a.name] = nullptr;
      else throw InputError(fmt::format("{}: required attribute '{}' is missing", d.name, a.name));
      continue;
    }
    const Json& v = c.attrs[a.name];
    if (!a.default_value.is_null() && !same_json_kind(v, a.default_value))
      throw InputError(fmt::format("{}: attribute '{}' must be of JSON type {}, got {}", d.name, a.name,
                                   a.default_value.type_name(), v.type_name()));
    if (a.default_value.is_number_integer() && v.is_number_float())
      throw InputError(fmt::format("{}: attribute '{}' must be an integer, got {}", d.name, a.name, v.dump()));
    if (!a.choices.empty()) {
      if (!v.is_string() || std::find(a.choices.begin(), a.choices.end(), v.get<std::string>()) == a.choices.end()) {
        std::string opts;
        for (auto& ch : a.choices) opts += (opts.empty() ? "" : ", ") + ch;
        throw InputError(fmt::format("{}: attribute '{}' = {} is not one of: {}", d.name, a.name, v.dump(), opts));
      }
    }
  }
  for (auto& [n, t] : c.inputs)
    if (!d.find_input(n)) throw InputError(fmt::format("{}: unknown input '{}'", d.name, n));
  for (const ArgSpec& a : d.inputs) {
    if (!c.has(a.name)) {
      if (a.optional) continue;
      throw InputError(fmt::format("{}: required input '{}' {} is missing", d.name, a.name, a.shape));
    }
    const Tensor& t = c.inputs.at(a.name);
    if (!a.dtypes.empty() && std::find(a.dtypes.begin(), a.dtypes.end(), t.dtype()) == a.dtypes.end()) {
      std::string ok;
      for (DType x : a.dtypes) ok += (ok.empty() ? "" : ", ") + std::string(dtype_name(x));
      throw InputError(fmt::format("{}: input '{}' has dtype {}, must be one of: {}", d.name, a.name,
                                   dtype_name(t.dtype()), ok));
    }
  }
}

Registry& Registry::instance() {
  static Registry* r = [] {
    auto* reg = new Registry;
    register_builtin_ops(*reg);
    return reg;
  }();
  return *r;
}

void Registry::add(OpDescriptor d) {
  if (find(d.name)) throw std::logic_error("op registered twice: " + d.name);
  ops_.push_back(std::move(d));
}

const OpDescriptor* Registry::find(const std::string& name) const {
  for (auto& d : ops_) if (d.name == name) return &d;
  return nullptr;
}

const OpDescriptor& Registry::get(const std::string& name) const {
  if (auto* d = find(name)) return *d;
  std::string known;
  for (auto& n : names()) known += (known.empty() ? "" : ", ") + n;
  throw InputError(fmt::format("unknown op '{}' (known ops: {})", name, known));
}

OpDescriptor& Registry::mutable_get(const std::string& name) { return const_cast<OpDescriptor&>(get(name)); }

std::vector<const OpDescriptor*> Registry::all() const {
  std::vector<const OpDescriptor*> r;
  for (auto& d : ops_) r.push_back(&d);
  std::sort(r.begin(), r.end(), [](auto* a, auto* b) { return a->name < b->name; });
  return r;
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> r;
  for (auto* d : all()) r.push_back(d->name);
  return r;
}

Outputs run_reference(const std::string& name, OpCase c) {
  const OpDescriptor& d = Registry::instance().get(name);
  validate_case(d, c);
  if (!d.reference) throw InputError(name + ": no reference implementation registered");
  return d.reference(c);
}

}  // namespace dsv4
