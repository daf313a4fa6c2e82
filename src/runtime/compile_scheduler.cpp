#include "runtime/compile_scheduler.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <thread>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "ir/hash.h"
#include "ir/settings.h"
#include "jit/compile_workers.h"
#include "jit/nvrtc.h"

namespace lazy::runtime {

namespace {

// Parallel compiles of one sync's new kernels (worker processes, or threads for a few): one per
// hardware thread; LAZY_COMPILE_THREADS overrides it (1 compiles one kernel at a time, in the
// program's own process, and starts no workers).
std::size_t compile_threads() {
  static const std::size_t threads = [] {
    const std::int64_t forced = ir::integer_setting(ir::Setting::compile_threads);
    return forced > 0 ? std::size_t(forced)
                      : std::size_t(std::max(1u, std::thread::hardware_concurrency()));
  }();
  return threads;
}

// Compiles kernels[k] for each k of `misses` into lookups[k].
void compile_misses(const std::vector<codegen::GeneratedKernel>& kernels,
                    const std::vector<std::size_t>& misses, int arch,
                    std::vector<jit::KernelCache::Lookup>& lookups) {
  jit::KernelCache& cache = jit::KernelCache::instance();
  auto compile_here = [&](std::size_t k) {
    lookups[k] = cache.compile(kernels[k].name, kernels[k].source, arch, kernels[k].nvrtc_options);
  };
  if (compiles_in_workers(misses.size(), jit::WorkerPool::instance().running(),
                          compile_threads())) {
    std::vector<jit::CompileRequest> requests;
    for (std::size_t k : misses)
      requests.push_back({kernels[k].name, kernels[k].source, arch, kernels[k].nvrtc_options});
    if (auto results = jit::compile_in_workers(requests, compile_threads())) {
      for (std::size_t m = 0; m < misses.size(); ++m) {
        const std::size_t k = misses[m];
        jit::CompileResult& result = (*results)[m];
        if (result.ok) {
          lookups[k] =
              cache.add_compiled(kernels[k].name, kernels[k].source, arch, kernels[k].nvrtc_options,
                                 std::move(result.cubin), result.seconds);
        } else {
          compile_here(k);  // in-process: a genuine error comes back with NVRTC's log
        }
      }
      return;
    }
  }
  const std::size_t workers = std::min<std::size_t>(misses.size(), compile_threads());
  std::atomic<std::size_t> next{0};
  std::vector<std::future<void>> done;
  for (std::size_t w = 0; w < workers; ++w) {
    done.push_back(std::async(std::launch::async, [&] {
      for (std::size_t m = next++; m < misses.size(); m = next++) compile_here(misses[m]);
    }));
  }
  for (std::future<void>& f : done) f.get();  // rethrows a CompileError
}

}  // namespace

bool compiles_in_workers(std::size_t misses, std::size_t running_workers, std::size_t threads) {
  if (threads == 1 || misses < 2) return false;
  return misses >= jit::kMinKernelsForWorkers || misses <= running_workers;
}

void start_compile_workers() {
  if (compile_threads() > 1) jit::WorkerPool::instance().start(kWorkersStartedAhead);
}

std::vector<jit::KernelCache::Lookup> compile_all(
    const std::vector<codegen::GeneratedKernel>& kernels, int arch) {
  if (kernels.empty() || !jit::nvrtc_available()) return {};
  jit::KernelCache& cache = jit::KernelCache::instance();
  std::vector<jit::KernelCache::Lookup> lookups(kernels.size());
  std::vector<std::size_t> misses;
  // A kernel the sync has twice (each layer of a model) compiles once: the repeats take the
  // first one's lookup (a cold 32-layer step compiled 33 kernels of 2 sources).
  absl::flat_hash_map<ir::Hash128, std::size_t> first_miss;
  std::vector<std::pair<std::size_t, std::size_t>> repeats;  // (kernel, the miss it repeats)
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const codegen::GeneratedKernel& kernel = kernels[k];
    if (auto found = cache.find(kernel.source, arch, kernel.nvrtc_options, kernel.source_hash)) {
      lookups[k] = *found;
      continue;
    }
    const ir::Hash128 hash = kernel.source_hash
                                 ? *kernel.source_hash
                                 : ir::hash_bytes(kernel.source.data(), kernel.source.size());
    const auto [first, added] = first_miss.try_emplace(hash, k);
    const codegen::GeneratedKernel& earlier = kernels[first->second];
    if (!added && earlier.source == kernel.source &&
        earlier.nvrtc_options == kernel.nvrtc_options) {
      repeats.emplace_back(k, first->second);
    } else {
      misses.push_back(k);
    }
  }
  compile_misses(kernels, misses, arch, lookups);
  for (const auto& [k, first] : repeats)
    lookups[k] = {lookups[first].kernel, jit::KernelCache::Origin::memory, 0};
  return lookups;
}

}  // namespace lazy::runtime
