// Compiled kernels, keyed by what determines the compiler's output: the source, the NVRTC
// options, the target arch, the NVRTC version and the embedded templates. A hit compares the full
// source, so a hash collision can never hand back the wrong kernel. Bounded, least recently used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ir/hash.h"
#include "jit/lru_cache.h"
#include "jit/nvrtc.h"

namespace lazy::jit {

struct CompiledKernel {
  ir::Hash128 key;
  std::string name;
  std::string source;
  std::vector<std::string> options;
  std::vector<char> cubin;
};

// The key under which `version` of NVRTC compiles `source` for sm_<arch> with `options` (besides
// nvrtc_compile_options'): what the caches file a kernel under.
ir::Hash128 kernel_key(const std::string& source, int arch, const std::vector<std::string>& options,
                       NvrtcVersion version);

// Compiles a generated kernel's source with NVRTC, the embedded templates as its headers.
std::vector<char> compile_kernel_source(const std::string& source, const std::string& name,
                                        int arch, const std::vector<std::string>& options);

class KernelCache {
 public:
  static KernelCache& instance();

  // shipped: built with the library (jit/shipped_kernels.h).
  enum class Origin : std::uint8_t { memory, disk, shipped, nvrtc };
  struct Lookup {
    std::shared_ptr<const CompiledKernel> kernel;
    Origin origin;
    double compile_seconds;  // time NVRTC took, when compiled
    bool compiled() const { return origin == Origin::nvrtc; }
  };
  // The kernel compiled for sm_<arch>: from memory, else from the disk cache, else shipped with
  // the library, else compiled with NVRTC (outside the lock, so threads compile different kernels
  // in parallel) and written to the disk cache. Throws lazy::CompileError.
  Lookup get_or_compile(const std::string& name, const std::string& source, int arch,
                        const std::vector<std::string>& options = {});
  // The kernel from memory, disk or the shipped ones, without compiling. `source_hash`, when given,
  // must be ir::hash_bytes of `source`: the source is then not hashed again.
  std::optional<Lookup> find(const std::string& source, int arch,
                             const std::vector<std::string>& options = {},
                             const std::optional<ir::Hash128>& source_hash = std::nullopt);
  // Compiles with NVRTC here and keeps the kernel (after find() missed).
  Lookup compile(const std::string& name, const std::string& source, int arch,
                 const std::vector<std::string>& options = {});
  // Keeps (in memory and on disk) a kernel compiled elsewhere, in a worker process.
  Lookup add_compiled(const std::string& name, const std::string& source, int arch,
                      const std::vector<std::string>& options, std::vector<char> cubin,
                      double compile_seconds);
  // After the driver refused a kernel's CUBIN: drops the disk entry, compiles afresh, and keeps
  // and stores the new CUBIN.
  Lookup recompile(const std::string& name, const std::string& source, int arch,
                   const std::vector<std::string>& options = {});

  std::size_t size();
  void clear();

 private:
  KernelCache();
  Lookup compile_and_store(const ir::Hash128& key, const std::string& name,
                           const std::string& source, int arch,
                           const std::vector<std::string>& options);
  std::mutex mutex_;
  LruCache<ir::Hash128, std::shared_ptr<const CompiledKernel>> entries_;
};

}  // namespace lazy::jit
