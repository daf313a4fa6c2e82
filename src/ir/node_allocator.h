// Allocation of graph nodes from a per-thread free list. Recording allocates one node per op and
// a sync frees them all; recycling the blocks keeps malloc off the recording path (it was a
// sixth of the cost of recording an op).
#pragma once

#include <cstddef>
#include <new>

namespace lazy::ir {

// Bounds each thread's cache of free blocks: a step's worth of nodes, then back to malloc.
inline constexpr std::size_t kMaxCachedNodeBlocks = 16384;

// The thread's free list, in node.cpp. Blocks of another size than the first one kept bypass it.
void* take_node_block(std::size_t bytes);
// False when the block was not kept (list full, another size, or the thread exiting).
bool keep_node_block(void* block, std::size_t bytes);

template <class T>
class NodeAllocator {
 public:
  using value_type = T;
  NodeAllocator() = default;
  template <class U>
  NodeAllocator(const NodeAllocator<U>&) {}  // NOLINT(google-explicit-constructor)

  T* allocate(std::size_t n) {
    if (n == 1)
      if (void* block = take_node_block(sizeof(T))) return static_cast<T*>(block);
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }

  // A block may be freed by another thread than the one that allocated it: it then joins that
  // thread's list, which is fine since all blocks come from the global heap.
  void deallocate(T* p, std::size_t n) {
    if (n == 1 && keep_node_block(p, sizeof(T))) return;
    ::operator delete(p);
  }

  friend bool operator==(const NodeAllocator&, const NodeAllocator&) { return true; }
};

}  // namespace lazy::ir
