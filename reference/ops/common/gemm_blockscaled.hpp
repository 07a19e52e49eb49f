// Dequantization of block-scaled fp8 operands for the GEMM references (fp8_gemm_blockscaled,
// fp8_einsum): value(i, k) = decode(q[i, k]) · scale(i / row_block, k / 128), exact in float64.
// Scale tensors may be F32 (any strides: row_major or mn_major), F8_E8M0 (typed UE8M0, decoded
// exactly: 0x00 = 2^-127, 0xFF = NaN) or I32 packed UE8M0 (4 groups per word, byte j = group 4p+j).
#pragma once
#include <cstdint>
#include <string>

#include "reference/ops/common/gemm_matrix.hpp"
#include "reference/ops/common/gemm_panels.hpp"

namespace dsv4::gemm {

inline constexpr std::int64_t kScaleGroup = 128;

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Checks that `sf` holds scales for ceil(rows/row_block) x ceil(cols/128) blocks (packed: 4 per word)
// and has an admitted dtype; throws InputError naming op/arg. Returns the number of scale rows.
void check_block_scales(const std::string& op, const std::string& arg, const Tensor& sf, std::int64_t rows,
                        std::int64_t cols, std::int64_t row_block);

// decode(q) · scale as a row-major double matrix [rows, cols]; q is 2-D fp8, sf 2-D (see above).
MatD dequantize_blockscaled(const Tensor& q, const Tensor& sf, std::int64_t row_block);

// The same values as a panel source (gemm_panels.hpp): each panel decoded, then scaled per
// (row block, 128-column group) in place. q and sf must outlive the source.
PanelSource blockscaled_rows(const Tensor& q, const Tensor& sf, std::int64_t row_block);

}  // namespace dsv4::gemm
