// Kernels loaded on the device, by kernel cache key: a kernel that serves several plans (batch
// sizes) is loaded once, and a plan dropped from its cache leaves nothing loaded behind.
#pragma once

#include "codegen/kernel_emitter.h"
#include "jit/kernel_cache.h"
#include "runtime/device.h"

namespace lazy::runtime {

// Loads a kernel on the device, or finds it loaded. A CUBIN from the disk cache that the driver
// refuses (an entry from another driver, say) is dropped and compiled afresh, never a failure
// of the program; `lookup` then holds the new compile.
CUfunction load_function(Device& device, const codegen::GeneratedKernel& kernel,
                         jit::KernelCache::Lookup& lookup, int arch);

}  // namespace lazy::runtime
