#include "runtime/plan_indices.h"

#include "codegen/kernel_builder.h"
#include "fuse/view_layout.h"
#include "ir/gather.h"
#include "ir/index_faults.h"
#include "ir/scatter.h"

namespace lazy::runtime {

using codegen::ArgSource;

PlanIndices::PlanIndices(const fuse::Graph& graph, std::size_t recorded_count)
    : graph_(graph), index_(graph.size()) {
  auto next = std::uint32_t(recorded_count);
  for (std::size_t i = 0; i < graph.size(); ++i)
    index_[i] = added(std::uint32_t(i)) ? next++ : std::uint32_t(graph.recorded[i]);
}

ir::NodePtr detached_copy(const ir::Node& node) {
  ir::NodePtr copy = ir::make_node(node.op, node.dtype, node.shape, node.loc);
  copy->compute_dtype = node.compute_dtype;
  return copy;
}

namespace {

// Where a gather or scatter checks its index: the op the user called and the axis it picks along.
ir::IndexSite index_site_of(const ir::Node& node) {
  if (ir::op_kind(node.op) == ir::OpKind::scatter) {
    return {std::string(ir::scatter_caller_name(node)), node.shape[ir::scatter_axis(node)],
            node.loc, true};
  }
  return {std::string(ir::gather_caller_name(node)), node.inputs[0]->shape[ir::gather_axis(node)],
          node.loc};
}

}  // namespace

std::vector<ArgSource> plan_args(const std::vector<ArgSource>& args, const fuse::Graph& graph,
                                 const PlanIndices& index) {
  std::vector<ArgSource> planned = args;
  for (ArgSource& arg : planned) {
    const auto node = std::uint32_t(arg.value);
    switch (arg.kind) {
      case ArgSource::Kind::root_pointer:
        arg.value = index(node);
        break;
      case ArgSource::Kind::scalar_float:
      case ArgSource::Kind::scalar_int:
        // A rewrite's scalar depends on shapes only: the same on every replay of the plan.
        if (index.added(node)) {
          arg = {ArgSource::Kind::constant, codegen::scalar_argument(*graph.nodes[node])};
        } else {
          arg.value = index(node);
        }
        break;
      case ArgSource::Kind::index_site: {
        // Sites are numbered by process, kernels by structure: the number is an argument.
        const ir::Node& checked = *graph.nodes[node];
        arg = {ArgSource::Kind::constant, ir::register_index_site(index_site_of(checked))};
        break;
      }
      default:
        break;
    }
  }
  return planned;
}

PlannedView plan_view(std::uint32_t view, const fuse::Graph& graph,
                      std::span<const ir::NodePtr> externals, const PlanIndices& index) {
  const auto [base, views] = fuse::view_chain(*graph.nodes[view]);
  PlannedView planned{index(view), PlannedView::Base::root, 0, {}};
  ir::Layout base_layout = ir::Layout::contiguous(base->shape);
  if (!base->is_pending()) {
    planned.base_kind = PlannedView::Base::external;
    for (std::size_t slot = 0; slot < externals.size(); ++slot)
      if (externals[slot].get() == base) planned.base = std::uint32_t(slot);
    base_layout = base->data->layout;
  } else {
    planned.base_kind =
        base->op == ir::Op::Scalar ? PlannedView::Base::scalar : PlannedView::Base::root;
    planned.base = index(base->trace_index);
  }
  const ir::Node* failed = nullptr;
  planned.layout = *fuse::compose_views(base_layout, views, &failed);
  return planned;
}

}  // namespace lazy::runtime
