// The CUDA Driver API, opened with dlopen so that lazyfuse links and runs without a driver.
// <cuda.h> supplies the types and prototypes only; nothing links against libcuda.
#pragma once

#include <cuda.h>

#include <source_location>
#include <string>
#include <string_view>

#include "runtime/cuda_driver_status.h"

namespace lazy::runtime {

// Every driver function lazyfuse calls. The names pass through <cuda.h>'s macros before they
// are declared or looked up, so a member and its symbol both carry the header's version suffix
// (cuMemcpyHtoDAsync is the member and the symbol cuMemcpyHtoDAsync_v2).
#define LAZY_CUDA_DRIVER_FUNCTIONS(X) \
  X(cuInit)                           \
  X(cuDriverGetVersion)               \
  X(cuGetErrorName)                   \
  X(cuGetErrorString)                 \
  X(cuDeviceGetCount)                 \
  X(cuDeviceGet)                      \
  X(cuDeviceGetName)                  \
  X(cuDeviceGetAttribute)             \
  X(cuDeviceTotalMem)                 \
  X(cuDevicePrimaryCtxRetain)         \
  X(cuDevicePrimaryCtxRelease)        \
  X(cuCtxGetCurrent)                  \
  X(cuCtxSetCurrent)                  \
  X(cuCtxSynchronize)                 \
  X(cuStreamCreate)                   \
  X(cuStreamSynchronize)              \
  X(cuStreamWaitEvent)                \
  X(cuMemPoolCreate)                  \
  X(cuMemPoolSetAttribute)            \
  X(cuMemAllocFromPoolAsync)          \
  X(cuMemPoolGetAttribute)            \
  X(cuMemPoolTrimTo)                  \
  X(cuMemFreeAsync)                   \
  X(cuMemcpyHtoDAsync)                \
  X(cuMemcpyDtoHAsync)                \
  X(cuMemcpyDtoDAsync)                \
  X(cuMemsetD8Async)                  \
  X(cuMemHostAlloc)                   \
  X(cuMemHostGetDevicePointer)        \
  X(cuModuleLoadData)                 \
  X(cuModuleUnload)                   \
  X(cuModuleGetFunction)              \
  X(cuFuncGetAttribute)               \
  X(cuLaunchKernel)                   \
  X(cuEventCreate)                    \
  X(cuEventRecord)                    \
  X(cuEventSynchronize)               \
  X(cuEventElapsedTime)               \
  X(cuEventDestroy)                   \
  X(cuGraphCreate)                    \
  X(cuGraphDestroy)                   \
  X(cuGraphAddKernelNode)             \
  X(cuGraphAddMemsetNode)             \
  X(cuGraphInstantiate)               \
  X(cuGraphExecDestroy)               \
  X(cuGraphExecKernelNodeSetParams)   \
  X(cuGraphLaunch)

#define LAZY_CUDA_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;

struct CudaDriver {
  LAZY_CUDA_DRIVER_FUNCTIONS(LAZY_CUDA_DRIVER_MEMBER)
};

#undef LAZY_CUDA_DRIVER_MEMBER

// The driver's function table, loaded and cuInit-ed on first use; nullptr when unusable (see
// why_no_cuda_driver()). Never unloaded: buffers may be freed until the process exits.
const CudaDriver* cuda_driver();

// Errors after which the context runs nothing more: a kernel faulted (an illegal address, a
// trap, ...) or the GPU failed. The driver's documentation: "the process must be terminated and
// relaunched". Every later call returns the same error.
bool is_sticky_cuda_error(CUresult result);
// <cuda.h>'s name of a sticky error ("CUDA_ERROR_ILLEGAL_ADDRESS"); empty for any other.
std::string_view sticky_cuda_error_name(CUresult result);

// The error's name: the driver's when it is loaded, else <cuda.h>'s for the sticky errors,
// else "CUresult N".
std::string cuda_error_name(CUresult result);

// "<name> (<the driver's description>)"; the name alone without a driver.
std::string cuda_error_text(CUresult result);

// "<what> failed: <name> (<the driver's description>)".
std::string describe_cuda_error(CUresult result, std::string_view what);

[[noreturn]] void throw_cuda_error(CUresult result, std::string_view what,
                                   std::source_location where);

// Throws lazy::RuntimeError naming `what` and the driver's error name and description.
inline void check_cuda(CUresult result, std::string_view what,
                       std::source_location where = std::source_location::current()) {
  if (result != CUDA_SUCCESS) [[unlikely]] {
    throw_cuda_error(result, what, where);
  }
}

}  // namespace lazy::runtime
