#include "codegen/scan_kernel.h"

#include "codegen/generated_names.h"
#include "codegen/op_expressions.h"
#include "codegen/reduction_folds.h"
#include "codegen/text.h"

namespace lazy::codegen {

Substitutions scan_substitutions(const fuse::Region& region, std::span<const ir::NodePtr> pending,
                                 std::string element, DType value_dtype, const std::string& value) {
  const ir::Node& first = *pending[region.roots[0].node];
  const Fold fold = fold_of(first);
  bool positional = false;
  std::string stores;
  for (std::size_t r = 0; r < region.roots.size(); ++r) {
    const ir::Node& node = *pending[region.roots[r].node];
    const Fold own = fold_of(node);
    positional = positional || own.positional;
    append(stores, "        ", output_name(r),
           "[i] = ", store_conversion(node.dtype, fold_result(node, own, "acc", "at")), ";\n");
  }
  if (!element.empty() && element.back() == '\n') element.pop_back();
  stores.pop_back();
  // Eight 4-byte values per thread (four 8-byte ones): a 256-thread block scans 2048 (1024)
  // elements per tile between barriers, in 8 KiB of shared memory.
  const int items = fold.acc_type == "long long" ? 4 : 8;
  return {{"$ACC", fold.acc_type},
          {"$ITEMS", std::to_string(items)},
          {"$INIT", fold.identity},
          {"$FOLD", fold.function},
          {"$ELEMENT", std::move(element)},
          {"$VALUE", fold_input(first, fold, value_dtype, value)},
          {"$POSITIONS_SIZE", positional ? "kTile + kTile / 32" : "1"},
          {"$POSITIONS", positional ? "tile_positions" : "(long long*)nullptr"},
          {"$AT", positional ? "tile_positions[lz_tile_slot(k)]" : "-1"},
          {"$STORES", std::move(stores)}};
}

}  // namespace lazy::codegen
