// sim backend, sm_90 module: tensor maps (kernels/nvidia/port/tensor_map.hpp) hold the checked fields that the bulk
// copy emulation of kernels/nvidia/port/tma.hpp reads back.
#include <cstring>

#include "kernels/nvidia/port/detail/tensor_map_fields.hpp"
#include "kernels/nvidia/port/tensor_map.hpp"

namespace dsv4::port {

TensorMap2d make_tensor_map_2d(const void* base, std::int64_t rows, std::int64_t cols, std::int64_t row_stride_bytes,
                               int box_rows) {
  detail::check_tensor_map_2d(base, rows, cols, row_stride_bytes, box_rows);
  const detail::TensorMapFields f{base, rows, cols, row_stride_bytes, box_rows, 0};
  TensorMap2d m{};
  std::memcpy(m.opaque, &f, sizeof f);
  return m;
}

TensorMap2d make_tensor_map_panels(const void* base, std::int64_t rows, std::int64_t cols,
                                   std::int64_t row_stride_bytes, int box_rows, int panels) {
  detail::check_tensor_map_panels(base, rows, cols, row_stride_bytes, box_rows, panels);
  const detail::TensorMapFields f{base, rows, cols, row_stride_bytes, box_rows, panels};
  TensorMap2d m{};
  std::memcpy(m.opaque, &f, sizeof f);
  return m;
}

}  // namespace dsv4::port
