#include "codegen/top_k_kernel.h"

#include <algorithm>

#include "codegen/generated_names.h"
#include "codegen/op_expressions.h"
#include "codegen/text.h"
#include "ir/integer_math.h"

namespace lazy::codegen {

namespace {

bool sorts_rows(const fuse::TopKInfo& top_k) {
  return top_k.k > kMaxSelected;
}

// Two runs of (8-byte key, 4-byte position) per element sorted through global memory.
std::int64_t run_bytes(std::int64_t elements) {
  return elements * 2 * 12;
}

// Few rows longer than a tile sort in phases (sort_passes_skeleton.cuh), when all of them fit
// the scratch: a block per row would leave most of the GPU idle.
bool sorts_in_phases(const fuse::TopKInfo& top_k) {
  return sorts_rows(top_k) && top_k.extent > kSortTile && top_k.rows < kFewSortRows &&
         run_bytes(top_k.rows * top_k.extent) <= kSortScratchBytes;
}

int merge_passes(std::int64_t extent) {
  int passes = 0;
  for (std::int64_t width = kSortTile; width < extent; width *= 2) ++passes;
  return passes;
}

}  // namespace

const char* top_k_skeleton(const fuse::TopKInfo& top_k) {
  if (sorts_in_phases(top_k)) return "sort_passes_skeleton.cuh";
  return sorts_rows(top_k) ? "sort_skeleton.cuh" : "topk_skeleton.cuh";
}

std::int64_t top_k_blocks(const fuse::TopKInfo& top_k) {
  if (sorts_in_phases(top_k))
    return grid_blocks(top_k.rows * ir::ceil_div(top_k.extent, kSortTile), 1);
  const std::int64_t rows = grid_blocks(top_k.rows, 1);
  if (!sorts_rows(top_k) || top_k.extent <= kSortTile) return rows;
  return std::clamp<std::int64_t>(kSortScratchBytes / run_bytes(top_k.extent), 1, rows);
}

int top_k_launches(const fuse::TopKInfo& top_k) {
  return sorts_in_phases(top_k) ? 1 + merge_passes(top_k.extent) : 1;
}

void declare_top_k_args(const fuse::TopKInfo& top_k, KernelBuilder& builder) {
  builder.constant("k", std::uint64_t(top_k.k));
  if (!sorts_rows(top_k)) return;
  if (sorts_in_phases(top_k)) {
    builder.scratch("scratch", std::uint64_t(run_bytes(top_k.rows * top_k.extent)));
    builder.launch_index("phase");
  } else if (top_k.extent > kSortTile) {
    builder.scratch("scratch", std::uint64_t(top_k_blocks(top_k) * run_bytes(top_k.extent)));
  } else {
    builder.scratch("scratch", 0);
  }
}

Substitutions top_k_substitutions(const fuse::Region& region, std::span<const ir::NodePtr> pending,
                                  std::string element, DType value_dtype,
                                  const std::string& value) {
  const ir::Node& first = *pending[region.roots[0].node];
  const DType compute = first.compute_dtype;
  // Bool compares as an int; f16 and bf16 as the f32 they widen to exactly.
  const std::string acc = compute == DType::bool_ ? "int" : std::string(value_type(compute));
  std::string stores;
  for (std::size_t r = 0; r < region.roots.size(); ++r) {
    const ir::Node& node = *pending[region.roots[r].node];
    const std::string stored =
        node.op == ir::Op::TopKIndex
            ? std::string("at")
            : store_conversion(node.dtype, convert(compute, node.dtype, "value"));
    append(stores, "      ", output_name(r), "[o] = ", stored, ";\n");
  }
  if (!element.empty() && element.back() == '\n') element.pop_back();
  stores.pop_back();
  // The smallest are the largest of the complemented keys.
  const std::string complement = region.top_k->largest ? "" : "~";
  return {
      {"$ACC", acc},
      {"$ELEMENT", std::move(element)},
      {"$KEY", cat(complement, "lz_order_key((Acc)", convert(value_dtype, compute, value), ")")},
      {"$FROM_KEY", cat(complement, "keys[j]")},
      {"$STORES", std::move(stores)}};
}

}  // namespace lazy::codegen
