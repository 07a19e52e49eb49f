// The DLPack ABI structs the binding reads (Debian ships no dlpack.h). Written from the DLPack specification
// (https://dmlc.github.io/dlpack/latest/c_api.html, v1.1): only the layouts and the codes used here. A capsule
// named "dltensor" holds a DLManagedTensor, one named "dltensor_versioned" a DLManagedTensorVersioned (whose
// version.major must be 1 for this layout).
#pragma once
#include <cstdint>

namespace dsv4py::dlpack {

enum DeviceType : std::int32_t { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLROCM = 10, kDLROCMHost = 11,
                                 kDLCUDAManaged = 13 };

enum TypeCode : std::uint8_t {
  kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLBool = 6,
  kDLFloat8_e4m3fn = 10, kDLFloat8_e4m3fnuz = 11, kDLFloat8_e5m2 = 12, kDLFloat8_e5m2fnuz = 13,
  kDLFloat8_e8m0fnu = 14,
};

struct DLDevice {
  std::int32_t device_type;
  std::int32_t device_id;
};

struct DLDataType {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};

struct DLTensor {
  void* data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; null = compact row-major
  std::uint64_t byte_offset;
};

struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};

struct DLPackVersion {
  std::uint32_t major;
  std::uint32_t minor;
};

struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned*);
  std::uint64_t flags;
  DLTensor dl_tensor;
};

}  // namespace dsv4py::dlpack
