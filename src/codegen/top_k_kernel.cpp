#include "codegen/top_k_kernel.h"

#include <algorithm>

#include "codegen/generated_names.h"
#include "codegen/op_expressions.h"
#include "codegen/text.h"

namespace lazy::codegen {

namespace {

bool sorts_rows(const fuse::TopKInfo& top_k) {
  return top_k.k > kMaxSelected;
}

// A sort's block holds two runs of (8-byte key, 4-byte position) per element of its row.
std::int64_t sort_bytes_per_block(const fuse::TopKInfo& top_k) {
  return top_k.extent > kSortTile ? top_k.extent * 2 * 12 : 0;
}

}  // namespace

const char* top_k_skeleton(const fuse::TopKInfo& top_k) {
  return sorts_rows(top_k) ? "sort_skeleton.cuh" : "topk_skeleton.cuh";
}

std::int64_t top_k_blocks(const fuse::TopKInfo& top_k) {
  const std::int64_t rows = grid_blocks(top_k.rows, 1);
  const std::int64_t per_block = sorts_rows(top_k) ? sort_bytes_per_block(top_k) : 0;
  if (per_block == 0) return rows;
  return std::clamp<std::int64_t>(kSortScratchBytes / per_block, 1, rows);
}

void declare_top_k_args(const fuse::TopKInfo& top_k, KernelBuilder& builder) {
  builder.constant("k", std::uint64_t(top_k.k));
  if (sorts_rows(top_k))
    builder.scratch("scratch", std::uint64_t(top_k_blocks(top_k) * sort_bytes_per_block(top_k)));
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
