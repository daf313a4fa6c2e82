// What every cuBLASLt call on one device shares: the library handle, made the first time a product
// is planned for the device and kept until the process exits; and each stream's workspace, since
// calls on different streams may run at once.
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
};

// The device's context, made on first use (loading cuBLASLt). Thread-safe. Throws
// lazy::RuntimeError when cuBLASLt cannot be loaded or the handle not created.
CublasLtContext& cublaslt_context(Device& device);

// The calling thread's stream's workspace (kCublasLtWorkspaceBytes from the device's pool), made
// on its first call; throws OutOfDeviceMemory when it does not fit.
CUdeviceptr cublaslt_workspace(Device& device);

}  // namespace lazy::runtime
