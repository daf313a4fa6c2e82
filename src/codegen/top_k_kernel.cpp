#include "codegen/top_k_kernel.h"

#include "codegen/generated_names.h"
#include "codegen/op_expressions.h"
#include "codegen/text.h"

namespace lazy::codegen {

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
