// Compiles the kernels of one new plan: looks every kernel up in the caches and compiles the
// misses, so that a cold start waits for about the slowest kernel rather than for the sum.
#pragma once

#include <cstddef>
#include <vector>

#include "codegen/kernel_emitter.h"
#include "jit/kernel_cache.h"

namespace lazy::runtime {

// How many worker processes the device starts while CUDA initialises: enough for a cold start's
// first syncs, which often have two new kernels (a program's inputs, then its first step).
inline constexpr std::size_t kWorkersStartedAhead = 2;

// Starts kWorkersStartedAhead workers, unless compiles are limited to one at a time
// (LAZY_COMPILE_THREADS=1) or the worker program is missing. Returns at once: they warm NVRTC
// up in their own processes.
void start_compile_workers();

// Whether a sync's `misses` new kernels compile in worker processes rather than in threads of
// this process: for many kernels, or for two or more when as many warm workers already run (one
// process's NVRTC takes 1.5 to 2 times as long for two compiles as for one). `threads` is the
// compile parallelism (LAZY_COMPILE_THREADS); 1 keeps every compile in-process.
bool compiles_in_workers(std::size_t misses, std::size_t running_workers, std::size_t threads);

// A lookup per kernel: the misses go to worker processes where compiles_in_workers says so, else
// to threads of this process. Empty when NVRTC is unavailable (the host evaluator
// computes then). Throws lazy::CompileError for a kernel NVRTC refuses.
std::vector<jit::KernelCache::Lookup> compile_all(
    const std::vector<codegen::GeneratedKernel>& kernels, int arch);

}  // namespace lazy::runtime
