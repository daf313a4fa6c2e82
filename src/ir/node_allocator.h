// Allocation of graph nodes from a per-thread free list. Recording allocates one node per op and
// a sync frees them all; recycling the blocks keeps malloc off the recording path (it was a
// sixth of the cost of recording an op).
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace lazy::ir {

// Bounds each thread's cache of free blocks: a step's worth of nodes, then back to malloc.
inline constexpr std::size_t kMaxCachedNodeBlocks = 16384;

template <class T>
class NodeAllocator {
 public:
  using value_type = T;
  NodeAllocator() = default;
  template <class U>
  NodeAllocator(const NodeAllocator<U>&) {}  // NOLINT(google-explicit-constructor)

  T* allocate(std::size_t n) {
    FreeList& list = free_list();
    if (n == 1 && !list.blocks.empty()) {
      void* block = list.blocks.back();
      list.blocks.pop_back();
      return static_cast<T*>(block);
    }
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }

  // A block may be freed by another thread than the one that allocated it: it then joins that
  // thread's list, which is fine since all blocks come from the global heap.
  void deallocate(T* p, std::size_t n) {
    if (n == 1 && !free_list_gone && free_list().blocks.size() < kMaxCachedNodeBlocks) {
      free_list().blocks.push_back(p);
      return;
    }
    ::operator delete(p);
  }

  friend bool operator==(const NodeAllocator&, const NodeAllocator&) { return true; }

 private:
  struct FreeList {
    std::vector<void*> blocks;
    ~FreeList() {
      for (void* block : blocks) ::operator delete(block);
      free_list_gone = true;  // nodes freed later in this thread's exit go straight to the heap
    }
  };
  static FreeList& free_list() {
    // initial-exec, as the trace's: reached without a call to __tls_get_addr (the library is linked,
    // not dlopen'ed).
    [[gnu::tls_model("initial-exec")]] static thread_local FreeList list;
    return list;
  }
  [[gnu::tls_model("initial-exec")]] static inline thread_local bool free_list_gone = false;
};

}  // namespace lazy::ir
