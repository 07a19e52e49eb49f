// Tests of reference/io/safetensors: byte-exact agreement with the format Python's safetensors writes,
// round trips for every dtype, and a clear SafetensorsError (naming the tensor or key) for every kind of
// malformed file.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include <nlohmann/json.hpp>

#include "reference/io/safetensors.hpp"
#include "tests/support/seed.hpp"

namespace dsv4::io {
namespace {

std::vector<std::byte> bytes_of(const std::string& s) {
  std::vector<std::byte> b(s.size());
  std::memcpy(b.data(), s.data(), s.size());
  return b;
}

// A file image built by hand per the format spec: 8-byte little-endian header length, the header, the data.
std::vector<std::byte> image(const std::string& header, const std::vector<std::uint8_t>& data, bool pad = true) {
  std::string h = header;
  if (pad) h.append((8 - h.size() % 8) % 8, ' ');
  std::vector<std::byte> out(8 + h.size() + data.size());
  const std::uint64_t n = h.size();
  for (int i = 0; i < 8; ++i) out[i] = std::byte((n >> (8 * i)) & 0xFF);
  std::memcpy(out.data() + 8, h.data(), h.size());
  for (std::size_t i = 0; i < data.size(); ++i) out[8 + h.size() + i] = std::byte(data[i]);
  return out;
}

// Expects parse to fail with a SafetensorsError whose message contains every fragment.
void expect_invalid(const std::vector<std::byte>& file, std::initializer_list<std::string> fragments) {
  try {
    parse_safetensors(file, "case.safetensors");
    FAIL() << "accepted an invalid file; expected an error containing '" << *fragments.begin() << "'";
  } catch (const SafetensorsError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("case.safetensors"), std::string::npos) << msg;
    for (auto& f : fragments) EXPECT_NE(msg.find(f), std::string::npos) << "missing '" << f << "' in: " << msg;
  }
}

const std::string kOneF32 = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
const std::vector<std::uint8_t> kTwoFloats = {0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0xC0};  // 1.0f, -2.0f

TEST(SafetensorsFormat, ReadsAHandBuiltPythonStyleImage) {
  // What safetensors.torch.save_file({"b": int16 [3], "a": float32 [2]}, f, metadata={"op": "x"}) writes:
  // compact JSON, "__metadata__" first, header padded with spaces to a multiple of 8.
  const std::string header =
      R"({"__metadata__":{"op":"x"},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
      R"("b":{"dtype":"I16","shape":[3],"data_offsets":[8,14]}})";
  std::vector<std::uint8_t> data = kTwoFloats;
  for (std::uint8_t v : {0x05, 0x00, 0xFF, 0xFF, 0x00, 0x80}) data.push_back(v);  // 5, -1, -32768
  auto file = image(header, data);
  ASSERT_EQ((file.size() - 8 - data.size()) % 8, 0u);
  SafetensorsFile f = parse_safetensors(file);
  EXPECT_EQ(f.metadata.at("op"), "x");
  ASSERT_EQ(f.tensors.size(), 2u);
  Tensor a = f.tensor(*f.find("a"));
  EXPECT_EQ(a.dtype(), DType::F32);
  EXPECT_EQ(a.shape(), (Shape{2}));
  EXPECT_EQ(a.get({0}), 1.0);
  EXPECT_EQ(a.get({1}), -2.0);
  Tensor b = f.tensor(*f.find("b"));
  EXPECT_EQ(b.get({0}), 5);
  EXPECT_EQ(b.get({1}), -1);
  EXPECT_EQ(b.get({2}), -32768);
}

TEST(SafetensorsFormat, WriterProducesTheLayoutPythonReads) {
  Tensor a = Tensor::from_f64(DType::F32, {2}, {1.0, -2.0});
  Tensor s = Tensor::from_f64(DType::I64, {}, {7});  // rank 0
  auto file = serialize_safetensors({{"k", "v"}}, {{"a", a}, {"s", s}});
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= std::uint64_t(std::to_integer<std::uint8_t>(file[i])) << (8 * i);
  ASSERT_EQ(n % 8, 0u) << "header must be padded to 8-byte alignment";
  ASSERT_EQ(file.size(), 8 + n + 8 + 8);
  std::string header(reinterpret_cast<const char*>(file.data()) + 8, n);
  EXPECT_EQ(header.front(), '{');
  const std::size_t last = header.find_last_not_of(' ');
  EXPECT_EQ(header[last], '}');
  auto j = nlohmann::json::parse(header);  // independent parse of the header
  EXPECT_EQ(j["__metadata__"]["k"], "v");
  EXPECT_EQ(j["a"]["dtype"], "F32");
  EXPECT_EQ(j["a"]["shape"], nlohmann::json::array({2}));
  EXPECT_EQ(j["a"]["data_offsets"], nlohmann::json::array({0, 8}));
  EXPECT_EQ(j["s"]["shape"], nlohmann::json::array());
  EXPECT_EQ(j["s"]["data_offsets"], nlohmann::json::array({8, 16}));
  const std::byte* data = file.data() + 8 + n;
  float f0, f1;
  std::int64_t s0;
  std::memcpy(&f0, data, 4);
  std::memcpy(&f1, data + 4, 4);
  std::memcpy(&s0, data + 8, 8);
  EXPECT_EQ(f0, 1.0f);
  EXPECT_EQ(f1, -2.0f);
  EXPECT_EQ(s0, 7);
}

TEST(SafetensorsFormat, StorageNamesMatchSafetensors) {
  EXPECT_EQ(storage_dtype_name(DType::F8_E4M3FN), "F8_E4M3");
  EXPECT_EQ(storage_dtype_name(DType::F8_E5M2), "F8_E5M2");
  EXPECT_EQ(storage_dtype_name(DType::BF16), "BF16");
  EXPECT_EQ(storage_dtype_name(DType::F8_E4M3FNUZ), "U8");
  EXPECT_EQ(storage_dtype_name(DType::F8_E5M2FNUZ), "U8");
  EXPECT_EQ(storage_dtype_name(DType::F8_E8M0), "U8");
}

TEST(SafetensorsRoundTrip, EveryDtypeKeepsShapeAndBits) {
  auto rng = test::rng_for_current_test();
  const DType all[] = {DType::F64, DType::F32, DType::F16, DType::BF16, DType::I64, DType::I32, DType::I16,
                       DType::I8,  DType::U8,  DType::F8_E4M3FN, DType::F8_E5M2};
  std::vector<std::pair<std::string, Tensor>> tensors;
  std::map<std::string, std::vector<std::uint64_t>> codes;
  for (DType t : all) {
    Tensor x = Tensor::empty(t, {3, 5});
    const std::uint64_t mask = element_size(t) == 8 ? ~0ull : (1ull << (8 * element_size(t))) - 1;
    for (std::int64_t i = 0; i < x.numel(); ++i) x.set_code_linear(i, rng() & mask);
    Tensor view = x.transpose(0, 1);  // non-contiguous: written as its logical contiguous order
    const std::string name = "t_" + std::string(dtype_name(t));
    codes[name] = view.to_codes();
    tensors.emplace_back(name, view);
  }
  tensors.emplace_back("empty", Tensor::empty(DType::F32, {0, 4}));
  auto file = serialize_safetensors({{"schema", "x"}}, tensors);
  SafetensorsFile f = parse_safetensors(file);
  for (DType t : all) {
    const std::string name = "t_" + std::string(dtype_name(t));
    const TensorRecord* r = f.find(name);
    ASSERT_NE(r, nullptr) << name;
    Tensor back = f.tensor(*r);
    EXPECT_EQ(back.dtype(), t) << name;
    EXPECT_EQ(back.shape(), (Shape{5, 3})) << name;
    EXPECT_EQ(back.to_codes(), codes[name]) << name;
  }
  EXPECT_EQ(f.tensor(*f.find("empty")).shape(), (Shape{0, 4}));
}

TEST(SafetensorsRoundTrip, FileOnDisk) {
  auto path = std::filesystem::temp_directory_path() / ("dsv4_st_" + std::to_string(test::test_seed("disk")) + ".safetensors");
  Tensor a = Tensor::from_f64(DType::BF16, {2, 2}, {1.5, -3.0, 0.25, 1024});
  write_safetensors(path, {}, {{"a", a}});
  SafetensorsFile f = read_safetensors(path);
  EXPECT_TRUE(f.metadata.empty());
  EXPECT_EQ(f.tensor(*f.find("a")).to_f64(), (std::vector<double>{1.5, -3.0, 0.25, 1024}));
  std::filesystem::remove(path);
  EXPECT_THROW(read_safetensors(path), SafetensorsError);
}

TEST(SafetensorsInvalid, Truncated) {
  expect_invalid(bytes_of("abc"), {"truncated", "8-byte"});
  auto good = image(kOneF32, kTwoFloats);
  good.resize(good.size() - 3);  // cut inside the data
  expect_invalid(good, {"tensor 'a'", "outside"});
}

TEST(SafetensorsInvalid, HeaderLengthBeyondFileOrLimit) {
  auto f = image(kOneF32, kTwoFloats);
  const std::uint64_t too_big = f.size();
  std::memcpy(f.data(), &too_big, 8);
  expect_invalid(f, {"header length", "exceeds"});
  const std::uint64_t huge = 1ull << 40;
  std::memcpy(f.data(), &huge, 8);
  expect_invalid(f, {"header length", "limit"});
}

TEST(SafetensorsInvalid, HeaderNotJsonOrNotObject) {
  expect_invalid(image("{\"a\": nope}", {}), {"not valid JSON"});
  expect_invalid(image("[1, 2]", {}), {"'{'"});
  expect_invalid(image("{\"a\":{\"dtype\":\"F32\"", {}), {"not valid JSON"});
  std::string deep = "{\"a\":" + std::string(40, '[') + std::string(40, ']') + "}";
  expect_invalid(image(deep, {}), {"nested"});
}

TEST(SafetensorsInvalid, OverlappingOffsets) {
  const std::string h = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})";
  expect_invalid(image(h, kTwoFloats), {"tensor 'b'", "overlap", "'a'"});
}

TEST(SafetensorsInvalid, OffsetsOutsideFileGapsAndTrailingBytes) {
  const std::string out = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})";
  expect_invalid(image(out, kTwoFloats), {"tensor 'a'", "outside"});
  const std::string gap = R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})";
  expect_invalid(image(gap, kTwoFloats), {"tensor 'a'", "unused"});
  const std::string trailing = R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  expect_invalid(image(trailing, kTwoFloats), {"cover only"});
  const std::string reversed = R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}})";
  expect_invalid(image(reversed, kTwoFloats), {"tensor 'a'", "end before begin"});
}

TEST(SafetensorsInvalid, DtypeTimesShapeIsNotByteSize) {
  const std::string h = R"({"a":{"dtype":"F64","shape":[2],"data_offsets":[0,8]}})";
  expect_invalid(image(h, kTwoFloats), {"tensor 'a'", "F64", "16 bytes", "8 bytes"});
  const std::string overflow = R"({"a":{"dtype":"F32","shape":[4294967296,4294967296,2],"data_offsets":[0,8]}})";
  expect_invalid(image(overflow, kTwoFloats), {"tensor 'a'"});
}

TEST(SafetensorsInvalid, UnknownDtypeAndBadFields) {
  expect_invalid(image(R"({"a":{"dtype":"BOOL","shape":[8],"data_offsets":[0,8]}})", kTwoFloats), {"tensor 'a'", "BOOL", "supported"});
  expect_invalid(image(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", kTwoFloats), {"tensor 'a'", "shape[0]"});
  expect_invalid(image(R"({"a":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})", kTwoFloats), {"tensor 'a'", "shape[0]"});
  expect_invalid(image(R"({"a":{"dtype":"F32","shape":[2]}})", kTwoFloats), {"tensor 'a'", "data_offsets"});
  expect_invalid(image(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":1}})", kTwoFloats), {"tensor 'a'", "'x'"});
  expect_invalid(image(R"({"a":7})", {}), {"tensor 'a'", "object"});
  expect_invalid(image(R"({"__metadata__":{"op":3},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", kTwoFloats),
                 {"'op'", "string"});
  expect_invalid(image(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", kTwoFloats),
                 {"'a'", "twice"});
}

TEST(SafetensorsInvalid, WriterRejectsBadNames) {
  Tensor a = Tensor::from_f64(DType::F32, {1}, {1.0});
  EXPECT_THROW(serialize_safetensors({}, {{"a", a}, {"a", a}}), SafetensorsError);
  EXPECT_THROW(serialize_safetensors({}, {{"__metadata__", a}}), SafetensorsError);
  EXPECT_THROW(serialize_safetensors({}, {{"", a}}), SafetensorsError);
}

// Every prefix and a spread of single-byte corruptions of a valid file either parse or throw
// SafetensorsError: nothing else escapes (the libFuzzer target explores this further).
TEST(SafetensorsInvalid, CorruptionsNeverEscapeAsOtherErrors) {
  auto rng = test::rng_for_current_test();
  Tensor a = Tensor::from_f64(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = Tensor::from_f64(DType::I8, {5}, {1, -2, 3, -4, 5});
  auto good = serialize_safetensors({{"op", "x"}}, {{"a", a}, {"b", b}});
  int rejected = 0;
  for (std::size_t len = 0; len < good.size(); ++len) {
    std::vector<std::byte> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(len));
    try { parse_safetensors(cut); } catch (const SafetensorsError&) { ++rejected; }
  }
  EXPECT_EQ(rejected, static_cast<int>(good.size())) << "every strict prefix is invalid";
  for (int i = 0; i < 2000; ++i) {
    auto bad = good;
    bad[rng() % bad.size()] = std::byte(rng() & 0xFF);
    try { parse_safetensors(bad); } catch (const SafetensorsError&) {}
  }
}

}  // namespace
}  // namespace dsv4::io
