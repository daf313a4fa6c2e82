#include "autodiff/reverse_pass.h"

#include <algorithm>
#include <optional>
#include <utility>

#include <absl/container/flat_hash_map.h>

#include "api/composite_marks.h"
#include "api/recording.h"
#include "autodiff/composite_rules.h"
#include "autodiff/slice_pieces.h"
#include "autodiff/vjp_rules.h"
#include "ir/type_promotion.h"
#include "lazy/ops.h"
#include "lazy/reductions.h"

namespace lazy::autodiff {

namespace {

// Where a walk stands on one node: whether any input of the function reaches it.
struct Visit {
  bool depends = false;
};

// What the walk treats as a node's inputs: a marked composite's inputs in place of the
// primitives that computed it, else the node's own.
struct WalkedInputs {
  const ir::Node* node;
  const api::CompositeMark* mark = api::composite_mark(node);

  std::size_t size() const {
    if (mark == nullptr) return node->inputs.size();
    return 1 + std::size_t(mark->second.defined()) + std::size_t(mark->third.defined());
  }
  ir::Node* operator[](std::size_t i) const {
    if (mark == nullptr) return node->inputs[i];
    if (i == 0) return mark->input.node();
    return i == 1 && mark->second.defined() ? mark->second.node() : mark->third.node();
  }
};

// Nodes the outputs read that depend on an input, inputs before their readers. Stops at the
// inputs, at computed values and at stop_gradient; iterative, as chains may be very long.
std::vector<ir::Node*> dependent_nodes(std::span<const Tensor> outputs,
                                       const absl::flat_hash_map<const ir::Node*, int>& inputs,
                                       absl::flat_hash_map<const ir::Node*, Visit>& visits) {
  std::vector<ir::Node*> order;
  // A node on the walk's stack: what it reads, whether the walk stops there, the next input.
  struct Frame {
    ir::Node* node;
    WalkedInputs walked;
    bool leaf;
    std::size_t next = 0;
  };
  std::vector<Frame> stack;
  const ir::Trace* trace = &ir::Trace::current();
  const auto push = [&](ir::Node* node) {
    visits[node];
    const bool leaf = inputs.contains(node) || node->trace != trace || stops_gradient(*node);
    stack.push_back({node, WalkedInputs{node}, leaf});
  };
  for (const Tensor& output : outputs) {
    if (visits.contains(output.node())) continue;
    push(output.node());
    while (!stack.empty()) {
      Frame& frame = stack.back();
      if (!frame.leaf && frame.next < frame.walked.size()) {
        ir::Node* input = frame.walked[frame.next++];
        if (!visits.contains(input)) push(input);
        continue;
      }
      Visit& visit = visits[frame.node];
      visit.depends = inputs.contains(frame.node);
      for (std::size_t i = 0; !frame.leaf && i < frame.walked.size(); ++i)
        visit.depends = visit.depends || visits[frame.walked[i]].depends;
      if (visit.depends) order.push_back(frame.node);
      stack.pop_back();
    }
  }
  return order;
}

Tensor handle(ir::Node* node) {
  return Tensor(ir::NodePtr(node));
}

// `t` summed down to `shape`, which it broadcasts from (a 0-d tensor operand of a pointwise op is
// read without an Expand node).
Tensor sum_to(const Tensor& t, const Shape& shape, std::source_location loc) {
  const Shape& from = t.shape(loc);
  if (from == shape) return t;
  const int gained = from.rank() - shape.rank();
  std::vector<int> axes;
  for (int axis = 0; axis < from.rank(); ++axis)
    if (axis < gained || (shape[axis - gained] == 1 && from[axis] != 1)) axes.push_back(axis);
  return lazy::sum(t, Axes(axes), false, loc).reshape(shape, loc);
}

// A cotangent of `flowing` dtype is kept in the node's dtype, except that an Expand's is not
// narrowed until the Expand sums it down to its input, as PyTorch sums a broadcast gradient
// before casting it: rounded to a bf16 weight's dtype first, rows that nearly cancel lost their
// difference. A narrower one is widened first, as a cast's gradient is.
DType kept_dtype(const ir::Node& node, DType flowing) {
  return node.op == ir::Op::Expand ? ir::promote_types(node.dtype, flowing) : node.dtype;
}

// The cotangents gathered for each node until the walk reaches it: a sum, and the pieces its
// slices sent back, joined once (autodiff/slice_pieces.h).
class Cotangents {
 public:
  // Adds `more` into the cotangent kept for `node`, in the node's shape and kept_dtype.
  void add(ir::Node* node, Tensor more, std::source_location loc) {
    more = sum_to(more, node->shape, loc);
    if (const DType kept = kept_dtype(*node, more.dtype()); more.dtype() != kept)
      more = more.to(kept, loc);
    Tensor& kept = sums_[node];
    kept = kept.node() == nullptr ? std::move(more) : lazy::add(kept, more, loc);
  }

  void add_piece(ir::Node* node, SlicePiece piece, std::source_location loc) {
    if (const DType kept = kept_dtype(*node, piece.cotangent.dtype());
        piece.cotangent.dtype() != kept)
      piece.cotangent = piece.cotangent.to(kept, loc);
    pieces_[node].push_back(std::move(piece));
  }

  // The whole cotangent of `node`, undefined when none reached it; forgotten here.
  Tensor take(const ir::Node* node, std::source_location loc) {
    Tensor sum;
    if (auto found = sums_.find(node); found != sums_.end()) {
      sum = std::move(found->second);
      sums_.erase(found);
    }
    if (auto found = pieces_.find(node); found != pieces_.end()) {
      Tensor joined = join_pieces(std::move(found->second), *node, loc);
      pieces_.erase(found);
      sum = sum.node() == nullptr ? joined : lazy::add(sum, joined, loc);
    }
    return sum;
  }

 private:
  absl::flat_hash_map<const ir::Node*, Tensor> sums_;
  absl::flat_hash_map<const ir::Node*, std::vector<SlicePiece>> pieces_;
};

}  // namespace

std::vector<Tensor> backpropagate(std::span<const Tensor> outputs,
                                  std::span<const Tensor> cotangents,
                                  std::span<ir::Node* const> inputs, std::source_location call) {
  absl::flat_hash_map<const ir::Node*, int> input_index;
  for (std::size_t i = 0; i < inputs.size(); ++i) input_index.try_emplace(inputs[i], int(i));
  absl::flat_hash_map<const ir::Node*, Visit> visits;
  const std::vector<ir::Node*> order = dependent_nodes(outputs, input_index, visits);

  Cotangents kept;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    ir::Node* node = outputs[i].node();
    if (visits[node].depends && is_floating(node->dtype)) kept.add(node, cotangents[i], call);
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    ir::Node* node = *it;
    if (input_index.contains(node)) continue;
    const Tensor cotangent = kept.take(node, node->loc);
    if (cotangent.node() == nullptr || !is_floating(node->dtype)) continue;
    if (const api::CompositeMark* marked = api::composite_mark(node)) {
      // A copy: a rule written from marked composites (xlogy's is) adds marks, which may move
      // the map's entries.
      const api::CompositeMark mark = *marked;
      if (visits[mark.input.node()].depends) {
        kept.add(mark.input.node(), composite_vjp(mark, handle(node), cotangent, node->loc),
                 node->loc);
      }
      if (mark.second.defined() && visits[mark.second.node()].depends) {
        kept.add(mark.second.node(), composite_vjp_of_second(mark, cotangent, node->loc),
                 node->loc);
      }
      if (mark.third.defined() && visits[mark.third.node()].depends) {
        kept.add(mark.third.node(), composite_vjp_of_third(mark, cotangent, node->loc), node->loc);
      }
      continue;
    }
    // A slice's cotangent waits for those of the tensor's other slices, to be joined with them
    // (alone, the join is its gradient rule).
    if (node->op == ir::Op::Slice && visits[node->inputs[0]].depends &&
        is_floating(node->inputs[0]->dtype)) {
      if (std::optional<SlicePiece> piece = slice_piece(*node, cotangent, node->loc)) {
        kept.add_piece(node->inputs[0], std::move(*piece), node->loc);
        continue;
      }
    }
    switch (differentiability(node->op)) {
      case Differentiability::none:
        continue;
      case Differentiability::missing:
        api::fail<ValueError>(call, api::differentiation_op(), "the gradient of ",
                              ir::op_name(node->op), " (recorded at ", node->loc.file_name(), ":",
                              node->loc.line(),
                              ") is not implemented yet; pass its input through "
                              "lazy::stop_gradient if no gradient should flow there");
      case Differentiability::rule:
        break;
    }
    std::vector<bool> wanted(node->inputs.size());
    std::vector<Tensor> input_handles;
    for (std::size_t i = 0; i < node->inputs.size(); ++i) {
      ir::Node* input = node->inputs[i];
      input_handles.push_back(handle(input));
      wanted[i] = visits[input].depends && is_floating(input->dtype);
    }
    if (std::find(wanted.begin(), wanted.end(), true) == wanted.end()) continue;
    const Tensor output = handle(node);
    const InputCotangents flowing =
        vjp_rule(node->op)({*node, input_handles, output, cotangent, wanted, node->loc});
    for (std::size_t i = 0; i < flowing.size(); ++i) {
      if (!wanted[i] || flowing[i].node() == nullptr) continue;
      ir::Node* input = node->inputs[i];
      // A cotangent of an Expand's source, which the rule summed down itself (vjp_rules.h).
      if (input->op == ir::Op::Expand && flowing[i].shape() != input->shape &&
          flowing[i].shape() == input->inputs[0]->shape)
        input = input->inputs[0];
      kept.add(input, flowing[i], node->loc);
    }
  }
  std::vector<Tensor> result(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) result[i] = kept.take(inputs[i], call);
  return result;
}

}  // namespace lazy::autodiff
