#include "runtime/size_variants.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "codegen/concat_parts.h"
#include "codegen/row_kernel_emitter.h"
#include "ir/hash.h"
#include "ir/settings.h"

namespace lazy::runtime {

namespace {

std::atomic<bool> all_at_run_time{false};

// The sizes each structure (a row structure's key, or its run-time kernel's name) is compiled
// for.
class Variants {
 public:
  // Whether the structure `structure` is compiled for `sizes` (and counts them if so), when a
  // structure is compiled for at most `per_structure` distinct sizes.
  bool specialize(const std::string& structure, const std::vector<std::int64_t>& sizes,
                  std::size_t per_structure) {
    if (per_structure == 0 || all_at_run_time.load(std::memory_order_relaxed)) return false;
    // Only plan misses come here, so one lock is cheap.
    std::lock_guard lock(mutex_);
    std::vector<std::vector<std::int64_t>>& known = sizes_[structure];
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
  const bool concatenations = codegen::several_concatenations(region);
  if (!region.row && !region.matmul && !concatenations)
    return codegen::generate_kernel(region, nodes, externals, {.fast_math = fast});
  const codegen::CodegenOptions fixed_sizes{.fast_math = fast};
  const codegen::CodegenOptions sizes_at_run_time{.fast_math = fast, .sizes_at_run_time = true};
  static const std::size_t row_lengths = setting(ir::Setting::specialized_row_lengths);
  static const std::size_t product_shapes = setting(ir::Setting::specialized_product_shapes);
  static const std::size_t concat_shapes = setting(ir::Setting::specialized_concat_shapes);
  if (region.row) {
    // A row structure is named by its key (row kernels of every length, vector width and way of
    // reading the row share it). A text that is not cached has no key: its run-time kernel is
    // generated to learn its name, which names the vector width and way of reading too. Otherwise
    // the run-time kernel is generated only when it is the one returned.
    const std::vector<std::int64_t> length = {region.row->extent};
    std::optional<bool> specialize;
    std::optional<codegen::GeneratedKernel> any_size = codegen::generate_row_kernel_if(
        region, nodes, externals, sizes_at_run_time,
        [&](const std::optional<ir::Hash128>& structure) {
          if (structure)
            specialize = variants().specialize("row " + structure->to_hex(), length, row_lengths);
          return !specialize.value_or(false);
        });
    if (!specialize) specialize = variants().specialize(any_size->name, length, row_lengths);
    if (!*specialize) return std::move(*any_size);
    return codegen::generate_kernel(region, nodes, externals, fixed_sizes);
  }
  // A skinny product's text is short, and a plan miss of several concatenations rare: naming
  // the structure costs little.
  codegen::GeneratedKernel any_size =
      codegen::generate_kernel(region, nodes, externals, sizes_at_run_time);
  std::vector<std::int64_t> sizes;
  if (concatenations) {
    // Every size the kernel takes: those it compiles in.
    for (const codegen::ArgSource& arg : any_size.args)
      if (arg.kind == codegen::ArgSource::Kind::constant) sizes.push_back(std::int64_t(arg.value));
  } else {
    const ir::MatmulProblem& p = region.matmul->problem;
    sizes = {p.m, p.k, p.a.ld, p.b.ld};
  }
  if (!variants().specialize(any_size.name, sizes, concatenations ? concat_shapes : product_shapes))
    return any_size;
  return codegen::generate_kernel(region, nodes, externals, fixed_sizes);
}

void set_all_sizes_at_run_time(bool enabled) {
  all_at_run_time.store(enabled, std::memory_order_relaxed);
}

}  // namespace lazy::runtime
