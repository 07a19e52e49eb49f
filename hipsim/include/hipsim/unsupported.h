// HIP host calls the sim does not implement yet, declared so that a file using one fails to compile with an error
// that names the call, the line and what is missing ("call to deleted function 'hipGraphCreate': hipsim: ..."),
// never an undeclared name or a silent no-op. The types and enums exist so the rest of such a file still parses.
// Rule: a call moves from here to host_api.h only together with its implementation and a test.
#pragma once


#define HIPSIM_UNSUPPORTED(name, what) \
  template <class... A>                \
  hipError_t name(A...) = delete("hipsim: " what " is not supported on the sim yet (docs/bring-your-kernel.md)");

HIPSIM_UNSUPPORTED(hipGraphCreate, "a graph built by hand (stream capture is supported)")
HIPSIM_UNSUPPORTED(hipGraphAddKernelNode, "a graph built by hand (stream capture is supported)")
HIPSIM_UNSUPPORTED(hipGraphAddMemcpyNode, "a graph built by hand (stream capture is supported)")
HIPSIM_UNSUPPORTED(hipGraphAddDependencies, "a graph built by hand (stream capture is supported)")
HIPSIM_UNSUPPORTED(hipGraphExecUpdate, "updating an instantiated graph")
HIPSIM_UNSUPPORTED(hipStreamBeginCaptureToGraph, "capture into an existing graph")
HIPSIM_UNSUPPORTED(hipStreamGetCaptureInfo_v2, "the capture's graph and dependency nodes (hipStreamGetCaptureInfo is supported)")
HIPSIM_UNSUPPORTED(hipStreamUpdateCaptureDependencies, "editing a capture's dependencies")
HIPSIM_UNSUPPORTED(hipMallocManaged, "managed memory")
HIPSIM_UNSUPPORTED(hipHostMalloc, "pinned host memory")
HIPSIM_UNSUPPORTED(hipHostFree, "pinned host memory")
HIPSIM_UNSUPPORTED(hipMemcpyToSymbol, "__constant__ memory")
HIPSIM_UNSUPPORTED(hipMemcpyFromSymbol, "__constant__ memory")
HIPSIM_UNSUPPORTED(hipLaunchCooperativeKernel, "a cooperative launch")
HIPSIM_UNSUPPORTED(hipModuleLoad, "a code object module")
HIPSIM_UNSUPPORTED(hipModuleLaunchKernel, "a code object module")
#undef HIPSIM_UNSUPPORTED
