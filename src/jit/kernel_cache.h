// Compiled kernels, keyed by what determines the compiler's output: the source, the NVRTC
// options, the target arch, the NVRTC version and the embedded templates. A hit compares the full
// source, so a hash collision can never hand back the wrong kernel. Bounded, least recently used.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ir/hash.h"
#include "jit/lru_cache.h"

namespace lazy::jit {

struct CompiledKernel {
  ir::Hash128 key;
  std::string name;
  std::string source;
  std::vector<std::string> options;
  std::vector<char> cubin;
};

// Kernels kept in memory by default: far more than a program's distinct kernels, small next to
// memory (a CUBIN is a few KB). Overridden by LAZY_KERNEL_CACHE_ENTRIES.
inline constexpr std::size_t kDefaultKernelCacheEntries = 4096;

class KernelCache {
 public:
  static KernelCache& instance();

  struct Lookup {
    std::shared_ptr<const CompiledKernel> kernel;
    bool compiled;           // false: found in the cache
    double compile_seconds;  // time NVRTC took, when compiled
  };
  // The kernel compiled for sm_<arch>, compiling it with NVRTC on a miss (outside the lock, so
  // threads compile different kernels in parallel). Throws lazy::CompileError.
  Lookup get_or_compile(const std::string& name, const std::string& source, int arch,
                        const std::vector<std::string>& options = {});

  std::size_t size();
  void clear();

 private:
  KernelCache();
  std::mutex mutex_;
  LruCache<ir::Hash128, std::shared_ptr<const CompiledKernel>> entries_;
};

}  // namespace lazy::jit
