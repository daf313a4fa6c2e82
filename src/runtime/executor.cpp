#include "runtime/executor.h"

#include <atomic>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <future>
#include <mutex>
#include <sstream>
#include <thread>

#include <absl/container/flat_hash_map.h>
#include <absl/strings/numbers.h>

#include "codegen/term_statements.h"
#include "fuse/partition.h"
#include "ir/debug.h"
#include "ir/dtype_codec.h"
#include "ir/env.h"
#include "jit/compile_workers.h"
#include "jit/nvrtc.h"
#include "lazy/config.h"
#include "lazy/error.h"
#include "ref/evaluator.h"
#include "runtime/kernel_label.h"
#include "runtime/output_memory.h"
#include "runtime/plan.h"
#include "runtime/plan_indices.h"
#include "runtime/stats.h"
#include "runtime/storage_mirror.h"

namespace lazy::runtime {

namespace {

using codegen::ArgSource;

// The arch kernels are compiled for when no GPU says which: LAZY_ARCH ("sm_90" or "90"), else
// sm_90 (H100 and H200).
constexpr int kDefaultHostArch = 90;

thread_local bool reference_execution = false;
std::atomic<bool> poison_outputs{std::getenv("LAZY_POISON_OUTPUTS") != nullptr &&
                                 std::string_view(std::getenv("LAZY_POISON_OUTPUTS")) == "1"};
constexpr std::uint8_t kPoisonByte = 0xff;

int host_arch() {
  static const int arch = [] {
    const char* env = std::getenv("LAZY_ARCH");
    if (env == nullptr) return kDefaultHostArch;
    std::string_view text(env);
    if (text.starts_with("sm_")) text.remove_prefix(3);
    int parsed = 0;
    if (!absl::SimpleAtoi(std::string(text), &parsed) || parsed <= 0) {
      throw RuntimeError("lazyfuse: LAZY_ARCH=" + std::string(env) +
                             " is not an architecture; use a value like sm_90",
                         std::source_location::current());
    }
    return parsed;
  }();
  return arch;
}

std::size_t plan_capacity() {
  return ir::positive_from_env("LAZY_PLAN_CACHE_ENTRIES", kDefaultPlanCacheEntries);
}

struct PlanCache {
  std::mutex mutex;
  jit::LruCache<ir::Hash128, std::shared_ptr<const Plan>> plans{plan_capacity()};
};

PlanCache& plan_cache() {
  static PlanCache* cache = new PlanCache();  // never destroyed: plans hold loaded kernels
  return *cache;
}

// Says once per process that there is no GPU, and what happens instead.
void note_host_execution() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::string why_no_nvrtc;
    bool nvrtc = jit::nvrtc_available(&why_no_nvrtc);
    const std::string why_host = Device::why_host();
    std::ostringstream text;
    text << "lazyfuse: computing on the host with the reference evaluator; ";
    if (nvrtc) {
      text << "kernels are still generated and compiled for sm_" << host_arch() << ". ";
    } else {
      text << "kernels are generated but not compiled (" << why_no_nvrtc << "). ";
    }
    text << "No GPU because " << why_host;
    ir::debug_print(text.str());
  });
}

// The plan key: the sync key plus what else decides the kernels and their arguments: each
// input's layout, which inputs share memory, and the settings.
ir::Hash128 plan_key(const ir::Trace& trace, const ir::Hash128& sync_key, bool fusion, bool fast,
                     int arch) {
  std::vector<std::uint64_t> words = {sync_key.lo, sync_key.hi, std::uint64_t(fusion),
                                      std::uint64_t(fast), std::uint64_t(arch)};
  absl::flat_hash_map<const ir::Storage*, std::uint64_t> first_slot;
  std::span<const ir::NodePtr> externals = trace.externals();
  for (std::size_t slot = 0; slot < externals.size(); ++slot) {
    const ir::TensorData& data = *externals[slot]->data;
    words.push_back(std::uint64_t(data.layout.offset));
    for (int d = 0; d < data.layout.shape.rank(); ++d)
      words.push_back(std::uint64_t(data.layout.strides[d]));
    words.push_back(first_slot.try_emplace(data.storage.get(), slot).first->second);
  }
  return ir::hash_words(words);
}

std::int64_t fewest_bytes(const fuse::Region& region, const codegen::GeneratedKernel& kernel,
                          std::span<const ir::NodePtr> pending,
                          std::span<const ir::NodePtr> externals) {
  std::int64_t bytes = 0;
  absl::flat_hash_map<std::pair<bool, std::uint32_t>, bool> seen;
  for (const fuse::Term& term : region.terms) {
    if (term.kind != fuse::Term::Kind::load) continue;
    if (!seen.try_emplace(std::make_pair(term.external, term.source), true).second) continue;
    const ir::Node& source = term.external ? *externals[term.source] : *pending[term.source];
    bytes += std::min(source.shape.numel(), kernel.numel) * itemsize(source.dtype);
  }
  for (const fuse::Root& root : region.roots) {
    const ir::Node& node = root.external_copy ? *externals[root.node] : *pending[root.node];
    bytes += node.shape.numel() * itemsize(node.dtype);
  }
  return bytes;
}

// Parallel compiles of one sync's new kernels (worker processes, or threads for a few): one per
// hardware thread; LAZY_COMPILE_THREADS overrides it (1 compiles one kernel at a time, in the
// program's own process, and starts no workers).
std::size_t compile_threads() {
  static const std::size_t threads = ir::positive_from_env(
      "LAZY_COMPILE_THREADS", std::size_t(std::max(1u, std::thread::hardware_concurrency())));
  return threads;
}

// Looks every kernel up in the caches and compiles the misses, so that a cold start waits for
// about the slowest kernel rather than for the sum: several misses go to worker processes
// (one process's NVRTC compiles one program at a time), a few to threads. Nothing is compiled
// when NVRTC is unavailable (the host evaluator computes then).
std::vector<jit::KernelCache::Lookup> compile_all(
    const std::vector<codegen::GeneratedKernel>& kernels, int arch) {
  if (kernels.empty() || !jit::nvrtc_available()) return {};
  jit::KernelCache& cache = jit::KernelCache::instance();
  std::vector<jit::KernelCache::Lookup> lookups(kernels.size());
  std::vector<std::size_t> misses;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const codegen::GeneratedKernel& kernel = kernels[k];
    if (auto found = cache.find(kernel.source, arch, kernel.nvrtc_options)) {
      lookups[k] = *found;
    } else {
      misses.push_back(k);
    }
  }
  auto compile_here = [&](std::size_t k) {
    lookups[k] = cache.compile(kernels[k].name, kernels[k].source, arch, kernels[k].nvrtc_options);
  };
  if (misses.size() >= jit::kMinKernelsForWorkers && compile_threads() > 1) {
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
      return lookups;
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
  return lookups;
}

// Kernels loaded on the device, by kernel cache key: a kernel that serves several plans (batch
// sizes) is loaded once, and a plan dropped from its cache leaves nothing loaded behind.
struct LoadedKernels {
  std::mutex mutex;
  absl::flat_hash_map<ir::Hash128, CUfunction> functions;
};
LoadedKernels& loaded_kernels() {
  static LoadedKernels* loaded = new LoadedKernels();  // modules live until the process ends
  return *loaded;
}

// Loads a kernel on the device. A CUBIN from the disk cache that the driver refuses (an entry
// from another driver, say) is dropped and compiled afresh, never a failure of the program.
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
    if (lookup.origin != jit::KernelCache::Origin::disk || device.context_lost()) throw;
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

std::shared_ptr<const Plan> build_plan(const ir::Trace& trace, const std::vector<bool>& live,
                                       bool fusion, bool fast, Device* device, int arch) {
  std::span<const ir::NodePtr> externals = trace.externals();
  fuse::Partition partition = fuse::partition(trace.pending(), live, externals, {fusion});
  const fuse::Graph& graph = partition.graph;
  std::span<const ir::NodePtr> nodes = graph.nodes;
  const PlanIndices index(graph, trace.size());
  auto plan = std::make_shared<Plan>();
  if (ir::debug_level() >= 2) plan->partition_text = partition.describe();

  Counters& stats = counters();
  std::vector<codegen::GeneratedKernel> kernels;
  for (const fuse::Region& region : partition.regions) {
    kernels.push_back(codegen::generate_kernel(region, nodes, externals, {.fast_math = fast}));
    stats.kernels_generated++;
  }
  std::vector<jit::KernelCache::Lookup> lookups;
  try {
    lookups = compile_all(kernels, arch);
  } catch (const CompileError& error) {
    if (ir::debug_level() >= 1) ir::debug_print("lazyfuse: failed kernel\n" + error.source());
    throw;
  }
  int from[3] = {0, 0, 0};  // memory, disk, NVRTC
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const codegen::GeneratedKernel& kernel = kernels[k];
    const fuse::Region& region = partition.regions[k];
    PlannedKernel planned;
    planned.name = kernel.name;
    planned.numel = kernel.written;
    planned.block = unsigned(kernel.threads);
    planned.grid = unsigned(kernel.blocks);
    planned.bytes_moved = fewest_bytes(region, kernel, nodes, externals);
    for (const fuse::Root& root : region.roots) {
      if (root.external_copy) {
        const ir::Node& input = *externals[root.node];
        planned.outputs.push_back({root.node, true, input.dtype, input.shape.numel(), nullptr});
        continue;
      }
      const ir::Node& node = *nodes[root.node];
      planned.outputs.push_back({index(root.node), false, node.dtype, node.shape.numel(),
                                 index.added(root.node) ? detached_copy(node) : nullptr});
    }
    if (k < lookups.size()) {
      jit::KernelCache::Lookup& lookup = lookups[k];
      from[int(lookup.origin)]++;
      if (lookup.origin != jit::KernelCache::Origin::memory && ir::debug_level() >= 1) {
        ir::debug_print("lazyfuse: generated kernel " + kernel.name + "\n" + kernel.source);
      }
      if (device != nullptr) {
        planned.function = load_function(*device, kernel, lookup, arch);
        device->label_kernel(planned.function, kernel_label(kernel.name, region, nodes));
      }
    }
    planned.args = plan_args(kernel.args, graph, index);
    plan->kernels.push_back(std::move(planned));
  }
  for (const jit::KernelCache::Lookup& lookup : lookups) {
    if (lookup.compiled()) {
      stats.nvrtc_compiles++;
      auto nanoseconds = std::int64_t(lookup.compile_seconds * 1e9);
      stats.compile_nanoseconds += nanoseconds;
      std::int64_t slowest = stats.slowest_compile_nanoseconds.load();
      while (nanoseconds > slowest &&
             !stats.slowest_compile_nanoseconds.compare_exchange_weak(slowest, nanoseconds)) {
      }
    } else {
      stats.kernel_cache_hits++;
    }
  }
  plan->kernel_origins = "kernels from memory " + std::to_string(from[0]) + ", disk " +
                         std::to_string(from[1]) + ", NVRTC " + std::to_string(from[2]);
  // Held nodes are recorded ones: their plan index is their trace index.
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    if (graph.live[i] && partition.region_of[i] >= 0) plan->live_roots.push_back(index(i));
  }
  for (std::uint32_t v : partition.live_views)
    plan->live_views.push_back(plan_view(v, graph, externals, index));
  for (std::uint32_t s : partition.live_scalars) plan->live_scalars.push_back(index(s));
  // The last kernel that reads each intermediate root (or writes it, if none reads it).
  absl::flat_hash_map<std::uint32_t, std::size_t> last_use;
  for (std::size_t k = 0; k < partition.regions.size(); ++k) {
    for (const fuse::Root& root : partition.regions[k].roots)
      if (!root.external_copy && !graph.live[root.node]) last_use[index(root.node)] = k;
    for (const fuse::Term& term : partition.regions[k].terms)
      if (term.kind == fuse::Term::Kind::load && !term.external && !graph.live[term.source]) {
        last_use[index(term.source)] = k;
      }
  }
  for (const PlannedView& view : plan->live_views)
    if (view.base_kind == PlannedView::Base::root) last_use.erase(view.base);
  for (const auto& [node, k] : last_use) plan->kernels[k].release_after.push_back(node);
  return plan;
}

std::shared_ptr<ir::Storage> scalar_storage(const ir::Node& node) {
  auto storage = std::make_shared<ir::Storage>(node.dtype, 1);
  if (is_floating(node.dtype)) {
    ir::store_double(storage->host.data(), node.dtype, 0,
                     ir::scalar_as_float(*node.scalar, node.dtype));
  } else {
    ir::store_int(storage->host.data(), node.dtype, 0, ir::scalar_as_int(*node.scalar, node.dtype));
  }
  return storage;
}

// Launches the plan's kernels and hands back the data of each held node.
std::vector<std::optional<ir::TensorData>> replay(const Plan& plan, const ir::Trace& trace,
                                                  Device& device) {
  std::span<const ir::NodePtr> pending = trace.pending();
  std::span<const ir::NodePtr> externals = trace.externals();
  check_plan_fits(plan, pending, externals, device.total_memory(), device.description());
  absl::flat_hash_map<std::uint32_t, std::shared_ptr<ir::Storage>> roots, copies;
  std::vector<std::uint64_t> packed;
  const bool timed = ir::debug_level() >= 3;
  for (const PlannedKernel& kernel : plan.kernels) {
    for (const PlannedOutput& out : kernel.outputs) {
      auto storage = allocate_output(device, out, pending, externals);
      if (poison_outputs) device.fill_bytes(storage->device_address, kPoisonByte, storage->bytes());
      (out.external_copy ? copies : roots)[out.node] = std::move(storage);
    }
    if (kernel.numel == 0) {
      for (std::uint32_t node : kernel.release_after) roots.erase(node);
      continue;
    }
    packed.clear();
    for (const ArgSource& arg : kernel.args) {
      switch (arg.kind) {
        case ArgSource::Kind::constant:
          packed.push_back(arg.value);
          break;
        case ArgSource::Kind::external_pointer:
          packed.push_back(input_address(device, *externals[arg.value]));
          break;
        case ArgSource::Kind::root_pointer:
          packed.push_back(roots.at(arg.value)->device_address);
          break;
        case ArgSource::Kind::copy_pointer:
          packed.push_back(copies.at(arg.value)->device_address);
          break;
        case ArgSource::Kind::scalar_float:
        case ArgSource::Kind::scalar_int:
          packed.push_back(codegen::scalar_argument(*pending[arg.value]));
          break;
      }
    }
    std::span<const std::byte> bytes = std::as_bytes(std::span(packed));
    if (timed) {
      DeviceTimer timer(device);
      timer.start();
      device.launch(kernel.function, kernel.grid, kernel.block, bytes);
      timer.stop();
      float ms = timer.elapsed_ms();
      std::ostringstream line;
      line << "lazyfuse:   " << kernel.name << " (grid " << kernel.grid << ", block "
           << kernel.block << "): " << ms << " ms, "
           << double(kernel.bytes_moved) / (double(ms) * 1e6) << " GB/s";
      ir::debug_print(line.str());
    } else {
      device.launch(kernel.function, kernel.grid, kernel.block, bytes);
    }
    counters().kernel_launches++;
    for (std::uint32_t node : kernel.release_after) roots.erase(node);
  }

  std::vector<std::optional<ir::TensorData>> results(pending.size());
  for (std::uint32_t index : plan.live_roots)
    results[index] = ir::TensorData{roots.at(index), ir::Layout::contiguous(pending[index]->shape)};
  absl::flat_hash_map<std::uint32_t, std::shared_ptr<ir::Storage>> scalars;
  for (std::uint32_t index : plan.live_scalars) {
    scalars[index] = scalar_storage(*pending[index]);
    results[index] = ir::TensorData{scalars[index], ir::Layout::contiguous(Shape{})};
  }
  for (const PlannedView& view : plan.live_views) {
    std::shared_ptr<const ir::Storage> base;
    switch (view.base_kind) {
      case PlannedView::Base::root:
        base = roots.at(view.base);
        break;
      case PlannedView::Base::external:
        base = externals[view.base]->data->storage;
        break;
      case PlannedView::Base::scalar:
        base = scalars.at(view.base);
        break;
    }
    results[view.node] = ir::TensorData{std::move(base), view.layout};
  }
  return results;
}

}  // namespace

std::vector<std::optional<ir::TensorData>> execute(const ir::Trace& trace,
                                                   const std::vector<bool>& live) {
  auto start = std::chrono::steady_clock::now();
  Device* device = Device::get();
  if (device == nullptr) note_host_execution();
  if (std::string why; device != nullptr && !jit::nvrtc_available(&why)) {
    throw RuntimeError("lazyfuse: a GPU is in use but kernels cannot be compiled: " + why +
                           " (or set LAZY_DEVICE=cpu to compute on the host)",
                       std::source_location::current());
  }
  const bool fusion = fusion_enabled();
  const bool fast = fast_math();
  const int arch = device != nullptr ? device->sm_arch() : host_arch();
  const ir::Hash128 key = plan_key(trace, trace.sync_key(live), fusion, fast, arch);
  Counters& stats = counters();
  stats.syncs++;

  std::shared_ptr<const Plan> plan;
  {
    PlanCache& cache = plan_cache();
    std::lock_guard lock(cache.mutex);
    if (auto* found = cache.plans.find(key)) plan = *found;
  }
  const bool hit = plan != nullptr;
  const std::int64_t compiles_before = stats.nvrtc_compiles.load();
  if (hit) {
    stats.plan_hits++;
  } else {
    stats.plan_misses++;
    plan = build_plan(trace, live, fusion, fast, device, arch);
    PlanCache& cache = plan_cache();
    std::lock_guard lock(cache.mutex);
    cache.plans.insert(key, plan);
  }
  if (ir::debug_level() >= 2) {
    ir::debug_print("lazyfuse: graph\n" + ir::describe_graph(trace.pending(), live));
    if (!plan->partition_text.empty())
      ir::debug_print("lazyfuse: partition\n" + plan->partition_text);
  }

  std::vector<std::optional<ir::TensorData>> results;
  if (device != nullptr && !reference_execution) {
    results = replay(*plan, trace, *device);
  } else {
    for (const ir::NodePtr& external : trace.externals()) host_bytes(*external->data->storage);
    results = ref::evaluate(trace.pending(), live);
  }

  if (ir::debug_level() >= 1) {
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::ostringstream line;
    line << "lazyfuse: sync " << stats.syncs.load() << ": " << trace.size() << " ops, "
         << plan->kernels.size() << " kernel(s), plan " << (hit ? "hit" : "miss") << ", "
         << stats.nvrtc_compiles.load() - compiles_before << " compiled"
         << (hit ? "" : " (" + plan->kernel_origins + ")") << ", " << ms << " ms"
         << (device == nullptr ? " (host)" : "");
    ir::debug_print(line.str());
  }
  return results;
}

void set_reference_execution(bool enabled) {
  reference_execution = enabled;
}
void set_poison_outputs(bool enabled) {
  poison_outputs = enabled;
}

void clear_plan_cache() {
  PlanCache& cache = plan_cache();
  std::lock_guard lock(cache.mutex);
  cache.plans.clear();
}

}  // namespace lazy::runtime
