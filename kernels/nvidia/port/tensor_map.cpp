// Backend-neutral checks of make_tensor_map_2d's requirements (kernels/nvidia/port/tensor_map.hpp), shared by the backends.
#include <string>

#include "kernels/nvidia/port/detail/tensor_map_fields.hpp"

namespace dsv4::port::detail {

void check_tensor_map_2d(const void* base, std::int64_t rows, std::int64_t cols, std::int64_t row_stride_bytes,
                         int box_rows) {
  const std::string what = "make_tensor_map_2d(rows=" + std::to_string(rows) + ", cols=" + std::to_string(cols) +
                           ", row_stride_bytes=" + std::to_string(row_stride_bytes) +
                           ", box_rows=" + std::to_string(box_rows) + "): ";
  if (base == nullptr || reinterpret_cast<std::uintptr_t>(base) % 16 != 0)
    throw Error(what + "base address must be non-null and 16-byte aligned");
  if (rows < 1 || cols < 8 || cols % 8 != 0 || rows > (std::int64_t{1} << 32) || cols > (std::int64_t{1} << 32))
    throw Error(what + "rows must be in 1..2^32 and cols a multiple of 8 in 8..2^32");
  if (row_stride_bytes % 16 != 0 || row_stride_bytes < cols * 2 || row_stride_bytes >= (std::int64_t{1} << 40))
    throw Error(what + "row stride must be a multiple of 16 bytes, >= cols x 2 and < 2^40");
  if (box_rows < 1 || box_rows > 256) throw Error(what + "box rows must be in 1..256");
}

void check_tensor_map_panels(const void* base, std::int64_t rows, std::int64_t cols, std::int64_t row_stride_bytes,
                             int box_rows, int panels) {
  auto refuse = [&](const char* rule) {
    std::string m = "make_tensor_map_panels(rows=";
    m.append(std::to_string(rows)).append(", cols=").append(std::to_string(cols));
    m.append(", box_rows=").append(std::to_string(box_rows)).append(", panels=").append(std::to_string(panels));
    m.append("): ").append(rule);
    throw Error(m);
  };
  if (cols % 64 != 0) refuse("cols must be a multiple of 64 (a panel may not cross a row's end)");
  if (panels < 1 || panels > 8) refuse("panels must be in 1..8");
  check_tensor_map_2d(base, rows, cols, row_stride_bytes, box_rows);
}

}  // namespace dsv4::port::detail
