#include "ir/node.h"

#include <vector>

#include "ir/node_allocator.h"

namespace lazy::ir {

namespace {

struct FreeNodeBlocks {
  std::vector<void*> blocks;
  std::size_t bytes = 0;
  ~FreeNodeBlocks() {
    for (void* block : blocks) ::operator delete(block);
    free_blocks_gone = true;  // nodes freed later in this thread's exit go straight to the heap
  }
  static inline thread_local bool free_blocks_gone = false;
};

thread_local FreeNodeBlocks free_node_blocks;

using Orphans = absl::InlinedVector<NodePtr, 8>;

// Moves the inputs nothing else holds into `orphans`, to be freed by the caller's loop.
void release_inputs(absl::InlinedVector<NodePtr, 3>& inputs, Orphans& orphans) {
  for (NodePtr& input : inputs) {
    if (input && input.use_count() == 1) orphans.push_back(std::move(input));
  }
  inputs.clear();
}

}  // namespace

void* take_node_block(std::size_t bytes) {
  FreeNodeBlocks& list = free_node_blocks;
  if (list.blocks.empty() || bytes != list.bytes) return nullptr;
  void* block = list.blocks.back();
  list.blocks.pop_back();
  return block;
}

bool keep_node_block(void* block, std::size_t bytes) {
  if (FreeNodeBlocks::free_blocks_gone) return false;
  FreeNodeBlocks& list = free_node_blocks;
  if (list.blocks.empty()) list.bytes = bytes;
  if (bytes != list.bytes || list.blocks.size() >= kMaxCachedNodeBlocks) return false;
  list.blocks.push_back(block);
  return true;
}

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
  Orphans orphans;
  release_inputs(inputs, orphans);
  while (!orphans.empty()) {
    NodePtr node = std::move(orphans.back());
    orphans.pop_back();
    release_inputs(node->inputs, orphans);
  }
}

}  // namespace lazy::ir
