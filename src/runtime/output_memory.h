// Device memory a replay asks for, with errors that name the user's op: a buffer larger than the
// whole GPU is refused before anything of the sync is allocated, and an allocation the GPU has no
// room for names the op and the line that needed it. Neither loses the context: the recorded
// work is kept and the program can go on.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>

#include "ir/node.h"
#include "runtime/device.h"
#include "runtime/plan.h"

namespace lazy::runtime {

// Throws lazy::RuntimeError when an output of `plan`, or an input it uploads, needs more than
// `device_bytes` (the memory of `device`, a GPU named in the message): the error names the op,
// its shape, dtype and bytes, and points at the user's line.
void check_plan_fits(const Plan& plan, std::span<const ir::NodePtr> pending,
                     std::span<const ir::NodePtr> externals, std::size_t device_bytes,
                     std::string_view device);

// allocate_device_storage for output `out`; when the GPU has no room, the error names the op.
std::shared_ptr<ir::Storage> allocate_output(Device& device, const PlannedOutput& out,
                                             std::span<const ir::NodePtr> pending,
                                             std::span<const ir::NodePtr> externals);

// device_address of the data of external input `input`; when the GPU has no room for its upload,
// the error names the input.
CUdeviceptr input_address(Device& device, const ir::Node& input);

}  // namespace lazy::runtime
