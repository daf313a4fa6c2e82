// Small device blocks the program freed, kept on the host for the next allocation of their size.
// A stream-ordered allocation and free cost the host about 1 µs each on the H100 machine, which
// a replayed step pays for every output; taking a kept block costs a lock and a pop. Reuse is
// safe because each stream keeps its own (runtime/device_stream.h): a block goes back to the
// stream it was allocated on, whose later work is queued after every use of it there, and a
// stream that read it from elsewhere holds it until that stream has synchronized.
#pragma once

#include <bit>
#include <cstddef>
#include <mutex>
#include <vector>

#include <absl/container/flat_hash_map.h>

// As <cuda.h> declares it (see device.h).
using CUdeviceptr = unsigned long long;

namespace lazy::runtime {

class FreeBlocks {
 public:
  // Larger blocks go back to the pool: their kernels run long enough to hide an allocation.
  static constexpr std::size_t kLargestBlock = std::size_t(1) << 20;
  // What the cache may hold in all, so memory the program freed stays available to others.
  static constexpr std::size_t kMostBytes = std::size_t(64) << 20;

  // The size a block of `bytes` is kept under, so near sizes share blocks: multiples of 256 up
  // to 4 KiB, then four sizes an octave (at most a quarter more than asked). A row length that
  // changes every step then finds kept blocks instead of allocating (about 1 µs each).
  static std::size_t rounded(std::size_t bytes) {
    if (bytes <= 4096) return (bytes + 255) & ~std::size_t(255);
    const std::size_t step = std::size_t(1) << (std::bit_width(bytes - 1) - 3);
    return (bytes + step - 1) & ~(step - 1);
  }
  // What to allocate for `bytes`: the kept size for blocks the cache takes, so that any kept
  // block of that size serves.
  static std::size_t allocation_size(std::size_t bytes) {
    return rounded(bytes) <= kLargestBlock ? rounded(bytes) : bytes;
  }

  // A kept block of rounded(bytes), or 0 when there is none.
  CUdeviceptr take(std::size_t bytes);
  // Keeps a block of rounded(bytes); false when it is too large or the cache is full, and the
  // caller frees it.
  bool keep(CUdeviceptr block, std::size_t bytes);
  // Every kept block, removed from the cache, for the caller to free.
  std::vector<CUdeviceptr> drain();

 private:
  std::mutex mutex_;
  absl::flat_hash_map<std::size_t, std::vector<CUdeviceptr>> by_size_;
  std::size_t bytes_ = 0;
};

}  // namespace lazy::runtime
