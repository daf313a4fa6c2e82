#include "ir/node.h"

#include <new>
#include <utility>

namespace lazy::ir {

namespace {

// Recording allocates one node per op and a sync frees them all. Recycling the blocks in a
// per-thread free list keeps malloc off the recording path (it was a sixth of an op's cost),
// up to a step's worth of nodes; past that, blocks go back to the heap.
constexpr std::size_t kMaxCachedNodeBlocks = 16384;

// Free blocks linked through their first bytes: taking and keeping one is a few stores, where a
// vector of pointers cost a bounds check and a capacity check each way.
struct FreeBlock {
  FreeBlock* next;
};

// Trivially constructed and destroyed, so reaching it costs no init guard.
struct FreeNodeBlocks {
  FreeBlock* head = nullptr;
  std::size_t count = 0;
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

void* take_node_block() {
  FreeNodeBlocks& list = free_node_blocks;
  if (list.head == nullptr) return ::operator new(sizeof(Node));
  --list.count;
  return std::exchange(list.head, list.head->next);
}

// A block may be freed by another thread than the one that took it: it then joins that thread's
// list, which is fine since all blocks come from the global heap.
void keep_node_block(void* block) {
  FreeNodeBlocks& list = free_node_blocks;
  if (list.head == nullptr) {
    if (list.gone) return ::operator delete(block);
    [[maybe_unused]] FreeNodeBlocksDrain& registered = free_node_blocks_drain;
  }
  if (list.count >= kMaxCachedNodeBlocks) return ::operator delete(block);
  list.head = new (block) FreeBlock{list.head};
  ++list.count;
}

}  // namespace

NodePtr make_node(Op op, DType dtype, const Shape& shape, std::source_location loc) {
  return NodePtr::adopt(new (take_node_block()) Node(op, dtype, shape, loc));
}

void destroy_node(Node* node) noexcept {
  node->~Node();
  keep_node_block(node);
}

}  // namespace lazy::ir
