// The HIP host API subset the sim implements (hipsim/runtime/host_api.cpp): memory, streams, events, device
// properties from the arch profile, errors, stream capture into graphs and their launch. A finding of the checks makes the next synchronising call (hipMemcpy,
// hipDeviceSynchronize, hipStreamSynchronize, hipEventSynchronize) return hipErrorLaunchFailure and print the report.
#pragma once
#include <cstddef>

#include "hipsim/abi.h"

enum hipError_t {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorInvalidDevicePointer = 17,
  hipErrorInvalidResourceHandle = 400,
  hipErrorIllegalState = 401,
  hipErrorNotReady = 600,
  hipErrorIllegalAddress = 700,
  hipErrorLaunchFailure = 719,
  hipErrorNotSupported = 801,
  hipErrorStreamCaptureUnsupported = 900,
  hipErrorStreamCaptureInvalidated = 901,
  hipErrorStreamCaptureMerge = 902,
  hipErrorStreamCaptureUnmatched = 903,
  hipErrorStreamCaptureUnjoined = 904,
  hipErrorStreamCaptureIsolation = 905,
  hipErrorStreamCaptureImplicit = 906,
  hipErrorUnknown = 999,
};
enum hipMemcpyKind {
  hipMemcpyHostToHost = 0,
  hipMemcpyHostToDevice = 1,
  hipMemcpyDeviceToHost = 2,
  hipMemcpyDeviceToDevice = 3,
  hipMemcpyDefault = 4,
};
struct hipDeviceProp_t {
  char name[256];
  char gcnArchName[256];
  std::size_t totalGlobalMem;
  std::size_t sharedMemPerBlock;
  std::size_t maxSharedMemoryPerMultiProcessor;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int multiProcessorCount;
  int major, minor;
  int clockRate;
  int l2CacheSize;
  int regsPerBlock;
};
#define hipStreamDefault 0x0
#define hipStreamNonBlocking 0x1
#define hipEventDefault 0x0

typedef struct __hipsim_graph* hipGraph_t;
typedef struct __hipsim_graph_exec* hipGraphExec_t;
typedef struct __hipsim_graph_node* hipGraphNode_t;
enum hipStreamCaptureMode { hipStreamCaptureModeGlobal = 0, hipStreamCaptureModeThreadLocal, hipStreamCaptureModeRelaxed };
enum hipStreamCaptureStatus { hipStreamCaptureStatusNone = 0, hipStreamCaptureStatusActive, hipStreamCaptureStatusInvalidated };

extern "C" {
const char* hipGetErrorString(hipError_t e);
const char* hipGetErrorName(hipError_t e);
hipError_t hipGetLastError();
hipError_t hipPeekAtLastError();
hipError_t hipGetDeviceCount(int* n);
hipError_t hipGetDevice(int* d);
hipError_t hipSetDevice(int d);
hipError_t hipGetDeviceProperties(hipDeviceProp_t* p, int device);
hipError_t hipDeviceSynchronize();
hipError_t hipMalloc(void** p, std::size_t bytes);
hipError_t hipFree(void* p);
hipError_t hipMallocAsync(void** p, std::size_t bytes, hipStream_t s);
hipError_t hipFreeAsync(void* p, hipStream_t s);
hipError_t hipMemcpy(void* dst, const void* src, std::size_t bytes, hipMemcpyKind kind);
hipError_t hipMemcpyAsync(void* dst, const void* src, std::size_t bytes, hipMemcpyKind kind, hipStream_t s);
hipError_t hipMemset(void* dst, int value, std::size_t bytes);
hipError_t hipMemsetAsync(void* dst, int value, std::size_t bytes, hipStream_t s);
hipError_t hipStreamCreate(hipStream_t* s);
hipError_t hipStreamCreateWithFlags(hipStream_t* s, unsigned flags);
hipError_t hipStreamDestroy(hipStream_t s);
hipError_t hipStreamSynchronize(hipStream_t s);
hipError_t hipStreamWaitEvent(hipStream_t s, hipEvent_t e, unsigned flags);
hipError_t hipEventCreate(hipEvent_t* e);
hipError_t hipEventCreateWithFlags(hipEvent_t* e, unsigned flags);
hipError_t hipEventDestroy(hipEvent_t e);
hipError_t hipEventRecord(hipEvent_t e, hipStream_t s);
hipError_t hipEventSynchronize(hipEvent_t e);
hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop);
// Stream capture: kernels, hipMemcpyAsync/hipMemsetAsync and event record/wait issued on a capturing stream (or a
// stream that joined the capture by waiting on an event recorded in it) become graph nodes with their dependencies.
hipError_t hipStreamBeginCapture(hipStream_t s, hipStreamCaptureMode mode);
hipError_t hipStreamEndCapture(hipStream_t s, hipGraph_t* graph);
hipError_t hipStreamIsCapturing(hipStream_t s, hipStreamCaptureStatus* status);
hipError_t hipStreamGetCaptureInfo(hipStream_t s, hipStreamCaptureStatus* status, unsigned long long* id);
hipError_t hipGraphInstantiate(hipGraphExec_t* exec, hipGraph_t graph, hipGraphNode_t* error_node, char* log,
                               std::size_t log_bytes);
hipError_t hipGraphInstantiateWithFlags(hipGraphExec_t* exec, hipGraph_t graph, unsigned long long flags);
// Replays the nodes on s as fresh launches, in their captured dependency order (what the race check sees).
hipError_t hipGraphLaunch(hipGraphExec_t exec, hipStream_t s);
hipError_t hipGraphExecDestroy(hipGraphExec_t exec);
hipError_t hipGraphDestroy(hipGraph_t graph);
}
// The flags form of hipGraphInstantiate (as CUDA 12's cudaGraphInstantiate).
inline hipError_t hipGraphInstantiate(hipGraphExec_t* exec, hipGraph_t graph, unsigned long long flags) {
  return hipGraphInstantiateWithFlags(exec, graph, flags);
}
template <class T> inline hipError_t hipMalloc(T** p, std::size_t bytes) { return hipMalloc(reinterpret_cast<void**>(p), bytes); }
