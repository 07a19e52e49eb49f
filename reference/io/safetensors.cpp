// Safetensors container reader and writer; see safetensors.hpp for the format and the rules enforced.
#include "reference/io/safetensors.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace dsv4::io {

static_assert(std::endian::native == std::endian::little, "safetensors data are little-endian");

namespace {

using nlohmann::json;

// The dtype strings accepted on disk and the in-memory dtype each one reads as.
struct DiskDType {
  std::string_view name;
  DType dtype;
};
constexpr DiskDType kDiskDTypes[] = {
    {"F64", DType::F64},   {"F32", DType::F32},         {"F16", DType::F16},         {"BF16", DType::BF16},
    {"I64", DType::I64},   {"I32", DType::I32},         {"I16", DType::I16},         {"I8", DType::I8},
    {"U8", DType::U8},     {"F8_E4M3", DType::F8_E4M3FN}, {"F8_E5M2", DType::F8_E5M2}, {"F8_E8M0", DType::F8_E8M0},
};

std::string supported_list() {
  std::string s;
  for (auto& d : kDiskDTypes) s += (s.empty() ? "" : ", ") + std::string(d.name);
  return s;
}

[[noreturn]] void fail(const std::string& source, const std::string& what) {
  throw SafetensorsError(fmt::format("{}: invalid safetensors file: {}", source, what));
}

// Rejects JSON nested deeper than a fixed bound before handing it to the parser (a valid header has
// depth 3: root, entry, shape array).
void check_nesting(std::string_view text, const std::string& source) {
  constexpr int kMaxDepth = 16;
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') {
      if (++depth > kMaxDepth) fail(source, fmt::format("header JSON is nested deeper than {} levels", kMaxDepth));
    } else if (c == '}' || c == ']') --depth;
  }
}

// Parses the header, rejecting duplicate keys in any object (nlohmann would silently keep the last one).
json parse_header_json(std::string_view text, const std::string& source) {
  check_nesting(text, source);
  std::vector<std::set<std::string>> keys;
  std::string duplicate;
  auto cb = [&](int /*depth*/, json::parse_event_t ev, json& parsed) {
    if (ev == json::parse_event_t::object_start) keys.emplace_back();
    else if (ev == json::parse_event_t::object_end) { if (!keys.empty()) keys.pop_back(); }
    else if (ev == json::parse_event_t::key && !keys.empty() && parsed.is_string()) {
      if (!keys.back().insert(parsed.get<std::string>()).second && duplicate.empty())
        duplicate = parsed.get<std::string>();
    }
    return true;
  };
  json j;
  try {
    j = json::parse(text.begin(), text.end(), cb);
  } catch (const json::exception& e) {
    fail(source, fmt::format("header is not valid JSON ({})", e.what()));
  }
  if (!duplicate.empty()) fail(source, fmt::format("header has the key '{}' twice", duplicate));
  return j;
}

std::uint64_t checked_u64(const json& v, const std::string& source, const std::string& what) {
  if (!v.is_number_unsigned()) fail(source, fmt::format("{} must be a non-negative integer, got {}", what, v.dump()));
  return v.get<std::uint64_t>();
}

TensorRecord parse_entry(const std::string& name, const json& e, const std::string& source) {
  if (name.empty()) fail(source, "a tensor has an empty name");
  const std::string tn = fmt::format("tensor '{}'", name);
  if (!e.is_object()) fail(source, fmt::format("{}: entry must be a JSON object, got {}", tn, e.type_name()));
  for (auto it = e.begin(); it != e.end(); ++it)
    if (it.key() != "dtype" && it.key() != "shape" && it.key() != "data_offsets")
      fail(source, fmt::format("{}: unknown key '{}' (expected dtype, shape, data_offsets)", tn, it.key()));
  for (const char* k : {"dtype", "shape", "data_offsets"})
    if (!e.contains(k)) fail(source, fmt::format("{}: missing key '{}'", tn, k));

  TensorRecord r;
  r.name = name;
  const json& dt = e["dtype"];
  if (!dt.is_string()) fail(source, fmt::format("{}: 'dtype' must be a string, got {}", tn, dt.dump()));
  r.dtype_name = dt.get<std::string>();
  bool known = false;
  for (auto& d : kDiskDTypes)
    if (d.name == r.dtype_name) { r.dtype = d.dtype; known = true; }
  if (!known)
    fail(source, fmt::format("{}: unknown or unsupported dtype '{}' (supported: {})", tn, r.dtype_name, supported_list()));

  const json& sh = e["shape"];
  if (!sh.is_array()) fail(source, fmt::format("{}: 'shape' must be an array, got {}", tn, sh.dump()));
  std::uint64_t numel = 1, nonzero_product = 1;  // the latter bounds the strides a Tensor derives
  bool overflow = false;
  for (std::size_t i = 0; i < sh.size(); ++i) {
    std::uint64_t d = checked_u64(sh[i], source, fmt::format("{}: shape[{}]", tn, i));
    if (d > static_cast<std::uint64_t>(INT64_MAX)) fail(source, fmt::format("{}: shape[{}] = {} is too large", tn, i, d));
    r.shape.push_back(static_cast<std::int64_t>(d));
    overflow = overflow || __builtin_mul_overflow(numel, d, &numel);
    if (d != 0 && (__builtin_mul_overflow(nonzero_product, d, &nonzero_product) ||
                   nonzero_product > static_cast<std::uint64_t>(INT64_MAX)))
      fail(source, fmt::format("{}: shape {} is too large", tn, sh.dump()));
  }
  const json& off = e["data_offsets"];
  if (!off.is_array() || off.size() != 2)
    fail(source, fmt::format("{}: 'data_offsets' must be an array [begin, end], got {}", tn, off.dump()));
  r.begin = checked_u64(off[0], source, tn + ": data_offsets[0]");
  r.end = checked_u64(off[1], source, tn + ": data_offsets[1]");
  if (r.end < r.begin) fail(source, fmt::format("{}: data_offsets [{}, {}] end before begin", tn, r.begin, r.end));

  std::uint64_t bytes = 0;
  overflow = overflow || __builtin_mul_overflow(numel, static_cast<std::uint64_t>(element_size(r.dtype)), &bytes);
  if (overflow || bytes != r.end - r.begin)
    fail(source, fmt::format("{}: dtype {} x shape {} = {} bytes, but data_offsets [{}, {}] span {} bytes", tn,
                             r.dtype_name, shape_str(r.shape), overflow ? std::string("(overflow)") : std::to_string(bytes),
                             r.begin, r.end, r.end - r.begin));
  return r;
}

}  // namespace

const TensorRecord* SafetensorsFile::find(const std::string& name) const {
  for (auto& r : tensors) if (r.name == name) return &r;
  return nullptr;
}

Tensor SafetensorsFile::tensor(const TensorRecord& r, DType as) const {
  if (element_size(as) != element_size(r.dtype))
    throw SafetensorsError(fmt::format("{}: tensor '{}' is stored as {} and cannot be read as {} (element sizes differ)",
                                       source, r.name, r.dtype_name, dtype_name(as)));
  Tensor t = Tensor::empty(as, r.shape);
  if (r.end > r.begin) std::memcpy(t.data(), bytes.data() + data_start + r.begin, r.end - r.begin);
  return t;
}

SafetensorsFile parse_safetensors(std::vector<std::byte> bytes, const std::string& source) {
  SafetensorsFile f;
  f.source = source;
  const std::uint64_t size = bytes.size();
  if (size < 8) fail(source, fmt::format("truncated: the file is {} bytes, shorter than the 8-byte header length", size));
  std::uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  if (n > kMaxHeaderBytes) fail(source, fmt::format("header length {} exceeds the limit of {} bytes", n, kMaxHeaderBytes));
  if (n > size - 8)
    fail(source, fmt::format("truncated: header length {} exceeds the {} bytes after the length field", n, size - 8));
  if (n < 2) fail(source, fmt::format("header length {} is too short for a JSON object", n));
  std::string_view text(reinterpret_cast<const char*>(bytes.data()) + 8, n);
  if (text.front() != '{') fail(source, "header does not start with '{' (not a JSON object)");
  json h = parse_header_json(text, source);
  if (!h.is_object()) fail(source, fmt::format("header must be a JSON object, got {}", h.type_name()));

  const std::uint64_t data_size = size - 8 - n;
  for (auto it = h.begin(); it != h.end(); ++it) {
    if (it.key() == "__metadata__") {
      if (!it->is_object()) fail(source, fmt::format("'__metadata__' must be an object of strings, got {}", it->type_name()));
      for (auto m = it->begin(); m != it->end(); ++m) {
        if (!m->is_string())
          fail(source, fmt::format("metadata key '{}' must have a string value, got {}", m.key(), m->dump()));
        f.metadata[m.key()] = m->get<std::string>();
      }
      continue;
    }
    TensorRecord r = parse_entry(it.key(), *it, source);
    if (r.end > data_size)
      fail(source, fmt::format("tensor '{}': data_offsets [{}, {}] lie outside the {}-byte data buffer", r.name, r.begin,
                               r.end, data_size));
    f.tensors.push_back(std::move(r));
  }

  std::sort(f.tensors.begin(), f.tensors.end(),
            [](const TensorRecord& a, const TensorRecord& b) { return std::tie(a.begin, a.end) < std::tie(b.begin, b.end); });
  std::uint64_t expected = 0;
  const TensorRecord* prev = nullptr;
  for (const TensorRecord& r : f.tensors) {
    if (r.begin < expected)
      fail(source, fmt::format("tensor '{}': data_offsets [{}, {}] overlap tensor '{}' [{}, {}]", r.name, r.begin, r.end,
                               prev->name, prev->begin, prev->end));
    if (r.begin > expected)
      fail(source, fmt::format("tensor '{}': data_offsets begin at {}, leaving bytes [{}, {}) of the data buffer unused",
                               r.name, r.begin, expected, r.begin));
    expected = r.end;
    prev = &r;
  }
  if (expected != data_size)
    fail(source, fmt::format("the data buffer has {} bytes but the tensors cover only [0, {})", data_size, expected));

  f.data_start = 8 + n;
  f.bytes = std::move(bytes);
  return f;
}

std::vector<std::byte> read_file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SafetensorsError(fmt::format("{}: cannot open file", path.string()));
  in.seekg(0, std::ios::end);
  const std::streamoff len = in.tellg();
  if (len < 0) throw SafetensorsError(fmt::format("{}: cannot read file size", path.string()));
  in.seekg(0);
  std::vector<std::byte> bytes(static_cast<std::size_t>(len));
  if (len > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), len))
    throw SafetensorsError(fmt::format("{}: read error", path.string()));
  return bytes;
}

void write_file_bytes(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw SafetensorsError(fmt::format("{}: cannot create file", path.string()));
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw SafetensorsError(fmt::format("{}: write error", path.string()));
}

SafetensorsFile read_safetensors(const std::filesystem::path& path) {
  return parse_safetensors(read_file_bytes(path), path.string());
}

bool stored_as_u8(DType t) {
  return t == DType::F8_E4M3FNUZ || t == DType::F8_E5M2FNUZ || t == DType::F8_E8M0;
}

std::string storage_dtype_name(DType t) {
  if (t == DType::F8_E4M3FN) return "F8_E4M3";
  if (stored_as_u8(t)) return "U8";
  return std::string(dtype_name(t));
}

std::vector<std::byte> serialize_safetensors(const std::map<std::string, std::string>& metadata,
                                             const std::vector<std::pair<std::string, Tensor>>& tensors) {
  nlohmann::ordered_json h = nlohmann::ordered_json::object();
  if (!metadata.empty()) {
    nlohmann::ordered_json m = nlohmann::ordered_json::object();
    for (auto& [k, v] : metadata) m[k] = v;
    h["__metadata__"] = m;
  }
  std::set<std::string> seen;
  std::vector<Tensor> contiguous;
  std::uint64_t offset = 0;
  for (auto& [name, t] : tensors) {
    if (name.empty() || name == "__metadata__")
      throw SafetensorsError(fmt::format("cannot write a tensor named '{}'", name));
    if (!seen.insert(name).second) throw SafetensorsError(fmt::format("cannot write tensor '{}' twice", name));
    if (!t.defined()) throw SafetensorsError(fmt::format("tensor '{}' is undefined", name));
    Tensor c = t.contiguous();
    const std::uint64_t n = static_cast<std::uint64_t>(c.numel()) * c.element_bytes();
    h[name] = {{"dtype", storage_dtype_name(c.dtype())}, {"shape", c.shape()}, {"data_offsets", {offset, offset + n}}};
    offset += n;
    contiguous.push_back(std::move(c));
  }
  std::string text = h.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::vector<std::byte> out(8 + text.size() + offset);
  const std::uint64_t n = text.size();
  std::memcpy(out.data(), &n, 8);
  std::memcpy(out.data() + 8, text.data(), text.size());
  std::byte* p = out.data() + 8 + text.size();
  for (const Tensor& c : contiguous) {
    const std::size_t len = static_cast<std::size_t>(c.numel()) * c.element_bytes();
    if (len) std::memcpy(p, c.data(), len);
    p += len;
  }
  return out;
}

void write_safetensors(const std::filesystem::path& path, const std::map<std::string, std::string>& metadata,
                       const std::vector<std::pair<std::string, Tensor>>& tensors) {
  write_file_bytes(path, serialize_safetensors(metadata, tensors));
}

}  // namespace dsv4::io
