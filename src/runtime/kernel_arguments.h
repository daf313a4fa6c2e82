// A planned kernel's arguments as the words its launch passes, shared by the plain replay and the
// graph replay, which differ only in where memory comes from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <absl/functional/function_ref.h>

#include "ir/node.h"
#include "runtime/device.h"
#include "runtime/plan.h"

namespace lazy::runtime {

// Packs `kernel`'s arguments into `packed` (cleared first), with 0 for the launch index, whose
// positions go to `launch_index_at`. `memory(arg, word)` gives the address of an
// external_pointer, root_pointer, copy_pointer or scratch argument that goes in packed[word];
// `pending` gives scalar values.
void pack_arguments(const PlannedKernel& kernel, std::span<const ir::NodePtr> pending,
                    Device& device,
                    absl::FunctionRef<CUdeviceptr(const codegen::ArgSource&, std::size_t)> memory,
                    std::vector<std::uint64_t>& packed, std::vector<std::size_t>& launch_index_at);

}  // namespace lazy::runtime
