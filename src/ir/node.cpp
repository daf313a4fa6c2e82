#include "ir/node.h"

#include <vector>

#include "ir/node_allocator.h"

namespace lazy::ir {

namespace {

// Moves the inputs nothing else holds into `orphans`, to be freed by the caller's loop.
void release_inputs(absl::InlinedVector<NodePtr, 3>& inputs, std::vector<NodePtr>& orphans) {
  for (NodePtr& input : inputs) {
    if (input && input.use_count() == 1) orphans.push_back(std::move(input));
  }
  inputs.clear();
}

}  // namespace

NodePtr make_node(Op op, DType dtype, const Shape& shape, std::source_location loc) {
  auto node = std::allocate_shared<Node>(NodeAllocator<Node>());
  node->op = op;
  node->dtype = dtype;
  node->compute_dtype = dtype;
  node->shape = shape;
  node->loc = loc;
  return node;
}

Node::~Node() {
  std::vector<NodePtr> orphans;
  release_inputs(inputs, orphans);
  while (!orphans.empty()) {
    NodePtr node = std::move(orphans.back());
    orphans.pop_back();
    release_inputs(node->inputs, orphans);
  }
}

}  // namespace lazy::ir
