#include "ir/view_layout.h"

#include <string>

#include "lazy/error.h"

namespace lazy::ir {

std::optional<Layout> view_layout(const Layout& in, const Node& view) {
  switch (view.op) {
    case Op::Reshape:
      return reshape_layout(in, view.shape);
    case Op::Permute:
      return permute_layout(in, {view.attrs.ints.data(), view.attrs.count});
    case Op::Expand:
      return expand_layout(in, view.shape);
    case Op::Alias:
      return in;
    case Op::Slice: {
      const int axis = int(view.attrs[0]);
      return slice_layout(in, axis, view.attrs[1], view.attrs[2], view.shape[axis]);
    }
    default:
      break;
  }
  throw RuntimeError("lazyfuse internal error: view_layout was given " +
                         std::string(op_name(view.op)) + ", which is not a view; please report it",
                     view.loc);
}

}  // namespace lazy::ir
