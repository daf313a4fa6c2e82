// A Gather node's attributes: the axis its index picks along, and which user op recorded it, so
// that an index out of range is reported under the name the user called.
#pragma once

#include <cstdint>
#include <iterator>
#include <string_view>

#include "ir/node.h"

namespace lazy::ir {

// The three *_gradient callers gather a scatter's cotangent (its src's share): a bad index there
// is named as the gradient of the scatter the user called. The losses gather class indices.
enum class GatherCaller : std::int64_t {
  gather,
  index_select,
  embedding,
  take_along_axis,
  scatter_add_gradient,
  index_add_gradient,
  scatter_gradient,
  cross_entropy,
  nll_loss,
};

inline Attrs gather_attrs(int axis, GatherCaller caller) {
  Attrs attrs;
  attrs.push(axis);
  attrs.push(std::int64_t(caller));
  return attrs;
}

inline int gather_axis(const Node& gather) {
  return int(gather.attrs[0]);
}

inline std::string_view gather_caller_name_of(GatherCaller caller) {
  constexpr std::string_view kNames[] = {"gather",
                                         "index_select",
                                         "embedding",
                                         "take_along_axis",
                                         "scatter_add (its gradient)",
                                         "index_add (its gradient)",
                                         "scatter (its gradient)",
                                         "cross_entropy",
                                         "nll_loss"};
  static_assert(std::size(kNames) == std::size_t(GatherCaller::nll_loss) + 1);
  return kNames[std::int64_t(caller)];
}
inline std::string_view gather_caller_name(const Node& gather) {
  return gather_caller_name_of(GatherCaller(gather.attrs[1]));
}

}  // namespace lazy::ir
