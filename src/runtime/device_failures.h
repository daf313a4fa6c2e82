// A failed driver call as the error the user sees. Most failures belong to the call that
// returned them. A sticky error (a kernel that faulted) loses the whole context instead, and CUDA
// returns it from whatever call comes next, often an unrelated allocation: so it is blamed on
// the kernels launched since the last successful synchronization, reported once in full, and
// every later use of the device throws a short error that repeats the culprit.
#pragma once

#include <cuda.h>

#include <atomic>
#include <mutex>
#include <source_location>
#include <string>
#include <string_view>

#include "runtime/launch_log.h"

namespace lazy::runtime {

class DeviceFailures {
 public:
  // `device` names the GPU in messages: "GPU 0 (NVIDIA H100 80GB HBM3)".
  explicit DeviceFailures(std::string device) : device_(std::move(device)) {}

  LaunchLog& launches() { return launches_; }

  // Throws lazy::RuntimeError for the failed driver call `what`. A sticky error marks the context
  // lost; its error names the suspect kernels, says the context is unusable, and what to do.
  [[noreturn]] void fail(CUresult result, std::string_view what);
  // fail() unless the call succeeded.
  void check(CUresult result, std::string_view what) {
    if (result != CUDA_SUCCESS) [[unlikely]]
      fail(result, what);
  }

  bool lost() const noexcept { return lost_.load(std::memory_order_acquire); }
  // Throws the short error once the context is lost; every device operation calls it first.
  void check_usable() const {
    if (lost()) [[unlikely]]
      throw_lost();
  }

 private:
  [[noreturn]] void throw_lost() const;

  std::string device_;
  LaunchLog launches_;
  std::atomic<bool> lost_{false};
  mutable std::mutex mutex_;
  std::string lost_summary_;  // the error and its culprit, in a clause
  std::source_location lost_where_;
};

}  // namespace lazy::runtime
