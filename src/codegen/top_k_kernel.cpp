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

int merge_passes(std::int64_t extent) {
  int passes = 0;
  for (std::int64_t width = kSortTile; width < extent; width *= 2) ++passes;
  return passes;
}

// A sort's rows whose runs, two of (8-byte key, 4-byte position) per element, fit the scratch.
std::int64_t chunk_rows(const fuse::TopKInfo& top_k) {
  if (top_k.extent <= kSortTile) return std::max<std::int64_t>(top_k.rows, 1);
  return std::clamp<std::int64_t>(kSortScratchBytes / (top_k.extent * 24), 1,
                                  std::max<std::int64_t>(top_k.rows, 1));
}

}  // namespace

const char* top_k_skeleton(const fuse::TopKInfo& top_k) {
  return sorts_rows(top_k) ? "sort_skeleton.cuh" : "topk_skeleton.cuh";
}

std::int64_t top_k_blocks(const fuse::TopKInfo& top_k) {
  if (!sorts_rows(top_k)) return grid_blocks(top_k.rows, 1);
  return grid_blocks(chunk_rows(top_k) * ir::ceil_div(top_k.extent, kSortTile), 1);
}

int top_k_launches(const fuse::TopKInfo& top_k) {
  if (!sorts_rows(top_k)) return 1;
  return int(ir::ceil_div(top_k.rows, chunk_rows(top_k))) * (1 + merge_passes(top_k.extent));
}

void declare_top_k_args(const fuse::TopKInfo& top_k, KernelBuilder& builder) {
  builder.constant("k", std::uint64_t(top_k.k));
  if (!sorts_rows(top_k)) return;
  builder.constant("chunk_rows", std::uint64_t(chunk_rows(top_k)));
  const bool merges = top_k.extent > kSortTile;
  builder.scratch("scratch", merges ? std::uint64_t(chunk_rows(top_k) * top_k.extent * 24) : 0);
  builder.launch_index("launch");
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
  return {{"$ACC", acc},
          {"$ELEMENT", std::move(element)},
          // Ordered as stored: an f16 or bf16 value unrounded would order values that tie.
          {"$KEY", cat(complement, "lz_order_key((Acc)",
                       convert(value_dtype, compute, as_stored(value_dtype, value)), ")")},
          {"$FROM_KEY", cat(complement, "keys[j]")},
          {"$STORES", std::move(stores)}};
}

}  // namespace lazy::codegen
