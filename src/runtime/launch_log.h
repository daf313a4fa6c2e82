// The kernels a device launched since its last successful synchronization, remembered cheaply
// (a counter and a slot of a ring per launch, no strings), so that when a launch faults, which
// CUDA reports at some later call, the error can name the kernels that may have caused it.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <source_location>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>

// As <cuda.h> declares it (see device.h).
struct CUfunc_st;
using CUfunction = CUfunc_st*;

namespace lazy::runtime {

// How an error names a loaded kernel: its name and the user's file:line of its ops.
struct KernelLabel {
  std::string text;            // "lz_add_mul_f32_<hash> (ops at app.cpp:12, app.cpp:14)"
  std::source_location where;  // the first of those ops: where an error about the kernel points
};

class LaunchLog {
 public:
  // Launches named in an error: enough for the kernels of a typical sync; older ones are
  // counted, not named.
  static constexpr std::size_t kRemembered = 8;

  // Names `function` in later reports; the first label given for a function stays.
  void label(CUfunction function, KernelLabel label);
  bool labelled(CUfunction function) const;

  // The label of `function`, or a stand-in for one never labelled.
  KernelLabel label_of(CUfunction function) const;

  void record(CUfunction function) noexcept {
    const std::uint64_t n = launched_.fetch_add(1, std::memory_order_relaxed);
    recent_[n % kRemembered].store(function, std::memory_order_relaxed);
  }

  // Read before a synchronizing call; pass to synchronized() once it succeeded: every launch
  // counted before then has completed without error.
  std::uint64_t mark() const noexcept { return launched_.load(std::memory_order_relaxed); }
  void synchronized(std::uint64_t mark) noexcept;

  // The launches since the last successful synchronization: how many, and the labels of the
  // latest kRemembered of them, oldest first.
  struct Suspects {
    std::uint64_t count = 0;
    std::vector<KernelLabel> latest;
  };
  Suspects suspects() const;

 private:
  std::atomic<std::uint64_t> launched_{0};
  std::atomic<std::uint64_t> synchronized_{0};
  std::array<std::atomic<CUfunction>, kRemembered> recent_{};
  mutable std::mutex labels_mutex_;
  absl::flat_hash_map<CUfunction, KernelLabel> labels_;
};

}  // namespace lazy::runtime
