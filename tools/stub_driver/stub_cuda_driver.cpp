// A CUDA driver that does nothing, for profiling lazyfuse's host side (record, sync, replay) with
// callgrind on a machine without a GPU, and for tests of failure paths. Calls succeed (but one
// that can be told to fail, below): memory comes from malloc, copies and memsets are memcpy and
// memset, launches and events do nothing, so results are garbage. Put its directory first on
// LD_LIBRARY_PATH; never ship it. See docs/architecture.md, "Cost of recording".
#include <cuda.h>
#include <cstdlib>
#include <cstring>
extern "C" {
CUresult cuInit(unsigned) {
  return CUDA_SUCCESS;
}
CUresult cuDriverGetVersion(int* v) {
  *v = 13000;
  return CUDA_SUCCESS;
}
CUresult cuGetErrorName(CUresult, const char** s) {
  *s = "fake";
  return CUDA_SUCCESS;
}
CUresult cuGetErrorString(CUresult, const char** s) {
  *s = "fake";
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetCount(int* n) {
  *n = std::getenv("LAZY_STUB_NO_GPU") != nullptr ? 0 : 1;  // a driver on a machine without one
  return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice* d, int) {
  *d = 0;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char* name, int len, CUdevice) {
  std::strncpy(name, "Fake H100", len);
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice) {
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
      *v = 9;
      break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
      *v = 0;
      break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
      *v = 132;
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
      *v = 232448;
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
      *v = 49152;
      break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
      *v = 50 << 20;
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      *v = 1024;
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
      *v = 2048;
      break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
      *v = 32;
      break;
    default:
      *v = 1;
  }
  return CUDA_SUCCESS;
}
CUresult cuDeviceTotalMem(size_t* b, CUdevice) {
  *b = size_t(80) << 30;
  return CUDA_SUCCESS;
}
static int ctx_dummy;
CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice) {
  *c = (CUcontext)&ctx_dummy;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease(CUdevice) {
  return CUDA_SUCCESS;
}
CUresult cuCtxGetCurrent(CUcontext* c) {
  *c = (CUcontext)&ctx_dummy;
  return CUDA_SUCCESS;
}
CUresult cuCtxSetCurrent(CUcontext) {
  return CUDA_SUCCESS;
}
CUresult cuCtxSynchronize() {
  return CUDA_SUCCESS;
}
static int stream_dummy[64];
static int stream_next;
CUresult cuStreamCreate(CUstream* s, unsigned) {
  *s = (CUstream)&stream_dummy[stream_next++ % 64];
  return CUDA_SUCCESS;
}
CUresult cuStreamSynchronize(CUstream) {
  return CUDA_SUCCESS;
}
// LAZY_STUB_FAIL_STREAM_WAIT set: fails, as a lost context would (tests of failure paths).
CUresult cuStreamWaitEvent(CUstream, CUevent, unsigned) {
  return std::getenv("LAZY_STUB_FAIL_STREAM_WAIT") != nullptr ? CUDA_ERROR_LAUNCH_FAILED
                                                              : CUDA_SUCCESS;
}
static int pool_dummy;
CUresult cuMemPoolCreate(CUmemoryPool* p, const CUmemPoolProps*) {
  *p = (CUmemoryPool)&pool_dummy;
  return CUDA_SUCCESS;
}
CUresult cuMemPoolSetAttribute(CUmemoryPool, CUmemPool_attribute, void*) {
  return CUDA_SUCCESS;
}
CUresult cuMemPoolGetAttribute(CUmemoryPool, CUmemPool_attribute, void* value) {
  *static_cast<cuuint64_t*>(value) = 0;
  return CUDA_SUCCESS;
}
CUresult cuMemPoolTrimTo(CUmemoryPool, size_t) {
  return CUDA_SUCCESS;
}
CUresult cuMemAllocFromPoolAsync(CUdeviceptr* p, size_t b, CUmemoryPool, CUstream) {
  *p = (CUdeviceptr)std::malloc(b ? b : 1);
  return CUDA_SUCCESS;
}
CUresult cuMemFreeAsync(CUdeviceptr p, CUstream) {
  std::free((void*)p);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoDAsync(CUdeviceptr d, const void* s, size_t n, CUstream) {
  std::memcpy((void*)d, s, n);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoHAsync(void* d, CUdeviceptr s, size_t n, CUstream) {
  std::memcpy(d, (void*)s, n);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoDAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream) {
  std::memmove((void*)d, (void*)s, n);
  return CUDA_SUCCESS;
}
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream) {
  std::memset((void*)d, v, n);
  return CUDA_SUCCESS;
}
CUresult cuMemHostAlloc(void** p, size_t b, unsigned) {
  *p = std::malloc(b);
  return CUDA_SUCCESS;
}
CUresult cuMemHostGetDevicePointer(CUdeviceptr* d, void* p, unsigned) {
  *d = (CUdeviceptr)p;
  return CUDA_SUCCESS;
}
static int module_dummy, function_dummy;
CUresult cuModuleLoadData(CUmodule* m, const void*) {
  *m = (CUmodule)&module_dummy;
  return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule) {
  return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction* f, CUmodule, const char*) {
  *f = (CUfunction)&function_dummy;
  return CUDA_SUCCESS;
}
CUresult cuFuncGetAttribute(int* v, CUfunction_attribute a, CUfunction) {
  *v = a == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ? 1024 : 32;
  return CUDA_SUCCESS;
}
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                        unsigned, CUstream, void**, void**) {
  return CUDA_SUCCESS;
}
static int event_dummy;
CUresult cuEventCreate(CUevent* e, unsigned) {
  *e = (CUevent)&event_dummy;
  return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent, CUstream) {
  return CUDA_SUCCESS;
}
CUresult cuEventSynchronize(CUevent) {
  return CUDA_SUCCESS;
}
CUresult cuEventElapsedTime(float* ms, CUevent, CUevent) {
  *ms = 0.01f;
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy(CUevent) {
  return CUDA_SUCCESS;
}
static int graph_dummy, exec_dummy;
CUresult cuGraphCreate(CUgraph* g, unsigned) {
  *g = (CUgraph)&graph_dummy;
  return CUDA_SUCCESS;
}
CUresult cuGraphDestroy(CUgraph) {
  return CUDA_SUCCESS;
}
static int node_dummy;
CUresult cuGraphAddKernelNode(CUgraphNode* n, CUgraph, const CUgraphNode*, size_t,
                              const CUDA_KERNEL_NODE_PARAMS*) {
  *n = (CUgraphNode)&node_dummy;
  return CUDA_SUCCESS;
}
CUresult cuGraphAddMemsetNode(CUgraphNode* n, CUgraph, const CUgraphNode*, size_t,
                              const CUDA_MEMSET_NODE_PARAMS*, CUcontext) {
  *n = (CUgraphNode)&node_dummy;
  return CUDA_SUCCESS;
}
CUresult cuGraphInstantiate(CUgraphExec* e, CUgraph, unsigned long long) {
  *e = (CUgraphExec)&exec_dummy;
  return CUDA_SUCCESS;
}
CUresult cuGraphExecDestroy(CUgraphExec) {
  return CUDA_SUCCESS;
}
CUresult cuGraphExecKernelNodeSetParams(CUgraphExec, CUgraphNode, const CUDA_KERNEL_NODE_PARAMS*) {
  return CUDA_SUCCESS;
}
CUresult cuGraphLaunch(CUgraphExec, CUstream) {
  return CUDA_SUCCESS;
}
// NVRTC looks the driver up for its export table; without one it compiles as with no driver.
CUresult cuGetExportTable(const void** table, const CUuuid*) {
  *table = nullptr;
  return CUDA_ERROR_NOT_SUPPORTED;
}
}
