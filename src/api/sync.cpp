#include "lazy/sync.h"

#include "api/recording.h"
#include "runtime/device.h"
#include "runtime/executor.h"
#include "runtime/index_faults.h"
#include "runtime/replay.h"

namespace lazy {

namespace api {

void sync_trace(ir::Trace& trace, std::shared_ptr<const runtime::Plan>* plan_run) {
  if (trace.empty()) return;
  refuse_while_capturing("sync (lazy::sync or lazy::eval)");
  std::span<const ir::NodePtr> pending = trace.pending();
  const ir::LiveBits live = trace.live_bits();

  runtime::HeldResults results = [&] {
    try {
      return runtime::execute(trace, live, plan_run);
    } catch (const runtime::InputsOverwritten&) {
      trace.clear();
      throw;
    }
  }();

  for (auto& [index, data] : results) {
    ir::Node& node = *pending[index];
    node.data = std::make_unique<ir::TensorData>(std::move(data));
    node.inputs.clear();
  }
  trace.clear();
  runtime::raise_index_faults();
}

}  // namespace api

void sync() {
  // Refused inside a captured or differentiated function even with nothing pending, so that a
  // body is refused whatever it recorded before.
  api::refuse_while_capturing("sync (lazy::sync or lazy::eval)");
  if (ir::Trace* trace = ir::Trace::current_if_any()) api::sync_trace(*trace);
}

void wait() {
  sync();
  if (runtime::Device* device = runtime::Device::get()) device->synchronize();
}

void eval(std::span<const Tensor> tensors, std::source_location loc) {
  for (const Tensor& t : tensors) api::node_of(t, "eval", loc);
  api::refuse_while_capturing("sync (lazy::eval)", loc);
  sync();
}

void eval(std::initializer_list<Tensor> tensors, std::source_location loc) {
  eval(std::span<const Tensor>(tensors.begin(), tensors.size()), loc);
}

}  // namespace lazy
