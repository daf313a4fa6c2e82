// A broken invariant of the partitioner: a bug in lazyfuse, thrown as a lazy::RuntimeError that
// names the node (and the user's line that recorded it) instead of aborting the program.
#pragma once

#include <string_view>

#include "ir/node.h"

namespace lazy::fuse {

[[noreturn]] void internal_error(const ir::Node& node, std::string_view what);

}  // namespace lazy::fuse
