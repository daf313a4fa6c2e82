#include "runtime/cublaslt_context.h"

#include <mutex>

#include <absl/container/flat_hash_map.h>

#include "runtime/cublaslt.h"

namespace lazy::runtime {

CublasLtContext& cublaslt_context(Device& device) {
  static std::mutex mutex;
  // Never destroyed, like the devices: buffers and handles may be used until the process exits.
  static auto* contexts = new absl::flat_hash_map<const Device*, std::unique_ptr<CublasLtContext>>;
  std::lock_guard lock(mutex);
  std::unique_ptr<CublasLtContext>& context = (*contexts)[&device];
  if (context != nullptr) return *context;
  const CublasLt& library = cublaslt();
  auto made = std::make_unique<CublasLtContext>();
  // cuBLASLt works in the context current when the handle is made: the device's primary one.
  device.make_current();
  check_cublaslt(library.cublasLtCreate(&made->handle), "cublasLtCreate",
                 "the handle of " + device.description());
  context = std::move(made);
  return *context;
}

CUdeviceptr cublaslt_workspace(Device& device) {
  DeviceStream& stream = device.current_stream();  // only its thread uses it
  if (stream.matmul_workspace == nullptr)
    stream.matmul_workspace = device.allocate(kCublasLtWorkspaceBytes);
  return stream.matmul_workspace->ptr();
}

}  // namespace lazy::runtime
