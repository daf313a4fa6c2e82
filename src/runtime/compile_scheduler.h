// Compiles the kernels of one new plan: looks every kernel up in the caches and compiles the
// misses, so that a cold start waits for about the slowest kernel rather than for the sum.
#pragma once

#include <vector>

#include "codegen/kernel_emitter.h"
#include "jit/kernel_cache.h"

namespace lazy::runtime {

// A lookup per kernel: several misses go to worker processes (one process's NVRTC compiles one
// program at a time), a few to threads. Empty when NVRTC is unavailable (the host evaluator
// computes then). Throws lazy::CompileError for a kernel NVRTC refuses.
std::vector<jit::KernelCache::Lookup> compile_all(
    const std::vector<codegen::GeneratedKernel>& kernels, int arch);

}  // namespace lazy::runtime
