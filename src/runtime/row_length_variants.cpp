#include "runtime/row_length_variants.h"

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

// The row lengths each structure (its run-time kernel's name) is compiled for.
class Variants {
 public:
  // Whether the structure named `any_length` is compiled for `extent` (and counts it if so).
  bool specialize(const std::string& any_length, std::int64_t extent) {
    static const auto lengths_per_structure =
        std::size_t(ir::integer_setting(ir::Setting::specialized_row_lengths));
    if (lengths_per_structure == 0 || all_at_run_time.load(std::memory_order_relaxed)) return false;
    // Only plan misses come here, so one lock is cheap.
    std::lock_guard lock(mutex_);
    std::vector<std::int64_t>& lengths = lengths_[any_length];
    if (std::find(lengths.begin(), lengths.end(), extent) != lengths.end()) return true;
    if (lengths.size() >= lengths_per_structure) return false;
    lengths.push_back(extent);
    return true;
  }

 private:
  std::mutex mutex_;
  absl::flat_hash_map<std::string, std::vector<std::int64_t>> lengths_;
};

Variants& variants() {
  static Variants* instance = new Variants();  // used by syncs until exit
  return *instance;
}

}  // namespace

codegen::GeneratedKernel row_kernel_variant(const fuse::Region& region,
                                            std::span<const ir::NodePtr> nodes,
                                            std::span<const ir::NodePtr> externals, bool fast) {
  // After a structure's first length the run-time kernel's text is cached
  // (codegen/kernel_sources.h): naming the structure costs only its arguments.
  codegen::GeneratedKernel any_length = codegen::generate_kernel(
      region, nodes, externals, {.fast_math = fast, .row_length_at_run_time = true});
  if (!variants().specialize(any_length.name, region.row->extent)) return any_length;
  return codegen::generate_kernel(region, nodes, externals, {.fast_math = fast});
}

void set_all_row_lengths_at_run_time(bool enabled) {
  all_at_run_time.store(enabled, std::memory_order_relaxed);
}

}  // namespace lazy::runtime
