// How errors name a generated kernel: its name and the user's file:line of the ops it computes,
// built once when a plan loads the kernel, so a launch only records a pointer.
#pragma once

#include <span>
#include <string_view>

#include "fuse/partition.h"
#include "runtime/launch_log.h"

namespace lazy::runtime {

// Places listed in a label; more are counted ("and 3 more"), since a label goes into a line.
inline constexpr std::size_t kMaxLabelPlaces = 4;

// "lz_add_mul_f32_<hash> (ops at app.cpp:12, app.cpp:14)": the places of the region's ops and
// roots, in the order the kernel computes them, each once.
KernelLabel kernel_label(std::string_view name, const fuse::Region& region,
                         std::span<const ir::NodePtr> pending);

}  // namespace lazy::runtime
