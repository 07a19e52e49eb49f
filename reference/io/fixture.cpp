// Fixture schema on top of the safetensors container; see fixture.hpp for the rules.
#include "reference/io/fixture.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "reference/registry/registry.hpp"

namespace dsv4::io {

namespace {

const char* const kKnownMetadata[] = {"schema", "op", "attrs", "seed", "source", "note", "format", "sim_findings"};

[[noreturn]] void fail(const std::string& source, const std::string& what) {
  throw FixtureError(fmt::format("{}: invalid fixture: {}", source, what));
}

std::string names_of(const std::vector<ArgSpec>& args, const std::string& prefix = "") {
  std::string s;
  for (auto& a : args) s += (s.empty() ? "" : ", ") + prefix + a.name;
  return s.empty() ? "(none)" : s;
}

std::string dtype_list(const std::vector<DType>& ts) {
  std::string s;
  for (DType t : ts) s += (s.empty() ? "" : ", ") + std::string(dtype_name(t));
  return s;
}

bool admits(const ArgSpec& a, DType t) {
  return a.dtypes.empty() || std::find(a.dtypes.begin(), a.dtypes.end(), t) != a.dtypes.end();
}

// The dtype a stored tensor is read as (fixture.hpp, re-typing rules 1-3).
DType resolve_dtype(const std::string& source, const OpDescriptor& d, const Json& attrs,
                    const std::map<std::string, DType>& named, const TensorRecord& r, const ArgSpec& arg) {
  if (auto it = named.find(r.name); it != named.end()) {
    if (r.dtype != DType::U8)
      fail(source, fmt::format("attrs \"dtypes\" re-types tensor '{}', but it is stored as {}; only U8 tensors can be re-typed",
                               r.name, r.dtype_name));
    return it->second;
  }
  if (r.dtype != DType::U8 || admits(arg, DType::U8)) return r.dtype;
  std::vector<DType> one_byte;
  for (DType t : arg.dtypes)
    if (element_size(t) == 1) one_byte.push_back(t);
  if (one_byte.size() == 1) return one_byte.front();
  for (const AttrSpec& a : d.attrs) {  // rule 3: an attribute naming the fp8 format (fp8_dtype, output_fp8_format)
    const Json v = attrs.contains(a.name) ? attrs.at(a.name) : a.default_value;
    if (v.is_string())
      if (auto t = byte_dtype_from_name(v.get<std::string>()); t && admits(arg, *t) && element_size(*t) == 1 &&
                                                               *t != DType::U8 && *t != DType::I8)
        return *t;
  }
  fail(source, fmt::format("tensor '{}' is stored as U8 but '{}' takes {}; name its format in attrs "
                           "\"dtypes\", e.g. {{\"dtypes\": {{\"{}\": \"{}\"}}}}",
                           r.name, arg.name, dtype_list(arg.dtypes), r.name,
                           one_byte.empty() ? "F8_E4M3FNUZ" : std::string(dtype_name(one_byte.back()))));
}

}  // namespace

std::optional<DType> byte_dtype_from_name(const std::string& s) {
  static const std::pair<const char*, DType> kNames[] = {
      {"e4m3fn", DType::F8_E4M3FN}, {"e4m3fnuz", DType::F8_E4M3FNUZ}, {"e5m2", DType::F8_E5M2},
      {"e5m2fnuz", DType::F8_E5M2FNUZ}, {"e8m0", DType::F8_E8M0}, {"e8m0fnu", DType::F8_E8M0}};
  for (auto& [n, t] : kNames)
    if (s == n) return t;
  if (auto t = parse_dtype(s); t && element_size(*t) == 1) return t;
  return std::nullopt;
}

OpCase Fixture::to_case() const {
  OpCase c;
  c.inputs = inputs;
  c.attrs = attrs;
  return c;
}

Fixture parse_fixture(const SafetensorsFile& file) {
  const std::string& src = file.source;
  const auto& md = file.metadata;
  for (const auto& entry : md) {
    const std::string& k = entry.first;
    if (std::find_if(std::begin(kKnownMetadata), std::end(kKnownMetadata), [&k](const char* n) { return k == n; }) ==
        std::end(kKnownMetadata))
      fail(src, fmt::format("unknown metadata key '{}' (known: {})", k, fmt::join(kKnownMetadata, ", ")));
  }

  auto schema = md.find("schema");
  if (schema == md.end()) fail(src, fmt::format("metadata key 'schema' is missing (expected \"{}\")", kFixtureSchema));
  if (schema->second != kFixtureSchema)
    fail(src, fmt::format("metadata 'schema' is \"{}\", this reader understands \"{}\"", schema->second, kFixtureSchema));
  auto op = md.find("op");
  if (op == md.end()) fail(src, "metadata key 'op' is missing (the op's registry name, e.g. \"merge_attn_states\")");

  Fixture f;
  f.op = op->second;
  const OpDescriptor* d = Registry::instance().find(f.op);
  if (!d) {
    std::string known;
    for (auto& n : Registry::instance().names()) known += (known.empty() ? "" : ", ") + n;
    fail(src, fmt::format("metadata 'op': unknown op '{}' (known ops: {})", f.op, known.empty() ? "(none)" : known));
  }

  std::map<std::string, DType> named;  // attrs "dtypes"
  if (auto a = md.find("attrs"); a != md.end()) {
    Json j;
    try {
      j = Json::parse(a->second);
    } catch (const Json::exception& e) {
      fail(src, fmt::format("metadata 'attrs' is not valid JSON ({})", e.what()));
    }
    if (!j.is_object()) fail(src, fmt::format("metadata 'attrs' must be a JSON object, got {}", j.type_name()));
    if (j.contains("dtypes")) {
      const Json& dt = j["dtypes"];
      if (!dt.is_object()) fail(src, fmt::format("attrs 'dtypes' must be an object of tensor name -> dtype, got {}", dt.dump()));
      for (auto it = dt.begin(); it != dt.end(); ++it) {
        std::optional<DType> t = it->is_string() ? byte_dtype_from_name(it->get<std::string>()) : std::nullopt;
        if (!t)
          fail(src, fmt::format("attrs 'dtypes' for tensor '{}': {} is not a one-byte dtype (F8_E4M3FN, F8_E4M3FNUZ, "
                                "F8_E5M2, F8_E5M2FNUZ, F8_E8M0, U8, I8)", it.key(), it->dump()));
        if (!file.find(it.key())) fail(src, fmt::format("attrs 'dtypes' names tensor '{}', which is not in the file", it.key()));
        named[it.key()] = *t;
      }
      j.erase("dtypes");
    }
    f.attrs = std::move(j);
  }
  if (auto s = md.find("seed"); s != md.end()) {
    std::uint64_t v = 0;
    const std::string& t = s->second;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc() || p != t.data() + t.size())
      fail(src, fmt::format("metadata 'seed' must be a decimal unsigned 64-bit integer, got \"{}\"", t));
    f.seed = v;
  }
  if (auto s = md.find("source"); s != md.end()) f.source = s->second;
  if (auto s = md.find("note"); s != md.end()) f.note = s->second;
  if (auto s = md.find("sim_findings"); s != md.end()) {
    try {
      f.sim_findings = Json::parse(s->second);
    } catch (const Json::exception& e) {
      fail(src, fmt::format("metadata 'sim_findings' is not JSON: {}", e.what()));
    }
  }

  for (const TensorRecord& r : file.tensors) {
    const std::string& n = r.name;
    if (n.rfind("out.", 0) == 0 || n.rfind("expected.", 0) == 0) {
      const bool is_out = n[0] == 'o';
      const std::string out = n.substr(is_out ? 4 : 9);
      const ArgSpec* a = d->find_output(out);
      if (!a) fail(src, fmt::format("tensor '{}': '{}' has no output '{}' (outputs: {})", n, f.op, out, names_of(d->outputs)));
      DType t = resolve_dtype(src, *d, f.attrs, named, r, *a);
      if (!admits(*a, t))
        fail(src, fmt::format("tensor '{}' has dtype {}, output '{}' must be one of: {}", n, dtype_name(t), out, dtype_list(a->dtypes)));
      (is_out ? f.outputs : f.expected)[out] = file.tensor(r, t);
      continue;
    }
    const ArgSpec* a = d->find_input(n);
    if (!a)
      fail(src, fmt::format("tensor '{}' is neither an input of '{}' ({}) nor out.<output> / expected.<output> (outputs: {})",
                            n, f.op, names_of(d->inputs), names_of(d->outputs)));
    f.inputs[n] = file.tensor(r, resolve_dtype(src, *d, f.attrs, named, r, *a));
  }
  for (const ArgSpec& a : d->inputs)
    if (!a.optional && !f.inputs.count(a.name))
      fail(src, fmt::format("required input tensor '{}' {} of '{}' is missing", a.name, a.shape, f.op));

  OpCase c = f.to_case();
  try {
    validate_case(*d, c);  // attribute names, JSON types, choices; input dtypes
  } catch (const InputError& e) {
    fail(src, e.what());
  }
  return f;
}

Fixture read_fixture(const std::filesystem::path& path) { return parse_fixture(read_safetensors(path)); }

std::vector<std::byte> serialize_fixture(const Fixture& f) {
  std::vector<std::pair<std::string, Tensor>> tensors;
  Json attrs = f.attrs.is_null() ? Json::object() : f.attrs;
  Json dtypes = Json::object();
  auto add = [&](const std::string& name, const Tensor& t) {
    if (stored_as_u8(t.dtype())) dtypes[name] = std::string(dtype_name(t.dtype()));
    tensors.emplace_back(name, t);
  };
  for (auto& [n, t] : f.inputs) add(n, t);
  for (auto& [n, t] : f.outputs) add("out." + n, t);
  for (auto& [n, t] : f.expected) add("expected." + n, t);
  if (!dtypes.empty()) attrs["dtypes"] = dtypes;
  std::map<std::string, std::string> md{{"schema", kFixtureSchema}, {"op", f.op}, {"attrs", attrs.dump()}};
  if (f.seed) md["seed"] = std::to_string(*f.seed);
  if (!f.source.empty()) md["source"] = f.source;
  if (!f.note.empty()) md["note"] = f.note;
  if (!f.sim_findings.is_null()) md["sim_findings"] = f.sim_findings.dump();
  return serialize_safetensors(md, tensors);
}

void write_fixture(const std::filesystem::path& path, const Fixture& f) { write_file_bytes(path, serialize_fixture(f)); }

}  // namespace dsv4::io
