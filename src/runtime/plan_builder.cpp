#include "runtime/plan_builder.h"

#include <algorithm>
#include <utility>

#include <absl/container/flat_hash_map.h>
#include <absl/strings/str_cat.h>

#include "codegen/skinny_matmul.h"
#include "fuse/partition.h"
#include "ir/debug.h"
#include "lazy/error.h"
#include "runtime/buffer_reuse.h"
#include "runtime/compile_scheduler.h"
#include "runtime/kernel_label.h"
#include "runtime/module_cache.h"
#include "runtime/plan_indices.h"
#include "runtime/plan_matmul.h"
#include "runtime/size_variants.h"
#include "runtime/stats.h"

namespace lazy::runtime {

namespace {

std::int64_t fewest_bytes(const fuse::Region& region, const codegen::GeneratedKernel& kernel,
                          std::span<const ir::NodePtr> pending,
                          std::span<const ir::NodePtr> externals) {
  std::int64_t bytes = 0;
  absl::flat_hash_map<std::pair<bool, std::uint32_t>, bool> seen;
  for (const fuse::Term& term : region.terms) {
    if (term.kind != fuse::Term::Kind::load) continue;
    if (!seen.try_emplace(std::make_pair(term.external, term.source), true).second) continue;
    const ir::Node& source = term.external ? *externals[term.source] : *pending[term.source];
    // A product reads all of each operand; other kernels read at most an element per element.
    const std::int64_t read = region.matmul || region.scatter
                                  ? term.layout.shape.numel()
                                  : std::min(source.shape.numel(), kernel.numel);
    bytes += read * itemsize(source.dtype);
  }
  for (const fuse::Root& root : region.roots) {
    const ir::Node& node = root.external_copy ? *externals[root.node] : *pending[root.node];
    bytes += node.shape.numel() * itemsize(node.dtype);
  }
  return bytes;
}

}  // namespace

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
  // Generated kernels, for the regions that are not library calls.
  std::vector<codegen::GeneratedKernel> kernels;
  std::vector<std::size_t> kernel_of(partition.regions.size(), 0);
  // Products of few rows run as generated kernels with their epilogue, unless fusion is off
  // (the unfused baseline calls cuBLASLt for every product).
  std::vector<bool> library_call(partition.regions.size(), false);
  for (std::size_t r = 0; r < partition.regions.size(); ++r) {
    const fuse::Region& region = partition.regions[r];
    library_call[r] = region.matmul && !(fusion && codegen::skinny_product(region, nodes, arch));
    if (region.matmul && ir::debug_level() >= 2) {
      plan->partition_text += absl::StrCat(
          "region ", r, "'s product runs as ",
          library_call[r] ? "one cuBLASLt call"
                          : absl::StrCat("the library's kernel for at most ", codegen::kSkinnyRows,
                                         " rows (its epilogue inside)"),
          "\n");
    }
    if (library_call[r]) continue;
    kernel_of[r] = kernels.size();
    kernels.push_back(kernel_variant(region, nodes, externals, fast));
    stats.kernels_generated++;
  }
  std::vector<jit::KernelCache::Lookup> lookups;
  try {
    lookups = compile_all(kernels, arch);
  } catch (const CompileError& error) {
    if (ir::debug_level() >= 1) ir::debug_print("lazyfuse: failed kernel\n" + error.source());
    throw;
  }
  int from[4] = {0, 0, 0, 0};  // by jit::KernelCache::Origin
  for (std::size_t r = 0; r < partition.regions.size(); ++r) {
    const fuse::Region& region = partition.regions[r];
    if (library_call[r]) {
      plan->kernels.push_back(plan_matmul(region, graph, index, device));
      continue;
    }
    const std::size_t k = kernel_of[r];
    const codegen::GeneratedKernel& kernel = kernels[k];
    PlannedKernel planned;
    planned.name = kernel.name;
    planned.numel = kernel.written;
    planned.block = unsigned(kernel.threads);
    planned.grid = unsigned(kernel.blocks);
    planned.launches = kernel.launches;
    planned.computes_product = region.matmul.has_value();
    planned.bytes_moved = fewest_bytes(region, kernel, nodes, externals);
    for (const fuse::Root& root : region.roots) {
      if (root.external_copy) {
        const ir::Node& input = *externals[root.node];
        planned.outputs.push_back(
            {root.node, true, input.dtype, input.shape.numel(), nullptr, std::nullopt, {}});
        continue;
      }
      const ir::Node& node = *nodes[root.node];
      planned.outputs.push_back({index(root.node),
                                 false,
                                 node.dtype,
                                 node.shape.numel(),
                                 index.added(root.node) ? detached_copy(node) : nullptr,
                                 std::nullopt,
                                 {}});
    }
    if (k < lookups.size()) {
      jit::KernelCache::Lookup& lookup = lookups[k];
      from[int(lookup.origin)]++;
      if (lookup.origin != jit::KernelCache::Origin::memory && ir::debug_level() >= 1) {
        ir::debug_print("lazyfuse: generated kernel " + kernel.name + "\n" + kernel.source);
      }
      if (device != nullptr) {
        planned.function = load_function(*device, kernel, lookup, arch);
        // The first label stays: one kernel planned again (a new row length) is not relabelled.
        if (!device->kernel_labelled(planned.function))
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
  using Origin = jit::KernelCache::Origin;
  plan->kernel_origins = "kernels from memory " + std::to_string(from[int(Origin::memory)]) +
                         ", disk " + std::to_string(from[int(Origin::disk)]) + ", shipped " +
                         std::to_string(from[int(Origin::shipped)]) + ", NVRTC " +
                         std::to_string(from[int(Origin::nvrtc)]);
  // Held nodes are recorded ones: their plan index is their trace index.
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    if (graph.live[i] && partition.region_of[i] >= 0) plan->live_roots.push_back(index(i));
  }
  for (std::uint32_t v : partition.live_views)
    plan->live_views.push_back(plan_view(v, graph, externals, index));
  for (std::uint32_t s : partition.live_scalars) plan->live_scalars.push_back(index(s));
  const LastUses last_use = last_uses(partition, index, plan->live_views);
  for (const auto& [node, k] : last_use) plan->kernels[k].release_after.push_back(node);
  const std::vector<BufferReuse> reuses =
      plan_buffer_reuse(partition, index, last_use, plan->live_views);
  for (const BufferReuse& reuse : reuses) {
    PlannedOutput& out = plan->kernels[reuse.region].outputs[reuse.root];
    if (reuse.external) {
      out.over_externals.push_back(reuse.source);
      plan->has_in_place_candidates = true;
    } else {
      out.reuses = index(reuse.source);
    }
  }
  if (ir::debug_level() >= 2 && !reuses.empty())
    plan->partition_text += "memory reused:\n" + describe_buffer_reuse(reuses, partition);
  return plan;
}

}  // namespace lazy::runtime
