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
// Elements after the axis that make a line worth a warp: its run is searched once for them all.
constexpr std::int64_t kMinSharedLine = 32;

constexpr std::pair<ir::ScatterInput, const char*> kInputs[] = {{ir::scatter_x, "x"},
                                                                {ir::scatter_sorted_index, "index"},
                                                                {ir::scatter_order, "order"},
                                                                {ir::scatter_src, "src"}};

class ScatterEmitter {
 public:
  ScatterEmitter(const fuse::Region& region, std::span<const ir::NodePtr> pending,
                 std::span<const ir::NodePtr> externals)
      : region_(region),
        node_(*pending[region.scatter->node]),
        builder_(region, pending, externals, {}) {}

  GeneratedKernel run() {
    const Shape& shape = node_.shape;
    inner_ = 1;
    for (int d = axis_ + 1; d < shape.rank(); ++d) inner_ *= shape[d];
    const bool lines = shares_runs_along_lines();
    builder_.constant("n", std::uint64_t(shape.numel()));
    builder_.constant("extent", std::uint64_t(shape[axis_]));
    builder_.constant("count", std::uint64_t(index_shape()[axis_]));
    if (lines) builder_.constant("inner", std::uint64_t(inner_));
    for (const auto& [input, name] : kInputs) {
      builder_.constant(cat(name, "_at"), std::uint64_t(layout(input).offset));
      if (input != ir::scatter_x)
        builder_.constant(cat(name, "_along"), std::uint64_t(layout(input).strides[axis_]));
    }
    // A line kernel walks the axis and those before it per block ("rest"), the ones after it per
    // element ("rest_e"); the element kernel walks every axis per element.
    const std::string walk = lines ? walk_axes(0, axis_ + 1, "rest", "_at", "    ")
                                   : walk_axes(0, shape.rank(), "rest", "_at", "    ");
    const std::string inner_walk =
        lines ? walk_axes(axis_ + 1, shape.rank(), "rest_e", "_e", "      ") : "";
    for (const auto& [input, name] : kInputs) {
      bool first = true;  // an input read twice (x as src) is one term, declared once
      for (const auto& [other, other_name] : kInputs)
        if (other < input && term(other) == term(input)) first = false;
      if (first) builder_.input_pointer(term(input));
    }
    builder_.index_site("site", region_.scatter->node);
    builder_.output_pointer(0);
    const std::string x_at = lines ? "x_e" : "x_at", src_at = lines ? "src_e" : "src_at";
    const DType dtype = node_.dtype;
    const bool floating = is_floating(dtype);
    const Substitutions substitutions = {
        {"$ARGS", builder_.args_text()},
        {"$THREADS", std::to_string(kThreads)},
        {"$ACC", floating ? "float" : "long long"},
        {"$WALK", trimmed(walk)},
        {"$INNER_WALK", trimmed(inner_walk)},
        {"$INDEX_POINTER", input_name(term(ir::scatter_sorted_index))},
        {"$ORDER_POINTER", input_name(term(ir::scatter_order))},
        {"$X", load_conversion(dtype, cat(input_name(term(ir::scatter_x)), "[", x_at, "]"))},
        {"$SRC", load_conversion(dtype, cat(input_name(term(ir::scatter_src)), "[", src_at,
                                            " + from * a.src_along]"))},
        {"$FOLD", node_.op != ir::Op::ScatterAdd ? "acc = v"
                  : floating                     ? "acc = acc + v"
                                                 : "acc = lz_wrap_add(acc, v)"},
        {"$OUT", output_name(0)},
        {"$STORE", floating              ? store_conversion(dtype, "acc")
                   : dtype == DType::i32 ? std::string("(int)acc")
                   : dtype == DType::i64 ? std::string("acc")
                                         : store_conversion(dtype, "(acc != 0)")}};
    const std::string skeleton = lines ? "scatter_lines_skeleton.cuh" : "scatter_skeleton.cuh";
    const std::string body =
        absl::StrReplaceAll(std::string(template_text(skeleton)), substitutions);
    std::vector<std::string> leading = {lower(ir::op_name(node_.op))};
    if (lines) leading.push_back("lines");
    GeneratedKernel kernel = builder_.finish(
        cat("// lazyfuse: ", ir::scatter_caller_name(node_), " along axis ", axis_, " of ",
            shape.rank(), " dim(s)", lines ? ", a warp per line" : "", "\n", body),
        "lz_", std::move(leading));
    kernel.numel = kernel.written = shape.numel();
    kernel.vector_width = 1;
    kernel.blocks = lines ? grid_blocks(shape.numel() / inner_, kThreads / 32)
                          : grid_blocks(kernel.numel, kThreads);
    kernel.threads = kThreads;
    return kernel;
  }

 private:
  std::size_t term(ir::ScatterInput input) const {
    return std::size_t(region_.scatter->input_terms[input]);
  }
  const ir::Layout& layout(ir::ScatterInput input) const {
    return region_.terms[term(input)].layout;
  }
  const Shape& index_shape() const { return layout(ir::scatter_sorted_index).shape; }

  // Whether the elements after the axis share their run of the sorted index (index_add's index,
  // broadcast along them), enough of them that a warp per line pays.
  bool shares_runs_along_lines() const {
    if (inner_ < kMinSharedLine) return false;
    for (int d = axis_ + 1; d < node_.shape.rank(); ++d) {
      if (layout(ir::scatter_sorted_index).strides[d] != 0 ||
          layout(ir::scatter_order).strides[d] != 0 || index_shape()[d] != node_.shape[d])
        return false;
    }
    return true;
  }

  // Statements walking axes [begin, end), innermost first, from `rest`: x's offset (and along the
  // scatter's axis, p), the index's, order's and src's along the others, and whether the index
  // reaches them. The outermost axis walked takes what is left, with no division.
  std::string walk_axes(int begin, int end, std::string_view rest, std::string_view suffix,
                        std::string_view indent) {
    std::string walk;
    for (int d = end - 1; d >= begin; --d) {
      builder_.constant(cat("size", d), std::uint64_t(node_.shape[d]));
      append(walk, indent, "{\n", indent, "  const long long c = ");
      if (d == begin) {
        append(walk, rest, ";\n");
      } else {
        append(walk, rest, " % a.size", d, ";\n", indent, "  ", rest, " /= a.size", d, ";\n");
      }
      for (const auto& [input, name] : kInputs) {
        if (d == axis_ && input != ir::scatter_x) continue;
        // An element walk moves only x and src: the index's run is the line's.
        if (suffix == "_e" && (input == ir::scatter_sorted_index || input == ir::scatter_order))
          continue;
        builder_.constant(cat(name, "_stride", d), std::uint64_t(layout(input).strides[d]));
        append(walk, indent, "  ", name, suffix, " += c * a.", name, "_stride", d, ";\n");
      }
      if (d == axis_) {
        append(walk, indent, "  p = c;\n");
      } else if (suffix != "_e") {
        builder_.constant(cat("index_size", d), std::uint64_t(index_shape()[d]));
        append(walk, indent, "  in_index = in_index && c < a.index_size", d, ";\n");
      }
      append(walk, indent, "}\n");
    }
    return walk;
  }

  static std::string trimmed(std::string text) {
    if (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
  }

  const fuse::Region& region_;
  const ir::Node& node_;
  KernelBuilder builder_;
  const int axis_ = ir::scatter_axis(node_);
  std::int64_t inner_ = 1;  // elements after the axis
};

}  // namespace

GeneratedKernel generate_scatter_kernel(const fuse::Region& region,
                                        std::span<const ir::NodePtr> pending,
                                        std::span<const ir::NodePtr> externals) {
  return ScatterEmitter(region, pending, externals).run();
}

}  // namespace lazy::codegen
