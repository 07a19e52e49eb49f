// DType table; see dtype.hpp.
#include "reference/tensor/dtype.hpp"

namespace dsv4 {

namespace {
struct Row {
  DType t;
  std::string_view name;
  std::size_t size;
};
constexpr Row kRows[] = {
    {DType::F64, "F64", 8},        {DType::F32, "F32", 4},         {DType::F16, "F16", 2},
    {DType::BF16, "BF16", 2},      {DType::I64, "I64", 8},         {DType::I32, "I32", 4},
    {DType::I16, "I16", 2},        {DType::I8, "I8", 1},           {DType::U8, "U8", 1},
    {DType::F8_E4M3FN, "F8_E4M3FN", 1}, {DType::F8_E4M3FNUZ, "F8_E4M3FNUZ", 1},
    {DType::F8_E5M2, "F8_E5M2", 1}, {DType::F8_E5M2FNUZ, "F8_E5M2FNUZ", 1}, {DType::F8_E8M0, "F8_E8M0", 1},
};
}  // namespace

std::size_t element_size(DType t) { return kRows[static_cast<int>(t)].size; }
std::string_view dtype_name(DType t) { return kRows[static_cast<int>(t)].name; }

std::optional<DType> parse_dtype(std::string_view n) {
  for (const Row& r : kRows)
    if (r.name == n) return r.t;
  if (n == "F8_E4M3") return DType::F8_E4M3FN;  // safetensors spelling
  return std::nullopt;
}

bool is_integer(DType t) {
  return t == DType::I64 || t == DType::I32 || t == DType::I16 || t == DType::I8 || t == DType::U8;
}
bool is_floating(DType t) { return !is_integer(t); }

std::optional<formats::Format> format_of(DType t) {
  using formats::Format;
  switch (t) {
    case DType::F16: return Format::fp16;
    case DType::BF16: return Format::bf16;
    case DType::F8_E4M3FN: return Format::e4m3fn;
    case DType::F8_E4M3FNUZ: return Format::e4m3fnuz;
    case DType::F8_E5M2: return Format::e5m2;
    case DType::F8_E5M2FNUZ: return Format::e5m2fnuz;
    case DType::F8_E8M0: return Format::e8m0fnu;
    default: return std::nullopt;
  }
}

}  // namespace dsv4
