#include "codegen/scatter_kernel.h"

#include <string>
#include <utility>

#include <absl/strings/str_replace.h>

#include "codegen/generated_names.h"
#include "codegen/kernel_builder.h"
#include "codegen/op_expressions.h"
#include "codegen/templates.h"
#include "codegen/text.h"
#include "ir/scatter.h"

namespace lazy::codegen {

namespace {

constexpr int kThreads = 256;

}  // namespace

GeneratedKernel generate_scatter_kernel(const fuse::Region& region,
                                        std::span<const ir::NodePtr> pending,
                                        std::span<const ir::NodePtr> externals) {
  const ir::Node& node = *pending[region.scatter->node];
  const std::vector<std::int32_t>& inputs = region.scatter->input_terms;
  const auto term = [&](ir::ScatterInput input) { return std::size_t(inputs[input]); };
  const auto layout = [&](ir::ScatterInput input) -> const ir::Layout& {
    return region.terms[term(input)].layout;
  };
  const int rank = node.shape.rank(), axis = ir::scatter_axis(node);
  const Shape& index_shape = layout(ir::scatter_sorted_index).shape;
  KernelBuilder builder(region, pending, externals, {});
  builder.constant("n", std::uint64_t(node.shape.numel()));
  builder.constant("extent", std::uint64_t(node.shape[axis]));
  builder.constant("count", std::uint64_t(index_shape[axis]));
  const std::pair<ir::ScatterInput, const char*> named[] = {{ir::scatter_x, "x"},
                                                            {ir::scatter_sorted_index, "index"},
                                                            {ir::scatter_order, "order"},
                                                            {ir::scatter_src, "src"}};
  for (const auto& [input, name] : named) {
    builder.constant(cat(name, "_at"), std::uint64_t(layout(input).offset));
    if (input != ir::scatter_x)
      builder.constant(cat(name, "_along"), std::uint64_t(layout(input).strides[axis]));
  }
  // The coordinates, innermost first: x's offset along every axis, p along the scatter's; the
  // index, order and src offsets along the others, which the index may not reach.
  std::string walk;
  for (int d = rank - 1; d >= 0; --d) {
    builder.constant(cat("size", d), std::uint64_t(node.shape[d]));
    append(walk, "    {\n      const long long c = rest % a.size", d, ";\n      rest /= a.size", d,
           ";\n");
    for (const auto& [input, name] : named) {
      if (d == axis && input != ir::scatter_x) continue;
      builder.constant(cat(name, "_stride", d), std::uint64_t(layout(input).strides[d]));
      append(walk, "      ", name, "_at += c * a.", name, "_stride", d, ";\n");
    }
    if (d == axis) {
      append(walk, "      p = c;\n    }\n");
    } else {
      builder.constant(cat("index_size", d), std::uint64_t(index_shape[d]));
      append(walk, "      in_index = in_index && c < a.index_size", d, ";\n    }\n");
    }
  }
  for (const auto& [input, name] : named) {
    // An input read twice (the same tensor as x and src) is one term, declared once.
    bool first = true;
    for (const auto& [other, other_name] : named)
      if (other < input && term(other) == term(input)) first = false;
    if (first) builder.input_pointer(term(input));
  }
  builder.index_site("site", region.scatter->node);
  builder.output_pointer(0);
  const DType dtype = node.dtype;
  const bool floating = is_floating(dtype);
  const std::string store = floating              ? store_conversion(dtype, "acc")
                            : dtype == DType::i32 ? std::string("(int)acc")
                            : dtype == DType::i64 ? std::string("acc")
                                                  : store_conversion(dtype, "(acc != 0)");
  const Substitutions substitutions = {
      {"$ARGS", builder.args_text()},
      {"$THREADS", std::to_string(kThreads)},
      {"$ACC", floating ? "float" : "long long"},
      {"$WALK", walk.empty() ? std::string() : walk.substr(0, walk.size() - 1)},
      {"$INDEX_POINTER", input_name(term(ir::scatter_sorted_index))},
      {"$ORDER_POINTER", input_name(term(ir::scatter_order))},
      {"$X", load_conversion(dtype, cat(input_name(term(ir::scatter_x)), "[x_at]"))},
      {"$SRC", load_conversion(
                   dtype, cat(input_name(term(ir::scatter_src)), "[src_at + from * a.src_along]"))},
      {"$FOLD", node.op == ir::Op::ScatterAdd ? "acc = acc + v" : "acc = v"},
      {"$OUT", output_name(0)},
      {"$STORE", store}};
  const std::string body =
      absl::StrReplaceAll(std::string(template_text("scatter_skeleton.cuh")), substitutions);
  GeneratedKernel kernel =
      builder.finish(cat("// lazyfuse: ", ir::scatter_caller_name(node), " along axis ", axis,
                         " of ", rank, " dim(s)\n", body),
                     "lz_", {lower(ir::op_name(node.op))});
  kernel.numel = kernel.written = node.shape.numel();
  kernel.vector_width = 1;
  kernel.blocks = grid_blocks(kernel.numel, kThreads);
  kernel.threads = kThreads;
  return kernel;
}

}  // namespace lazy::codegen
