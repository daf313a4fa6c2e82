// Whether a replay writes a kernel output over the memory of a computed input that nothing but
// the sync holds any more (`p = p - lr * g` once the handle to the old `p` is gone): the plan
// names the candidates (runtime/buffer_reuse.h), and only the replay can see who holds what.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include <absl/container/inlined_vector.h>
#include <absl/functional/function_ref.h>

#include "ir/node.h"
#include "runtime/plan.h"

namespace lazy::runtime {

// Whether the calling thread's stream may write over a storage's device memory (Device::
// writable_here: its home, and no other stream reading it).
using WritableHere = absl::FunctionRef<bool(const ir::Storage&)>;

// Whether `out` may be written over the memory of `input` now: nothing but this sync holds the
// input or its storage, which is on the device, writable here, of the output's dtype and size,
// and read whole, in order.
bool can_update_in_place(const ir::NodePtr& input, const PlannedOutput& out, WritableHere writable);

// Picks, in order, the first of `out`'s candidate inputs that can be updated in place and is not
// in `taken` (the inputs earlier outputs of the kernel took), adds it there and returns its
// memory, with its host copy (which the kernel leaves stale) dropped. Null: new memory.
std::shared_ptr<ir::Storage> take_input_memory(std::span<const ir::NodePtr> externals,
                                               const PlannedOutput& out, WritableHere writable,
                                               absl::InlinedVector<std::uint32_t, 4>& taken);

// Whether some output of `plan` would be written over an input's memory in this replay (a
// captured graph, whose addresses are fixed, cannot do that).
bool updates_in_place(const Plan& plan, std::span<const ir::NodePtr> externals,
                      WritableHere writable);

}  // namespace lazy::runtime
