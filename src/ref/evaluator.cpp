#include "ref/evaluator.h"

#include <absl/container/flat_hash_map.h>

#include "ir/dtype_codec.h"
#include "ir/host_memory.h"
#include "ir/index_faults.h"
#include "ir/view_layout.h"
#include "ref/concat.h"
#include "ref/gather.h"
#include "ref/input_reach.h"
#include "ref/matmul.h"
#include "ref/pointwise.h"
#include "ref/reduction.h"
#include "ref/scan.h"
#include "ref/scatter.h"
#include "ref/top_k.h"
#include "ref/value.h"

namespace lazy::ref {

namespace {

Value evaluate_view(const ir::Node& node, const Value& in) {
  if (std::optional<ir::Layout> layout = ir::view_layout(in.layout, node))
    return {in.buffer, *layout};
  // A reshape that no strides can express copies (here only: kernels cut instead).
  Value dense = dense_copy(in);
  return {dense.buffer, ir::Layout::contiguous(node.shape)};
}

Value scalar_value(const ir::Node& node) {
  auto buffer = std::make_shared<Buffer>(node.dtype, 1);
  if (is_floating(node.dtype)) {
    buffer->floats[0] = ir::scalar_as_float(*node.scalar, node.dtype);
  } else {
    buffer->ints[0] = ir::scalar_as_int(*node.scalar, node.dtype);
  }
  return {buffer, ir::Layout::contiguous(Shape{})};
}

}  // namespace

std::vector<std::optional<ir::TensorData>> evaluate(std::span<const ir::NodePtr> pending,
                                                    const std::vector<bool>& live) {
  // A bad index found here is reported only if every node computes: a sync that fails keeps
  // nothing, and its fault must not be thrown by a later, unrelated one.
  ir::HeldIndexFaults faults;
  const std::size_t n = pending.size();
  // Which pending nodes a live node needs, and how many needed consumers each has left, so a
  // value is dropped as soon as its last consumer has run.
  std::vector<bool> needed = live;
  std::vector<int> uses_left(n, 0);
  for (std::size_t i = n; i-- > 0;) {
    if (!needed[i]) continue;
    for (ir::Node* input : pending[i]->inputs) {
      if (input->is_pending()) {
        needed[input->trace_index] = true;
        ++uses_left[input->trace_index];
      }
    }
  }

  std::vector<std::optional<Value>> values(n);
  absl::flat_hash_map<const ir::Node*, Value> externals;
  // An input reads the part of its storage the sync reaches (input_reach.h), until the parts
  // read add up to the storage, which is then read whole once for all: a slice of a large tensor
  // converts only its elements, and views of one storage do not each convert all of it (reading
  // it whole per input took 15 s and 8 GB for 4000 slices of one 2 MB tensor).
  const absl::flat_hash_map<const ir::Node*, ElementRange> reach =
      input_reach(pending, needed, live);
  struct StorageRead {
    std::shared_ptr<Buffer> whole;
    std::int64_t parts = 0;  // elements read for inputs that reach part of it
  };
  absl::flat_hash_map<const ir::Storage*, StorageRead> read_storage;
  auto input_value = [&](const ir::Node* input) -> const Value& {
    if (input->is_pending()) return *values[input->trace_index];
    auto it = externals.find(input);
    if (it != externals.end()) return it->second;
    const ir::TensorData& data = *input->data;
    StorageRead& read = read_storage[data.storage.get()];
    const auto reached = reach.find(input);
    const auto [first, end] =
        reached == reach.end() ? reached_elements(data.layout) : reached->second;
    const std::int64_t numel = data.storage->numel;
    Value value;
    if (!read.whole && end - first < numel && read.parts + (end - first) <= numel) {
      read.parts += end - first;
      value = value_of_data(data, first, end - first);
    } else {
      if (!read.whole) read.whole = value_of_data(data).buffer;
      value = {read.whole, data.layout};
    }
    return externals.emplace(input, std::move(value)).first->second;
  };

  std::vector<std::optional<ir::TensorData>> results(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!needed[i]) continue;
    const ir::Node& node = *pending[i];
    // Values are held as doubles; a result larger than the machine is refused before it is made
    // (views compose layouts and make nothing).
    const ir::OpKind kind = ir::op_kind(node.op);
    if (kind != ir::OpKind::leaf && kind != ir::OpKind::view)
      ir::check_fits_in_host_memory(node.shape.numel(), sizeof(double), ir::op_api_name(node.op),
                                    node.loc);
    // These read each input as a dense array: a reduction of a broadcast view makes it whole.
    if (kind == ir::OpKind::reduction || kind == ir::OpKind::scan || kind == ir::OpKind::top_k) {
      ir::check_fits_in_host_memory(node.inputs[0]->shape.numel(), sizeof(double),
                                    ir::op_api_name(node.op), node.loc);
    }
    std::vector<Value> inputs;
    inputs.reserve(node.inputs.size());
    for (ir::Node* input : node.inputs) inputs.push_back(input_value(input));

    switch (ir::op_kind(node.op)) {
      case ir::OpKind::leaf:
        values[i] = scalar_value(node);
        break;
      case ir::OpKind::pointwise:
      case ir::OpKind::generator:
        values[i] = evaluate_pointwise(node, inputs);
        break;
      case ir::OpKind::view:
        values[i] = evaluate_view(node, inputs[0]);
        break;
      case ir::OpKind::copy:
        values[i] = dense_copy(inputs[0]);
        break;
      case ir::OpKind::reduction:
        values[i] = evaluate_reduction(node, inputs[0]);
        break;
      case ir::OpKind::matmul:
        values[i] = evaluate_matmul(node, inputs);
        break;
      case ir::OpKind::gather:
        values[i] = evaluate_gather(node, inputs[0], inputs[1]);
        break;
      case ir::OpKind::concat:
        values[i] = evaluate_concat(node, inputs);
        break;
      case ir::OpKind::scan:
        values[i] = evaluate_scan(node, inputs[0]);
        break;
      case ir::OpKind::top_k:
        values[i] = evaluate_top_k(node, inputs[0]);
        break;
      case ir::OpKind::scatter:
        values[i] = evaluate_scatter(node, inputs);
        break;
    }
    if (live[i]) results[i] = materialize(*values[i]);

    for (ir::Node* input : node.inputs) {
      if (input->is_pending() && --uses_left[input->trace_index] == 0) {
        values[input->trace_index].reset();
      }
    }
  }
  faults.commit();
  return results;
}

}  // namespace lazy::ref
