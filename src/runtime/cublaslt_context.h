// What every cuBLASLt call on one device shares: the library handle and the workspace. Made the
// first time a product is planned for the device, kept until the process exits. Calls share the
// workspace safely because every call is queued on the device's one stream.
#pragma once

#include <cublasLt.h>

#include <cstddef>
#include <memory>

#include "runtime/device.h"

namespace lazy::runtime {

// NVIDIA's recommended cuBLASLt workspace for Hopper (the cuBLAS documentation,
// "cublasSetWorkspace": 32 MiB for sm_90); smaller ones rule out split-K and stream-K algorithms on
// large products.
inline constexpr std::size_t kCublasLtWorkspaceBytes = std::size_t(32) << 20;

struct CublasLtContext {
  cublasLtHandle_t handle = nullptr;
  std::shared_ptr<DeviceBuffer> workspace;  // kCublasLtWorkspaceBytes from the device's pool
};

// The device's context, made on first use (loading cuBLASLt). Thread-safe. Throws
// lazy::RuntimeError when cuBLASLt cannot be loaded or the handle not created, OutOfDeviceMemory
// when the workspace does not fit.
CublasLtContext& cublaslt_context(Device& device);

}  // namespace lazy::runtime
