// A kernel's arguments packed in one buffer, in the `extra` form cuLaunchKernel and graph kernel
// nodes take (CU_LAUNCH_PARAM_BUFFER_POINTER and _SIZE).
#pragma once

#include <cuda.h>

#include <cstddef>
#include <span>

namespace lazy::runtime {

class PackedArgs {
 public:
  explicit PackedArgs(std::span<const std::byte> args)
      : size_(args.size()),
        // The driver only reads the buffer; its interface takes void*.
        extra_{CU_LAUNCH_PARAM_BUFFER_POINTER, const_cast<std::byte*>(args.data()),
               CU_LAUNCH_PARAM_BUFFER_SIZE, &size_, CU_LAUNCH_PARAM_END} {}
  PackedArgs(const PackedArgs&) = delete;  // extra_ points at size_
  PackedArgs& operator=(const PackedArgs&) = delete;

  // nullptr for a kernel without parameters.
  void** extra() { return size_ == 0 ? nullptr : extra_; }
  std::size_t size() const { return size_; }

 private:
  std::size_t size_;
  void* extra_[5];
};

}  // namespace lazy::runtime
