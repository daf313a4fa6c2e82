#include "fuse/internal_error.h"

#include <string>

#include "lazy/error.h"

namespace lazy::fuse {

void internal_error(const ir::Node& node, std::string_view what) {
  throw RuntimeError(std::string("lazyfuse internal error, please report it: ") +
                         std::string(what) + " (node " + std::to_string(node.trace_index) + ", " +
                         std::string(ir::op_name(node.op)) + " " +
                         std::string(dtype_name(node.dtype)) + node.shape.to_string() + ")",
                     node.loc);
}

}  // namespace lazy::fuse
