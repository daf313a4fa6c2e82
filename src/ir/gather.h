// A Gather node's attributes: the axis its index picks along, and which user op recorded it, so
// that an index out of range is reported under the name the user called.
#pragma once

#include <cstdint>
#include <string_view>

#include "ir/node.h"

namespace lazy::ir {

enum class GatherCaller : std::int64_t { gather, index_select, embedding, take_along_axis };

inline Attrs gather_attrs(int axis, GatherCaller caller) {
  Attrs attrs;
  attrs.push(axis);
  attrs.push(std::int64_t(caller));
  return attrs;
}

inline int gather_axis(const Node& gather) {
  return int(gather.attrs[0]);
}

inline std::string_view gather_caller_name(const Node& gather) {
  constexpr std::string_view kNames[] = {"gather", "index_select", "embedding", "take_along_axis"};
  return kNames[gather.attrs[1]];
}

}  // namespace lazy::ir
