// Block-scale layouts; see quant_scale_layout.hpp.
#include "reference/ops/common/quant_scale_layout.hpp"

#include <stdexcept>

#include "reference/ops/common/quant_fp8_encode.hpp"

namespace dsv4::quant {

ScaleLayout parse_scale_layout(const std::string& s) {
  if (s == "row_major") return ScaleLayout::row_major;
  if (s == "mn_major") return ScaleLayout::mn_major;
  if (s == "packed_ue8m0") return ScaleLayout::packed_ue8m0;
  throw std::invalid_argument("unknown scale_layout '" + s + "' (row_major, mn_major, packed_ue8m0)");
}

std::int64_t align4(std::int64_t n) { return (n + 3) / 4 * 4; }

Tensor make_scale_tensor(ScaleLayout layout, std::int64_t rows, std::int64_t groups) {
  switch (layout) {
    case ScaleLayout::row_major: {
      Tensor t = Tensor::empty(DType::F32, {rows, groups});
      t.fill_bytes(0);
      return t;
    }
    case ScaleLayout::mn_major: {
      const std::int64_t ld = align4(rows);
      Tensor base = Tensor::empty(DType::F32, {groups, ld});
      base.fill_bytes(0);
      return base.as_strided({rows, groups}, {1, ld}, 0);
    }
    case ScaleLayout::packed_ue8m0: {
      const std::int64_t ld = align4(rows), words = (groups + 3) / 4;
      Tensor base = Tensor::empty(DType::I32, {words, ld});
      base.fill_bytes(0);
      return base.as_strided({rows, words}, {1, ld}, 0);
    }
  }
  throw std::logic_error("make_scale_tensor: bad layout");
}

void store_scale(Tensor& sf, ScaleLayout layout, std::int64_t row, std::int64_t group, double scale) {
  if (layout != ScaleLayout::packed_ue8m0) {
    sf.set({row, group}, scale);
    return;
  }
  const std::uint32_t byte = ue8m0_byte_of_pow2(scale);
  std::uint32_t w = static_cast<std::uint32_t>(sf.code({row, group / 4}));
  const int sh = 8 * static_cast<int>(group % 4);
  w = (w & ~(0xFFu << sh)) | (byte << sh);
  sf.set_code({row, group / 4}, w);
}

std::int64_t scale_groups(const Tensor& sf) {
  return sf.dtype() == DType::I32 ? 4 * sf.size(-1) : sf.size(-1);
}

double scale_at(const Tensor& sf, std::int64_t row, std::int64_t group) {
  if (sf.dtype() == DType::I32) {
    const std::uint32_t w = static_cast<std::uint32_t>(sf.code({row, group / 4}));
    return decode_ue8m0(static_cast<std::uint8_t>(w >> (8 * (group % 4))));
  }
  return sf.get({row, group});  // F32 as stored; F8_E8M0 decoded exactly by the tensor
}

}  // namespace dsv4::quant
