// A scatter node's attributes and inputs: x, the index sorted stably along the scatter's axis (its
// sizes along the other axes at most x's), the position along the axis each sorted index came
// from, and src sliced to the index's shape. The element of the result at c with c[axis] = p
// folds, in order of position, the src elements of c's line whose index is p into x's: the
// sorted index makes each output's contributions one run, found by binary search, so the result
// is the same bits on every run.
#pragma once

#include <cstdint>
#include <iterator>
#include <string_view>

#include "ir/gather.h"
#include "ir/node.h"

namespace lazy::ir {

// From gather_gradient on, in GatherCaller's order, they send a gather's cotangent back to its
// source: a bad index there is named as the gradient of the op the user called (the last three:
// a scatter's gradient gathered, differentiated again, or scatter's own gradient of x).
enum class ScatterCaller : std::int64_t {
  scatter_add,
  index_add,
  scatter,
  gather_gradient,
  index_select_gradient,
  embedding_gradient,
  take_along_axis_gradient,
  scatter_add_gradient,
  index_add_gradient,
  scatter_gradient,
  cross_entropy_gradient,
  nll_loss_gradient,
};

inline Attrs scatter_attrs(ScatterCaller caller, int axis) {
  Attrs attrs;
  attrs.push(std::int64_t(caller));
  attrs.push(axis);
  return attrs;
}

inline int scatter_axis(const Node& scatter) {
  return int(scatter.attrs[1]);
}

inline std::string_view scatter_caller_name_of(ScatterCaller caller) {
  constexpr std::string_view kNames[] = {"scatter_add",
                                         "index_add",
                                         "scatter",
                                         "gather (its gradient)",
                                         "index_select (its gradient)",
                                         "embedding (its gradient)",
                                         "take_along_axis (its gradient)",
                                         "scatter_add (its gradient)",
                                         "index_add (its gradient)",
                                         "scatter (its gradient)",
                                         "cross_entropy (its gradient)",
                                         "nll_loss (its gradient)"};
  static_assert(std::size(kNames) == std::size_t(ScatterCaller::nll_loss_gradient) + 1);
  return kNames[std::int64_t(caller)];
}
// The caller of the gather that takes a scatter's cotangent to its src: the scatter's gradient, or
// for a gather's gradient differentiated again, that gather.
// From gather_gradient on, ScatterCaller follows GatherCaller's order.
static_assert(std::int64_t(ScatterCaller::nll_loss_gradient) -
                  std::int64_t(ScatterCaller::gather_gradient) ==
              std::int64_t(GatherCaller::nll_loss));
inline GatherCaller gradient_gather_caller(ScatterCaller caller) {
  const auto c = std::int64_t(caller),
             first_gradient = std::int64_t(ScatterCaller::gather_gradient);
  return GatherCaller(c < first_gradient ? c + std::int64_t(GatherCaller::scatter_add_gradient)
                                         : c - first_gradient);
}
inline std::string_view scatter_caller_name(const Node& scatter) {
  return scatter_caller_name_of(ScatterCaller(scatter.attrs[0]));
}

// The input positions: the node's inputs in this order.
enum ScatterInput { scatter_x = 0, scatter_sorted_index = 1, scatter_order = 2, scatter_src = 3 };

}  // namespace lazy::ir
