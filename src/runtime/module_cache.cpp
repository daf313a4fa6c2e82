#include "runtime/module_cache.h"

#include <mutex>
#include <string>

#include <absl/container/flat_hash_map.h>

#include "ir/debug.h"
#include "lazy/error.h"

namespace lazy::runtime {

namespace {

struct LoadedKernels {
  std::mutex mutex;
  absl::flat_hash_map<ir::Hash128, CUfunction> functions;
};
LoadedKernels& loaded_kernels() {
  static LoadedKernels* loaded = new LoadedKernels();  // modules live until the process ends
  return *loaded;
}

}  // namespace

CUfunction load_function(Device& device, const codegen::GeneratedKernel& kernel,
                         jit::KernelCache::Lookup& lookup, int arch) {
  LoadedKernels& loaded = loaded_kernels();
  std::lock_guard lock(loaded.mutex);
  if (auto it = loaded.functions.find(lookup.kernel->key); it != loaded.functions.end()) {
    return it->second;
  }
  CUmodule module;
  try {
    module = device.load_module(lookup.kernel->cubin);
  } catch (const RuntimeError& error) {
    const bool stored = lookup.origin == jit::KernelCache::Origin::disk ||
                        lookup.origin == jit::KernelCache::Origin::shipped;
    if (!stored || device.context_lost()) throw;
    if (ir::debug_level() >= 1) {
      ir::debug_print(std::string("lazyfuse: the driver refused cached kernel ") + kernel.name +
                      "; recompiling (" + error.what() + ")");
    }
    lookup = jit::KernelCache::instance().recompile(kernel.name, kernel.source, arch,
                                                    kernel.nvrtc_options);
    module = device.load_module(lookup.kernel->cubin);
  }
  CUfunction function = device.get_function(module, kernel.name.c_str());
  loaded.functions[lookup.kernel->key] = function;
  return function;
}

}  // namespace lazy::runtime
