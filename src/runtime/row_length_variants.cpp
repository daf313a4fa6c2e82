#include "runtime/row_length_variants.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "ir/hash.h"
#include "ir/settings.h"

namespace lazy::runtime {

namespace {

std::atomic<bool> all_at_run_time{false};

// What a row kernel computes, without any size: its terms' kinds, ops, dtypes and operands,
// its reductions and roots. Two lengths of one structure have one outline. It only decides
// which variant is generated first (generating both costs a plan miss twice the codegen),
// never which one runs.
ir::Hash128 outline(const fuse::Region& region, std::span<const ir::NodePtr> nodes) {
  std::vector<std::uint64_t> words;
  for (const fuse::Term& term : region.terms) {
    std::uint64_t word = std::uint64_t(term.kind) | std::uint64_t(term.external) << 8 |
                         std::uint64_t(term.n_operands) << 16;
    if (!term.external && term.kind != fuse::Term::Kind::load) {
      const ir::Node& node = *nodes[term.source];
      word |= std::uint64_t(node.op) << 24 | std::uint64_t(node.dtype) << 40;
    }
    words.push_back(word);
    for (int i = 0; i < term.n_operands; ++i) words.push_back(std::uint64_t(term.operands[i]));
  }
  for (std::uint32_t reduction : region.row->reductions) words.push_back(reduction);
  for (const fuse::Root& root : region.roots) words.push_back(root.node << 1 | root.per_row);
  return ir::hash_words(words);
}

class Variants {
 public:
  // Whether the structure named `any_length` is compiled for `extent` (and counts it if so).
  bool specialize(const std::string& any_length, std::int64_t extent) {
    static const auto lengths_per_structure =
        std::size_t(ir::integer_setting(ir::Setting::specialized_row_lengths));
    if (lengths_per_structure == 0 || all_at_run_time.load(std::memory_order_relaxed)) return false;
    std::lock_guard lock(mutex_);
    std::vector<std::int64_t>& lengths = lengths_[any_length];
    if (std::find(lengths.begin(), lengths.end(), extent) != lengths.end()) return true;
    if (lengths.size() >= lengths_per_structure) return false;
    lengths.push_back(extent);
    return true;
  }
  void chose(const std::string& fixed_length) {
    std::lock_guard lock(mutex_);
    chosen_.insert(fixed_length);
  }
  bool chosen(const std::string& fixed_length) {
    std::lock_guard lock(mutex_);
    return chosen_.contains(fixed_length);
  }
  void took_run_time(const ir::Hash128& outline) {
    std::lock_guard lock(mutex_);
    run_time_outlines_.insert(outline);
  }
  bool takes_run_time(const ir::Hash128& outline) {
    std::lock_guard lock(mutex_);
    return run_time_outlines_.contains(outline);
  }

 private:
  // Only plan misses come here, so one lock is cheap.
  std::mutex mutex_;
  absl::flat_hash_map<std::string, std::vector<std::int64_t>> lengths_;
  absl::flat_hash_set<std::string> chosen_;  // kernels compiled for a length, by name
  absl::flat_hash_set<ir::Hash128> run_time_outlines_;
};

Variants& variants() {
  static Variants* instance = new Variants();  // used by syncs until exit
  return *instance;
}

}  // namespace

codegen::GeneratedKernel row_kernel_variant(const fuse::Region& region,
                                            std::span<const ir::NodePtr> nodes,
                                            std::span<const ir::NodePtr> externals, bool fast) {
  const codegen::CodegenOptions fixed{.fast_math = fast};
  const codegen::CodegenOptions any{.fast_math = fast, .row_length_at_run_time = true};
  const std::int64_t extent = region.row->extent;
  Variants& known = variants();
  const ir::Hash128 shape_free = outline(region, nodes);
  if (!all_at_run_time.load(std::memory_order_relaxed) && !known.takes_run_time(shape_free)) {
    // Likely a length this structure is compiled for: that kernel first.
    codegen::GeneratedKernel kernel = codegen::generate_kernel(region, nodes, externals, fixed);
    if (known.chosen(kernel.name)) return kernel;
    codegen::GeneratedKernel any_length = codegen::generate_kernel(region, nodes, externals, any);
    if (known.specialize(any_length.name, extent)) {
      known.chose(kernel.name);
      return kernel;
    }
    known.took_run_time(shape_free);
    return any_length;
  }
  codegen::GeneratedKernel any_length = codegen::generate_kernel(region, nodes, externals, any);
  if (!known.specialize(any_length.name, extent)) return any_length;
  codegen::GeneratedKernel kernel = codegen::generate_kernel(region, nodes, externals, fixed);
  known.chose(kernel.name);
  return kernel;
}

void set_all_row_lengths_at_run_time(bool enabled) {
  all_at_run_time.store(enabled, std::memory_order_relaxed);
}

}  // namespace lazy::runtime
