#include "runtime/size_variants.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "ir/settings.h"

namespace lazy::runtime {

namespace {

std::atomic<bool> all_at_run_time{false};

// The sizes each structure (its run-time kernel's name) is compiled for.
class Variants {
 public:
  // Whether the structure named `any_size` is compiled for `sizes` (and counts them if so), when
  // a structure is compiled for at most `per_structure` distinct sizes.
  bool specialize(const std::string& any_size, const std::vector<std::int64_t>& sizes,
                  std::size_t per_structure) {
    if (per_structure == 0 || all_at_run_time.load(std::memory_order_relaxed)) return false;
    // Only plan misses come here, so one lock is cheap.
    std::lock_guard lock(mutex_);
    std::vector<std::vector<std::int64_t>>& known = sizes_[any_size];
    if (std::find(known.begin(), known.end(), sizes) != known.end()) return true;
    if (known.size() >= per_structure) return false;
    known.push_back(sizes);
    return true;
  }

 private:
  std::mutex mutex_;
  absl::flat_hash_map<std::string, std::vector<std::vector<std::int64_t>>> sizes_;
};

Variants& variants() {
  static Variants* instance = new Variants();  // used by syncs until exit
  return *instance;
}

std::size_t setting(ir::Setting setting) {
  return std::size_t(ir::integer_setting(setting));
}

}  // namespace

codegen::GeneratedKernel kernel_variant(const fuse::Region& region,
                                        std::span<const ir::NodePtr> nodes,
                                        std::span<const ir::NodePtr> externals, bool fast) {
  if (!region.row && !region.matmul)
    return codegen::generate_kernel(region, nodes, externals, {.fast_math = fast});
  // After a row structure's first length the run-time kernel's text is cached
  // (codegen/kernel_sources.h), and a skinny product's text is short: naming the structure costs
  // little.
  codegen::GeneratedKernel any_size = codegen::generate_kernel(
      region, nodes, externals, {.fast_math = fast, .sizes_at_run_time = true});
  static const std::size_t row_lengths = setting(ir::Setting::specialized_row_lengths);
  static const std::size_t product_shapes = setting(ir::Setting::specialized_product_shapes);
  bool specialize = false;
  if (region.row) {
    specialize = variants().specialize(any_size.name, {region.row->extent}, row_lengths);
  } else {
    const ir::MatmulProblem& p = region.matmul->problem;
    specialize = variants().specialize(any_size.name, {p.m, p.k, p.a.ld, p.b.ld}, product_shapes);
  }
  if (!specialize) return any_size;
  return codegen::generate_kernel(region, nodes, externals, {.fast_math = fast});
}

void set_all_sizes_at_run_time(bool enabled) {
  all_at_run_time.store(enabled, std::memory_order_relaxed);
}

}  // namespace lazy::runtime
