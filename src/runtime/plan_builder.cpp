#include "runtime/plan_builder.h"

#include <algorithm>
#include <utility>

#include <absl/container/flat_hash_map.h>

#include "fuse/partition.h"
#include "ir/debug.h"
#include "lazy/error.h"
#include "runtime/compile_scheduler.h"
#include "runtime/kernel_label.h"
#include "runtime/module_cache.h"
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
    bytes += std::min(source.shape.numel(), kernel.numel) * itemsize(source.dtype);
  }
  for (const fuse::Root& root : region.roots) {
    const ir::Node& node = root.external_copy ? *externals[root.node] : *pending[root.node];
    bytes += node.shape.numel() * itemsize(node.dtype);
  }
  return bytes;
}

PlannedView plan_view(std::uint32_t index, std::span<const ir::NodePtr> pending,
                      std::span<const ir::NodePtr> externals) {
  std::vector<const ir::Node*> views;
  const ir::Node* base = pending[index].get();
  while (base->is_pending() && ir::op_kind(base->op) == ir::OpKind::view) {
    views.push_back(base);
    base = base->inputs[0].get();
  }
  PlannedView view{index, PlannedView::Base::root, 0, {}};
  ir::Layout base_layout = ir::Layout::contiguous(base->shape);
  if (!base->is_pending()) {
    view.base_kind = PlannedView::Base::external;
    for (std::size_t slot = 0; slot < externals.size(); ++slot)
      if (externals[slot].get() == base) view.base = std::uint32_t(slot);
    base_layout = base->data->layout;
  } else {
    view.base_kind =
        base->op == ir::Op::Scalar ? PlannedView::Base::scalar : PlannedView::Base::root;
    view.base = base->trace_index;
  }
  const ir::Node* failed = nullptr;
  view.layout = *fuse::compose_views(base_layout, views, &failed);
  return view;
}

}  // namespace

std::shared_ptr<const Plan> build_plan(const ir::Trace& trace, const std::vector<bool>& live,
                                       bool fusion, bool fast, Device* device, int arch) {
  std::span<const ir::NodePtr> pending = trace.pending();
  std::span<const ir::NodePtr> externals = trace.externals();
  fuse::Partition partition = fuse::partition(pending, live, externals, {fusion});
  auto plan = std::make_shared<Plan>();
  if (ir::debug_level() >= 2) plan->partition_text = partition.describe(pending);

  Counters& stats = counters();
  std::vector<codegen::GeneratedKernel> kernels;
  for (const fuse::Region& region : partition.regions) {
    kernels.push_back(codegen::generate_kernel(region, pending, externals, {.fast_math = fast}));
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
    planned.bytes_moved = fewest_bytes(region, kernel, pending, externals);
    for (const fuse::Root& root : region.roots) {
      const ir::Node& node = root.external_copy ? *externals[root.node] : *pending[root.node];
      planned.outputs.push_back({root.node, root.external_copy, node.dtype, node.shape.numel()});
    }
    if (k < lookups.size()) {
      jit::KernelCache::Lookup& lookup = lookups[k];
      from[int(lookup.origin)]++;
      if (lookup.origin != jit::KernelCache::Origin::memory && ir::debug_level() >= 1) {
        ir::debug_print("lazyfuse: generated kernel " + kernel.name + "\n" + kernel.source);
      }
      if (device != nullptr) {
        planned.function = load_function(*device, kernel, lookup, arch);
        device->label_kernel(planned.function, kernel_label(kernel.name, region, pending));
      }
    }
    planned.args = kernel.args;
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
  for (std::uint32_t i = 0; i < pending.size(); ++i) {
    if (live[i] && partition.region_of[i] >= 0) plan->live_roots.push_back(i);
  }
  for (std::uint32_t v : partition.live_views)
    plan->live_views.push_back(plan_view(v, pending, externals));
  plan->live_scalars = partition.live_scalars;
  // The last kernel that reads each intermediate root (or writes it, if none reads it).
  absl::flat_hash_map<std::uint32_t, std::size_t> last_use;
  for (std::size_t k = 0; k < partition.regions.size(); ++k) {
    for (const fuse::Root& root : partition.regions[k].roots)
      if (!root.external_copy && !live[root.node]) last_use[root.node] = k;
    for (const fuse::Term& term : partition.regions[k].terms)
      if (term.kind == fuse::Term::Kind::load && !term.external && !live[term.source]) {
        last_use[term.source] = k;
      }
  }
  for (const PlannedView& view : plan->live_views)
    if (view.base_kind == PlannedView::Base::root) last_use.erase(view.base);
  for (const auto& [node, k] : last_use) plan->kernels[k].release_after.push_back(node);
  return plan;
}

}  // namespace lazy::runtime
