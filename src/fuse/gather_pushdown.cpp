#include "fuse/gather_pushdown.h"

#include <algorithm>
#include <vector>

#include "fuse/view_layout.h"
#include "ir/gather.h"
#include "ir/op.h"

namespace lazy::fuse {

namespace {

// Recomputing more than this per picked element costs more than writing the source.
constexpr int kMaxPushedNodes = 48;

}  // namespace

bool gather_pushes_down(const ir::Node& source) {
  // A source that is itself a written value (under views) is read from memory as it is: its
  // kernel writes it only where a cut asks (lazyfuse-fuzz seed 14501 program 61: a gather of an
  // argmax left the argmax's row kernel with nothing to write).
  const ir::OpKind base_kind = ir::op_kind(view_chain(source).base->op);
  if (base_kind != ir::OpKind::pointwise && base_kind != ir::OpKind::copy) return false;
  std::vector<const ir::Node*> stack{&source};
  int visited = 0;
  while (!stack.empty()) {
    const ir::Node* node = stack.back();
    stack.pop_back();
    if (!node->is_pending()) continue;
    switch (ir::op_kind(node->op)) {
      case ir::OpKind::reduction:
      case ir::OpKind::matmul:
      case ir::OpKind::scan:
      case ir::OpKind::top_k:
      case ir::OpKind::scatter:
      case ir::OpKind::leaf:
        continue;  // written by their own kernels, or a scalar
      case ir::OpKind::pointwise:
      case ir::OpKind::view:
      case ir::OpKind::copy:
        break;
      case ir::OpKind::generator:
      case ir::OpKind::gather:
      case ir::OpKind::concat:
        return false;
    }
    if (++visited > kMaxPushedNodes) return false;
    for (ir::Node* input : node->inputs) stack.push_back(input);
  }
  return true;
}

std::optional<GatheredLayout> compose_through_gather(const ir::Layout& base,
                                                     std::span<const ir::Node* const> views,
                                                     const ir::Node** failed_view) {
  const auto marker = std::find_if(views.begin(), views.end(),
                                   [](const ir::Node* v) { return v->op == ir::Op::Gather; });
  if (marker == views.end()) {
    std::optional<ir::Layout> layout = compose_views(base, views, failed_view);
    if (!layout) return std::nullopt;
    return GatheredLayout{*layout, std::nullopt};
  }
  const std::size_t at = std::size_t(marker - views.begin());
  std::optional<ir::Layout> source = compose_views(base, views.subspan(at + 1), failed_view);
  if (!source) return std::nullopt;
  const ir::Node& gather = **marker;
  const int axis = ir::gather_axis(gather);
  ir::Layout picked = *source;
  picked.shape = gather.shape;
  picked.strides[axis] = 0;
  std::optional<ir::Layout> layout = compose_views(picked, views.first(at), failed_view);
  if (!layout) return std::nullopt;
  return GatheredLayout{*layout, PushedGather{&gather, source->strides[axis], source->shape[axis]}};
}

}  // namespace lazy::fuse
