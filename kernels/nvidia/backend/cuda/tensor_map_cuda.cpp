// cuda backend, sm_90 module: tensor maps (kernels/nvidia/port/tensor_map.hpp) as CUtensorMaps encoded by the
// driver's cuTensorMapEncodeTiled. Errors throw dsv4::port::Error naming the call and the shape.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <cstring>
#include <string>

#include "kernels/nvidia/port/detail/tensor_map_fields.hpp"
#include "kernels/nvidia/port/tensor_map.hpp"

namespace dsv4::port {

namespace {
void check(cudaError_t e, const std::string& call) {
  if (e != cudaSuccess)
    throw Error("cuda: " + call + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

// cuTensorMapEncodeTiled from the driver through the runtime's entry-point query (no -lcuda link), for a bf16/fp16
// tensor of `rank` dimensions (innermost first) with 128-byte swizzle.
TensorMap2d encode_tensor_map(const void* base, cuuint32_t rank, const cuuint64_t* dims, const cuuint64_t* strides,
                              const cuuint32_t* box, std::int64_t rows, std::int64_t cols) {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q{};
    check(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q),
          "cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled)");
    if (q != cudaDriverEntryPointSuccess || !fn) throw Error("cuda: cuTensorMapEncodeTiled is not available");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  CUtensorMap map{};
  const cuuint32_t elem_strides[3] = {1, 1, 1};
  const CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, rank, const_cast<void*>(base), dims, strides, box,
                            elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw Error("cuda: cuTensorMapEncodeTiled (rank " + std::to_string(rank) + ") failed with CUresult " +
                std::to_string(static_cast<int>(r)) + " (rows=" + std::to_string(rows) + ", cols=" +
                std::to_string(cols) + ")");
  static_assert(sizeof(CUtensorMap) == sizeof(TensorMap2d), "TensorMap2d holds one CUtensorMap");
  TensorMap2d m;
  std::memcpy(m.opaque, &map, sizeof map);
  return m;
}
}  // namespace

TensorMap2d make_tensor_map_2d(const void* base, std::int64_t rows, std::int64_t cols, std::int64_t row_stride_bytes,
                               int box_rows) {
  detail::check_tensor_map_2d(base, rows, cols, row_stride_bytes, box_rows);
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(row_stride_bytes)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(kTensorMapBoxCols), static_cast<cuuint32_t>(box_rows)};
  return encode_tensor_map(base, 2, dims, strides, box, rows, cols);
}

// The 3-D view (64 elements, rows, cols / 64 panels): panel p of row r starts at r * row_stride + p * 128 bytes.
TensorMap2d make_tensor_map_panels(const void* base, std::int64_t rows, std::int64_t cols,
                                   std::int64_t row_stride_bytes, int box_rows, int panels) {
  detail::check_tensor_map_panels(base, rows, cols, row_stride_bytes, box_rows, panels);
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(kTensorMapBoxCols), static_cast<cuuint64_t>(rows),
                              static_cast<cuuint64_t>(cols / kTensorMapBoxCols)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(row_stride_bytes), kTensorMapBoxCols * 2};
  const cuuint32_t box[3] = {static_cast<cuuint32_t>(kTensorMapBoxCols), static_cast<cuuint32_t>(box_rows),
                             static_cast<cuuint32_t>(panels)};
  return encode_tensor_map(base, 3, dims, strides, box, rows, cols);
}

}  // namespace dsv4::port
