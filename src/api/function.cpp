#include "lazy/function.h"

#include <algorithm>
#include <mutex>
#include <string>

#include <absl/container/flat_hash_map.h>
#include <absl/container/inlined_vector.h>
#include <absl/strings/str_cat.h>

#include "api/matrix_product.h"
#include "api/recording.h"
#include "ir/debug.h"
#include "ir/settings.h"
#include "jit/lru_cache.h"
#include "lazy/config.h"
#include "lazy/sync.h"
#include "runtime/device.h"
#include "runtime/graph_replay.h"
#include "runtime/index_faults.h"
#include "runtime/replay.h"
#include "runtime/stats.h"

namespace lazy {

namespace {

// In a node's wiring, an input that is an external slot rather than a node of the graph.
constexpr std::uint32_t kExternalRef = std::uint32_t(1) << 31;

// What the function returned, per output: a node of the graph, one of the call's inputs, or a
// tensor computed before the capture.
struct CapturedOutput {
  enum class Kind : std::uint8_t { node, input, constant };
  Kind kind;
  std::uint32_t index;   // graph index or input index
  ir::NodePtr constant;  // Kind::constant
};

// The words input_signature makes: held inline, so a replay does not allocate for them.
using Signature = absl::InlinedVector<std::uint64_t, 24>;

// What a capture kept for one input signature. Immutable once made.
struct Capture {
  Signature signature;
  // Per input, the constant slot whose storage it shares (-1: none): part of what the plan
  // assumed about memory, checked against the constants once they are known.
  std::vector<std::int32_t> constant_aliases;
  std::shared_ptr<const runtime::Plan> plan;  // null: replays record the graph again (host)
  // The plan as one CUDA graph; null where the plain replay runs (see GraphReplay::for_plan).
  std::unique_ptr<runtime::GraphReplay> graph_replay;
  // The body's nodes in recording order, without inputs or data: what the plan reads of them
  // (dtypes, shapes, scalar values, source lines).
  std::vector<ir::NodePtr> graph;
  // Each node's inputs: a graph index, or kExternalRef | slot.
  std::vector<absl::InlinedVector<std::uint32_t, 3>> wiring;
  // Per external slot: the input it is, or -1 for a tensor computed before (in `constants`).
  std::vector<std::int32_t> slot_inputs;
  std::vector<ir::NodePtr> constants;
  // The first constant slot over each storage: every call looks its inputs up in it.
  absl::flat_hash_map<const ir::Storage*, std::int32_t> constant_of_storage;
  std::vector<CapturedOutput> outputs;
};

// The captures of one signature, one per pattern of inputs sharing memory with constants.
using Captures = std::vector<std::shared_ptr<const Capture>>;

// The dtype, shape and layout of each input, which inputs are the same tensor or share memory,
// and the settings a plan depends on.
Signature input_signature(std::span<const Tensor> inputs) {
  Signature words = {inputs.size(), std::uint64_t(fusion_enabled()), std::uint64_t(fast_math()),
                     std::uint64_t(api::matmul_tf32())};
  // The first input of each node and storage: found by a scan among a few inputs, through maps
  // past kScannedInputs (comparing each with all before it cost 0.3 s a call for 10^4 inputs).
  constexpr std::size_t kScannedInputs = 16;
  const bool mapped = inputs.size() > kScannedInputs;
  absl::flat_hash_map<const ir::Node*, std::uint64_t> first_of_node;
  absl::flat_hash_map<const ir::Storage*, std::uint64_t> first_of_storage;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const ir::Node& node = *inputs[i].node();
    const ir::TensorData& data = *node.data;
    std::uint64_t same_node = i, same_storage = i;
    if (mapped) {
      same_node = first_of_node.try_emplace(&node, i).first->second;
      same_storage = first_of_storage.try_emplace(data.storage.get(), i).first->second;
    }
    for (std::size_t j = 0; !mapped && j < i; ++j) {
      if (inputs[j].node() == inputs[i].node() && same_node == i) same_node = j;
      if (inputs[j].node()->data->storage == data.storage && same_storage == i) same_storage = j;
    }
    words.push_back(std::uint64_t(node.dtype) | std::uint64_t(node.shape.rank()) << 8 |
                    same_node << 16 | same_storage << 40);
    words.push_back(std::uint64_t(data.layout.offset));
    for (int d = 0; d < node.shape.rank(); ++d) {
      words.push_back(std::uint64_t(node.shape[d]));
      words.push_back(std::uint64_t(data.layout.strides[d]));
    }
  }
  return words;
}

// The constant slot whose storage `input` shares, or -1.
std::int32_t constant_alias(const Tensor& input, const Capture& capture) {
  const auto it = capture.constant_of_storage.find(input.node()->data->storage.get());
  return it == capture.constant_of_storage.end() ? -1 : it->second;
}

// A computed leaf of its own over `input`'s memory and layout.
Tensor leaf_over(const Tensor& input) {
  const ir::Node& node = *input.node();
  ir::NodePtr leaf = ir::make_node(ir::Op::Data, node.dtype, node.shape, node.loc);
  leaf->data = std::make_unique<ir::TensorData>(*node.data);
  return Tensor(std::move(leaf));
}

// A copy of what `node` is, without its inputs or data.
ir::NodePtr detached_copy(const ir::Node& node) {
  ir::NodePtr copy = ir::make_node(node.op, node.dtype, node.shape, node.loc);
  copy->compute_dtype = node.compute_dtype;
  copy->attrs = node.attrs;
  copy->scalar = node.scalar;
  return copy;
}

// The node of each external slot for a call with `inputs`.
std::vector<ir::NodePtr> externals_for(const Capture& capture, std::span<const Tensor> inputs) {
  std::vector<ir::NodePtr> externals(capture.slot_inputs.size());
  for (std::size_t slot = 0; slot < externals.size(); ++slot) {
    const std::int32_t input = capture.slot_inputs[slot];
    externals[slot] =
        input >= 0 ? ir::NodePtr(inputs[std::size_t(input)].node()) : capture.constants[slot];
  }
  return externals;
}

// What the body returned: tensors it computed or was given, usable on this thread (a tensor
// pending in another thread's trace would be handed back uncomputed by every replay).
void check_outputs(std::span<const Tensor> outputs, std::source_location loc) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].defined()) {
      api::fail<ValueError>(loc, "Function", "output ", i,
                            " of the function is undefined (a default-constructed Tensor); "
                            "return only tensors it computed or was given");
    }
    if (!api::usable_here(outputs[i].node()))
      api::refuse_node(outputs[i], absl::StrCat("Function (output ", i, ")"), loc);
  }
}

}  // namespace

struct Function::State {
  Body body;
  mutable std::mutex mutex;
  std::mutex capture_mutex;  // one capture at a time, so that a signature is captured once
  // By signature: a call finds its capture in a table, not by comparing with each (a replay took
  // 68 us among 8000 captures). Bounded, so that a stream of new shapes does not keep a CUDA
  // graph's memory for each.
  jit::LruCache<Signature, Captures> captures{
      std::size_t(ir::integer_setting(ir::Setting::function_captures))};
  std::size_t capture_count = 0;

  std::shared_ptr<const Capture> find(const Signature& signature, std::span<const Tensor> inputs) {
    std::lock_guard lock(mutex);
    const auto* same_signature = captures.find(signature);
    if (same_signature == nullptr) return nullptr;
    for (const std::shared_ptr<const Capture>& capture : *same_signature) {
      bool same_aliases = true;
      for (std::size_t i = 0; i < inputs.size() && same_aliases; ++i)
        same_aliases = constant_alias(inputs[i], *capture) == capture->constant_aliases[i];
      if (same_aliases) return capture;
    }
    return nullptr;
  }

  // Captures the signature; the captures it evicts go to `evicted`, for the caller to drop once
  // it holds no lock (a CUDA graph waits for its launches in flight as it goes).
  std::vector<Tensor> capture(std::span<const Tensor> inputs, Signature signature,
                              std::vector<Captures>& evicted, std::source_location loc);
};

std::vector<Tensor> Function::State::capture(std::span<const Tensor> inputs, Signature signature,
                                             std::vector<Captures>& evicted,
                                             std::source_location loc) {
  ir::Trace& trace = ir::Trace::current();
  sync();  // the body's ops alone in the trace
  // The body gets new leaves over the inputs' memory, so that a tensor it also reaches through
  // its closure stays a constant of the capture: given the same tensor as an input, `in[0] + w`
  // would otherwise add each later call's input to itself.
  // Maps, not scans, so that a first call with 10^4 inputs is not quadratic.
  std::vector<Tensor> leaves;
  absl::flat_hash_map<const ir::Node*, std::size_t> first_of_node;
  absl::flat_hash_map<const ir::Node*, std::int32_t> input_of_leaf;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::size_t first = first_of_node.try_emplace(inputs[i].node(), i).first->second;
    leaves.push_back(first < i ? leaves[first] : leaf_over(inputs[i]));
    input_of_leaf.try_emplace(leaves[i].node(), std::int32_t(i));
  }
  std::vector<Tensor> outputs;
  {
    // A body that throws leaves its partial recording (the trace was empty before it) pending, as
    // eager code's would: what the caller still holds of it, such as a tensor the body stored
    // outside, computes at the next sync, which reports its errors (a bad index, memory).
    api::CaptureScope scope(loc);
    outputs = body(leaves);
    check_outputs(outputs, loc);
  }

  auto capture = std::make_shared<Capture>();
  capture->signature = std::move(signature);
  std::span<const ir::NodePtr> externals = trace.externals();
  absl::flat_hash_map<const ir::Node*, std::uint32_t> slot_of;
  capture->slot_inputs.assign(externals.size(), -1);
  capture->constants.resize(externals.size());
  for (std::uint32_t slot = 0; slot < externals.size(); ++slot) {
    slot_of[externals[slot].get()] = slot;
    if (const auto it = input_of_leaf.find(externals[slot].get()); it != input_of_leaf.end()) {
      capture->slot_inputs[slot] = it->second;
    } else {
      capture->constants[slot] = externals[slot];
      capture->constant_of_storage.try_emplace(externals[slot]->data->storage.get(),
                                               std::int32_t(slot));
    }
  }
  for (const Tensor& input : inputs)
    capture->constant_aliases.push_back(constant_alias(input, *capture));
  for (const ir::NodePtr& node : trace.pending()) {
    capture->graph.push_back(detached_copy(*node));
    auto& wiring = capture->wiring.emplace_back();
    for (const ir::Node* input : node->inputs)
      wiring.push_back(input->trace == &trace ? input->trace_index : kExternalRef | slot_of[input]);
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    ir::Node* node = outputs[i].node();
    CapturedOutput out{CapturedOutput::Kind::constant, 0, ir::NodePtr(node)};
    if (node->trace == &trace) {
      out = {CapturedOutput::Kind::node, node->trace_index, nullptr};
    } else if (const auto it = input_of_leaf.find(node); it != input_of_leaf.end()) {
      out = {CapturedOutput::Kind::input, std::uint32_t(it->second), nullptr};
      outputs[i] = inputs[std::size_t(it->second)];  // the caller's tensor, as replays return
    }
    capture->outputs.push_back(std::move(out));
  }
  api::sync_trace(trace, &capture->plan);
  if (capture->plan != nullptr)
    capture->graph_replay =
        runtime::GraphReplay::for_plan(*capture->plan, runtime::GraphReplay::Numbers::captured);

  std::lock_guard lock(mutex);
  if (auto* same_signature = captures.find(capture->signature)) {
    same_signature->push_back(std::move(capture));
  } else {
    const Signature& signature = capture->signature;
    evicted = captures.insert(signature, {std::move(capture)});
  }
  ++capture_count;
  return outputs;
}

namespace {

// The call's outputs; `graph_output(i)` makes the tensor of graph node i.
template <class GraphOutput>
std::vector<Tensor> outputs_of(const Capture& capture, std::span<const Tensor> inputs,
                               GraphOutput graph_output) {
  std::vector<Tensor> outputs;
  outputs.reserve(capture.outputs.size());
  for (const CapturedOutput& out : capture.outputs) {
    switch (out.kind) {
      case CapturedOutput::Kind::node:
        outputs.push_back(graph_output(out.index));
        break;
      case CapturedOutput::Kind::input:
        outputs.push_back(inputs[out.index]);
        break;
      case CapturedOutput::Kind::constant:
        outputs.emplace_back(out.constant);
        break;
    }
  }
  return outputs;
}

// Without a GPU: records the captured graph again on `inputs`, in a trace of its own (the
// caller's pending work is no part of the call, as on the GPU), and syncs it.
std::vector<Tensor> rerecord(const Capture& capture, std::span<const Tensor> inputs) {
  const std::vector<ir::NodePtr> externals = externals_for(capture, inputs);
  ir::Trace trace;
  std::vector<ir::NodePtr> nodes;
  nodes.reserve(capture.graph.size());
  for (std::size_t i = 0; i < capture.graph.size(); ++i) {
    ir::NodePtr node = detached_copy(*capture.graph[i]);
    for (std::uint32_t ref : capture.wiring[i])
      node->inputs.push_back(ref & kExternalRef ? externals[ref & ~kExternalRef].get()
                                                : nodes[ref].get());
    trace.append(node);
    nodes.push_back(std::move(node));
  }
  std::vector<Tensor> outputs =
      outputs_of(capture, inputs, [&](std::uint32_t i) { return Tensor(nodes[i]); });
  nodes.clear();  // only the outputs' handles say what the sync keeps
  api::sync_trace(trace);
  return outputs;
}

}  // namespace

Function::Function(Body body, std::source_location loc) : state_(std::make_shared<State>()) {
  if (!body)
    api::fail<ValueError>(loc, "Function", "needs a function to capture, got an empty one");
  state_->body = std::move(body);
}

std::vector<Tensor> Function::operator()(std::initializer_list<Tensor> inputs,
                                         std::source_location loc) const {
  return (*this)(std::span<const Tensor>(inputs.begin(), inputs.size()), loc);
}

std::vector<Tensor> Function::operator()(std::span<const Tensor> inputs,
                                         std::source_location loc) const {
  // Part of an outer capture, or of a function being differentiated (a replay has no gradient).
  if (api::syncs_refused()) {
    for (const Tensor& input : inputs) api::node_of(input, "Function", loc);
    std::vector<Tensor> outputs = state_->body(inputs);
    check_outputs(outputs, loc);
    return outputs;
  }
  bool pending = false;
  for (const Tensor& input : inputs) pending |= !api::node_of(input, "Function", loc)->data;
  if (pending) sync();

  Signature signature = input_signature(inputs);
  std::shared_ptr<const Capture> capture = state_->find(signature, inputs);
  if (capture == nullptr) {
    std::vector<Captures> evicted;  // dropped last, after the lock
    std::unique_lock capturing(state_->capture_mutex);
    capture = state_->find(signature, inputs);  // another thread's, made while this one waited
    if (capture == nullptr) return state_->capture(inputs, std::move(signature), evicted, loc);
  }

  runtime::counters().function_replays++;
  // No plan: the host computes (or the body recorded nothing and passed tensors through).
  if (capture->plan == nullptr && !capture->graph.empty()) return rerecord(*capture, inputs);
  // The data of the graph nodes the call hands back (the plan's held nodes are the outputs).
  absl::InlinedVector<std::pair<std::uint32_t, ir::TensorData>, 4> held;
  if (capture->plan != nullptr) {
    const std::vector<ir::NodePtr> externals = externals_for(*capture, inputs);
    runtime::Device& device = *runtime::Device::get();
    const bool as_graph = runtime::replay_plan(
        *capture->plan, capture->graph_replay.get(), capture->graph, externals, device,
        [&](std::uint32_t node, ir::TensorData data) { held.emplace_back(node, std::move(data)); });
    if (ir::debug_level() >= 1) {
      ir::debug_print("lazyfuse: function replay: " + std::to_string(capture->graph.size()) +
                      " ops, " + std::to_string(capture->plan->kernels.size()) + " kernel(s)" +
                      (as_graph ? " as one CUDA graph" : ""));
    }
  }
  std::vector<Tensor> outputs = outputs_of(*capture, inputs, [&](std::uint32_t i) {
    const ir::Node& shape_of = *capture->graph[i];
    ir::NodePtr node = ir::make_node(ir::Op::Data, shape_of.dtype, shape_of.shape, shape_of.loc);
    const auto found =
        std::find_if(held.begin(), held.end(), [&](const auto& entry) { return entry.first == i; });
    node->data = std::make_unique<ir::TensorData>(found->second);
    return Tensor(std::move(node));
  });
  runtime::raise_index_faults();
  return outputs;
}

std::size_t Function::captures() const {
  std::lock_guard lock(state_->mutex);
  return state_->capture_count;
}

}  // namespace lazy
