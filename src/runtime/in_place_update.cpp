#include "runtime/in_place_update.h"

#include <algorithm>

namespace lazy::runtime {

bool can_update_in_place(const ir::NodePtr& input, const PlannedOutput& out,
                         WritableHere writable) {
  // One owner: the trace's list of the inputs it reads. A handle, a Function's capture or a
  // held view would each add one, to the node or to its storage.
  if (input.use_count() != 1 || input->data == nullptr) return false;
  const ir::TensorData& data = *input->data;
  if (data.storage.use_count() != 1) return false;
  const ir::Storage& storage = *data.storage;
  const bool whole = data.layout.offset == 0 && data.layout.is_contiguous() &&
                     data.layout.shape.numel() == storage.numel;
  return storage.on_device && whole && storage.dtype == out.dtype && storage.numel == out.numel &&
         writable(storage);
}

std::shared_ptr<ir::Storage> take_input_memory(std::span<const ir::NodePtr> externals,
                                               const PlannedOutput& out, WritableHere writable,
                                               absl::InlinedVector<std::uint32_t, 4>& taken) {
  for (const std::uint32_t slot : out.over_externals) {
    if (std::find(taken.begin(), taken.end(), slot) != taken.end() ||
        !can_update_in_place(externals[slot], out, writable)) {
      continue;
    }
    taken.push_back(slot);
    auto memory = std::const_pointer_cast<ir::Storage>(externals[slot]->data->storage);
    memory->drop_host();  // no one else can read the host copy the kernel makes stale
    return memory;
  }
  return nullptr;
}

bool updates_in_place(const Plan& plan, std::span<const ir::NodePtr> externals,
                      WritableHere writable) {
  if (!plan.has_in_place_candidates) return false;
  for (const PlannedKernel& kernel : plan.kernels)
    for (const PlannedOutput& out : kernel.outputs)
      for (const std::uint32_t slot : out.over_externals)
        if (can_update_in_place(externals[slot], out, writable)) return true;
  return false;
}

}  // namespace lazy::runtime
