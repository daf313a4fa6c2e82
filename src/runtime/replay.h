// Launches a plan's kernels on the GPU for one sync and hands back the data of each held node.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include <absl/functional/function_ref.h>

#include "ir/node.h"
#include "lazy/error.h"
#include "runtime/device.h"
#include "runtime/plan.h"

namespace lazy::runtime {

// Thrown by replay() for a failure after a kernel that writes over an input no one else held
// was queued: the inputs the sync's work reads are gone, so it cannot be run again and the
// caller drops it. Carries the failure's message and place.
class InputsOverwritten : public RuntimeError {
 public:
  explicit InputsOverwritten(const Error& failure);
};

// Queues the plan's kernels and hands `held(node, data)` the data of each held pending node (by
// pending index): kernel outputs, views of them or of inputs, and scalars. `pending` gives the
// nodes' dtypes, shapes and scalar values (their inputs are not read), `externals` the computed
// inputs by slot: a sync passes its trace's, a lazy::Function the graph it captured and the
// inputs of the call.
void replay(const Plan& plan, std::span<const ir::NodePtr> pending,
            std::span<const ir::NodePtr> externals, Device& device,
            absl::FunctionRef<void(std::uint32_t, ir::TensorData)> held);

// Shared by replay() and the graph replay: hands `held(node, data)` the data of each held pending
// node once the plan's kernels are queued: kernel outputs (root i's memory is `root_storage(i)`),
// views of them or of inputs, and scalars.
void hand_over_results(const Plan& plan, std::span<const ir::NodePtr> pending,
                       std::span<const ir::NodePtr> externals,
                       absl::FunctionRef<std::shared_ptr<ir::Storage>(std::uint32_t)> root_storage,
                       absl::FunctionRef<void(std::uint32_t, ir::TensorData)> held);

// Fills every kernel output with 0xff bytes (NaN for floats) before the kernel runs, so an
// element a kernel fails to write shows. On in tests; LAZY_POISON_OUTPUTS turns it on.
void set_poison_outputs(bool enabled);
bool poisoning_outputs();
inline constexpr std::uint8_t kPoisonByte = 0xff;

}  // namespace lazy::runtime
