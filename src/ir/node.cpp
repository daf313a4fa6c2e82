#include "ir/node.h"

#include <new>
#include <utility>

#include "ir/node_allocator.h"

namespace lazy::ir {

namespace {

// Free blocks linked through their first bytes: taking and keeping one is a few stores, where a
// vector of pointers cost a bounds check and a capacity check each way.
struct FreeBlock {
  FreeBlock* next;
};

// Trivially constructed and destroyed, so reaching it costs no init guard.
struct FreeNodeBlocks {
  FreeBlock* head = nullptr;
  std::size_t count = 0;
  std::size_t bytes = 0;
  bool gone = false;  // the thread is exiting: blocks freed now go straight to the heap
};
constinit thread_local FreeNodeBlocks free_node_blocks;

// Frees the thread's kept blocks when it exits. Reached only when the list is empty (it is then
// about to get its first block), so the guard that registers the destructor is rarely checked.
struct FreeNodeBlocksDrain {
  ~FreeNodeBlocksDrain() {
    FreeNodeBlocks& list = free_node_blocks;
    while (list.head != nullptr) ::operator delete(std::exchange(list.head, list.head->next));
    list.count = 0;
    list.gone = true;
  }
};
thread_local FreeNodeBlocksDrain free_node_blocks_drain;

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
  if (list.head == nullptr || bytes != list.bytes) return nullptr;
  --list.count;
  return std::exchange(list.head, list.head->next);
}

bool keep_node_block(void* block, std::size_t bytes) {
  FreeNodeBlocks& list = free_node_blocks;
  if (list.head == nullptr) {
    if (list.gone) return false;
    [[maybe_unused]] FreeNodeBlocksDrain& registered = free_node_blocks_drain;
    list.bytes = bytes;
  }
  if (bytes != list.bytes || list.count >= kMaxCachedNodeBlocks) return false;
  list.head = new (block) FreeBlock{list.head};
  ++list.count;
  return true;
}

NodePtr make_node(Op op, DType dtype, const Shape& shape, std::source_location loc) {
  return std::allocate_shared<Node>(NodeAllocator<Node>(), op, dtype, shape, loc);
}

Node::~Node() {
  // Mostly every input has another owner (the trace, another consumer), and the members'
  // destructors dropping the references is all there is to do.
  bool last_owner = false;
  for (const NodePtr& input : inputs) last_owner |= input.use_count() == 1;
  if (!last_owner) return;
  Orphans orphans;
  release_inputs(inputs, orphans);
  while (!orphans.empty()) {
    NodePtr node = std::move(orphans.back());
    orphans.pop_back();
    release_inputs(node->inputs, orphans);
  }
}

}  // namespace lazy::ir
