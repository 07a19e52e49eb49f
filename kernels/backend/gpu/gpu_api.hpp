// The names the shared cuda/hip runtime (runtime_gpu.cpp) is written in: gpuXxx is cudaXxx on the cuda backend and
// hipXxx on the hip backend (the two runtime APIs agree call for call on what it uses), plus the few places where
// the backends differ: the device check and its arch profile, graph instantiation, and the launch (cuda passes the
// programmatic-dependent-launch and cluster attributes; CDNA has neither). Include from runtime_gpu.cpp only.
#pragma once

#include <string>

#include "kernels/port/arch.hpp"
#include "kernels/port/runtime.hpp"

#if defined(DSV4_BACKEND_CUDA)
#include <cuda_runtime.h>

#define DSV4_GPU_PREFIX "cuda"
#define DSV4_GPU_VENDOR "CUDA"
#define gpuDeviceProp cudaDeviceProp
#define gpuDeviceSynchronize cudaDeviceSynchronize
#define gpuErrorNotReady cudaErrorNotReady
#define gpuError_t cudaError_t
#define gpuEventCreate cudaEventCreate
#define gpuEventDestroy cudaEventDestroy
#define gpuEventElapsedTime cudaEventElapsedTime
#define gpuEventQuery cudaEventQuery
#define gpuEventRecord cudaEventRecord
#define gpuEventSynchronize cudaEventSynchronize
#define gpuEvent_t cudaEvent_t
#define gpuFree cudaFree
#define gpuFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
#define gpuFuncAttributes cudaFuncAttributes
#define gpuFuncGetAttributes cudaFuncGetAttributes
#define gpuFuncSetAttribute cudaFuncSetAttribute
#define gpuGetDeviceCount cudaGetDeviceCount
#define gpuGetDeviceProperties cudaGetDeviceProperties
#define gpuGetErrorName cudaGetErrorName
#define gpuGetErrorString cudaGetErrorString
#define gpuGetLastError cudaGetLastError
#define gpuGraphDestroy cudaGraphDestroy
#define gpuGraphExecDestroy cudaGraphExecDestroy
#define gpuGraphExec_t cudaGraphExec_t
#define gpuGraphLaunch cudaGraphLaunch
#define gpuGraph_t cudaGraph_t
#define gpuMalloc cudaMalloc
#define gpuMemcpy cudaMemcpy
#define gpuMemcpyAsync cudaMemcpyAsync
#define gpuMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define gpuMemset cudaMemset
#define gpuMemsetAsync cudaMemsetAsync
#define gpuStreamBeginCapture cudaStreamBeginCapture
#define gpuStreamCaptureModeThreadLocal cudaStreamCaptureModeThreadLocal
#define gpuStreamCaptureStatus cudaStreamCaptureStatus
#define gpuStreamCaptureStatusActive cudaStreamCaptureStatusActive
#define gpuStreamCaptureStatusNone cudaStreamCaptureStatusNone
#define gpuStreamCreateWithFlags cudaStreamCreateWithFlags
#define gpuStreamDestroy cudaStreamDestroy
#define gpuStreamEndCapture cudaStreamEndCapture
#define gpuStreamGetCaptureInfo cudaStreamGetCaptureInfo
#define gpuStreamIsCapturing cudaStreamIsCapturing
#define gpuStreamNonBlocking cudaStreamNonBlocking
#define gpuStreamSynchronize cudaStreamSynchronize
#define gpuStreamWaitEvent cudaStreamWaitEvent
#define gpuStream_t cudaStream_t
#define gpuSuccess cudaSuccess

namespace dsv4::port {

inline constexpr Backend kGpuBackend = Backend::cuda;

// Why device 0 cannot run this build ("" when it can): the cuda backend is built for sm_90.
inline std::string gpu_arch_problem(const cudaDeviceProp& p) {
  if (p.major == 9 && p.minor == 0) return {};
  return "device 0 is sm_" + std::to_string(p.major) + std::to_string(p.minor) + ", the cuda backend is built for sm_90";
}
inline ArchProfile gpu_profile(const cudaDeviceProp& p) {
  ArchProfile a = kSm90;
  a.wave_size = p.warpSize;
  a.lds_bytes_per_block = p.sharedMemPerBlockOptin;
  a.compute_units = p.multiProcessorCount;
  return a;
}
inline cudaError_t gpu_graph_instantiate(cudaGraphExec_t* ge, cudaGraph_t g) { return cudaGraphInstantiate(ge, g, 0); }

struct GpuLaunchResult {
  const char* failed_call = nullptr;  // nullptr: launched
  cudaError_t error = cudaSuccess;
};
// The launch with the attributes cfg asks for: programmatic dependent launch (kernels/port/grid_dependency.hpp) and
// thread-block clusters (kernels/nvidia/port/cluster.hpp).
inline GpuLaunchResult gpu_launch_kernel(const void* kernel, const LaunchConfig& cfg, cudaStream_t s, void** args) {
  const dim3 grid(cfg.grid.x, cfg.grid.y, cfg.grid.z), block(cfg.block.x, cfg.block.y, cfg.block.z);
  cudaLaunchAttribute launch_attr[2]{};
  unsigned n_attr = 0;
  if (cfg.overlap_previous) {
    launch_attr[n_attr].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    launch_attr[n_attr++].val.programmaticStreamSerializationAllowed = 1;
  }
  if (cfg.cluster_blocks > 1) {
    launch_attr[n_attr].id = cudaLaunchAttributeClusterDimension;
    launch_attr[n_attr].val.clusterDim.x = cfg.cluster_blocks;
    launch_attr[n_attr].val.clusterDim.y = 1;
    launch_attr[n_attr++].val.clusterDim.z = 1;
  }
  if (n_attr > 0) {
    cudaLaunchConfig_t lc{};
    lc.gridDim = grid;
    lc.blockDim = block;
    lc.dynamicSmemBytes = cfg.dynamic_lds_bytes;
    lc.stream = s;
    lc.attrs = launch_attr;
    lc.numAttrs = n_attr;
    if (cudaError_t e = cudaLaunchKernelExC(&lc, kernel, args); e != cudaSuccess)
      return {"cudaLaunchKernelExC(programmatic serialization / cluster dimension)", e};
  } else if (cudaError_t e = cudaLaunchKernel(kernel, grid, block, args, cfg.dynamic_lds_bytes, s); e != cudaSuccess) {
    return {"cudaLaunchKernel", e};
  }
  return {};
}

}  // namespace dsv4::port

#elif defined(DSV4_BACKEND_HIP)
#include <hip/hip_runtime.h>

#define DSV4_GPU_PREFIX "hip"
#define DSV4_GPU_VENDOR "HIP"
#define gpuDeviceProp hipDeviceProp_t
#define gpuDeviceSynchronize hipDeviceSynchronize
#define gpuErrorNotReady hipErrorNotReady
#define gpuError_t hipError_t
#define gpuEventCreate hipEventCreate
#define gpuEventDestroy hipEventDestroy
#define gpuEventElapsedTime hipEventElapsedTime
#define gpuEventQuery hipEventQuery
#define gpuEventRecord hipEventRecord
#define gpuEventSynchronize hipEventSynchronize
#define gpuEvent_t hipEvent_t
#define gpuFree hipFree
#define gpuFuncAttributeMaxDynamicSharedMemorySize hipFuncAttributeMaxDynamicSharedMemorySize
#define gpuFuncAttributes hipFuncAttributes
#define gpuFuncGetAttributes hipFuncGetAttributes
#define gpuFuncSetAttribute hipFuncSetAttribute
#define gpuGetDeviceCount hipGetDeviceCount
#define gpuGetDeviceProperties hipGetDeviceProperties
#define gpuGetErrorName hipGetErrorName
#define gpuGetErrorString hipGetErrorString
#define gpuGetLastError hipGetLastError
#define gpuGraphDestroy hipGraphDestroy
#define gpuGraphExecDestroy hipGraphExecDestroy
#define gpuGraphExec_t hipGraphExec_t
#define gpuGraphLaunch hipGraphLaunch
#define gpuGraph_t hipGraph_t
#define gpuMalloc hipMalloc
#define gpuMemcpy hipMemcpy
#define gpuMemcpyAsync hipMemcpyAsync
#define gpuMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuMemcpyHostToDevice hipMemcpyHostToDevice
#define gpuMemset hipMemset
#define gpuMemsetAsync hipMemsetAsync
#define gpuStreamBeginCapture hipStreamBeginCapture
#define gpuStreamCaptureModeThreadLocal hipStreamCaptureModeThreadLocal
#define gpuStreamCaptureStatus hipStreamCaptureStatus
#define gpuStreamCaptureStatusActive hipStreamCaptureStatusActive
#define gpuStreamCaptureStatusNone hipStreamCaptureStatusNone
#define gpuStreamCreateWithFlags hipStreamCreateWithFlags
#define gpuStreamDestroy hipStreamDestroy
#define gpuStreamEndCapture hipStreamEndCapture
#define gpuStreamGetCaptureInfo hipStreamGetCaptureInfo
#define gpuStreamIsCapturing hipStreamIsCapturing
#define gpuStreamNonBlocking hipStreamNonBlocking
#define gpuStreamSynchronize hipStreamSynchronize
#define gpuStreamWaitEvent hipStreamWaitEvent
#define gpuStream_t hipStream_t
#define gpuSuccess hipSuccess

namespace dsv4::port {

inline constexpr Backend kGpuBackend = Backend::hip;

// Why device 0 cannot run this build ("" when it can): the hip backend is built for gfx942 and gfx950.
inline std::string gpu_arch_problem(const hipDeviceProp_t& p) {
  const std::string arch(p.gcnArchName);
  if (arch.rfind("gfx942", 0) == 0 || arch.rfind("gfx950", 0) == 0) return {};
  return "device 0 is " + arch + ", the hip backend is built for gfx942 and gfx950";
}
inline ArchProfile gpu_profile(const hipDeviceProp_t& p) {
  ArchProfile a = std::string(p.gcnArchName).rfind("gfx950", 0) == 0 ? kGfx950 : kGfx942;
  a.compute_units = p.multiProcessorCount;
  return a;
}
inline hipError_t gpu_graph_instantiate(hipGraphExec_t* ge, hipGraph_t g) {
  return hipGraphInstantiate(ge, g, nullptr, nullptr, 0);
}

struct GpuLaunchResult {
  const char* failed_call = nullptr;  // nullptr: launched
  hipError_t error = hipSuccess;
};
// A plain launch: CDNA has no programmatic dependent launch (a plain launch is its conservative equivalent) and no
// clusters (cluster_problem refused any before this).
inline GpuLaunchResult gpu_launch_kernel(const void* kernel, const LaunchConfig& cfg, hipStream_t s, void** args) {
  const dim3 grid(cfg.grid.x, cfg.grid.y, cfg.grid.z), block(cfg.block.x, cfg.block.y, cfg.block.z);
  if (hipError_t e = hipLaunchKernel(kernel, grid, block, args, cfg.dynamic_lds_bytes, s); e != hipSuccess)
    return {"hipLaunchKernel", e};
  return {};
}

}  // namespace dsv4::port

#else
#error "kernels/backend/gpu/gpu_api.hpp is for the cuda and hip backends"
#endif
