// Device memory lazyfuse holds, and a bound on it. lazyfuse allocates from a stream-ordered pool
// of its own on the GPU it computes on: a buffer counts as in use from its allocation until the
// last handle to it goes (tensors, views of them, and lazyfuse's own buffers such as cuBLASLt's
// workspace); the pool then keeps the memory for the next allocation rather than give it back.
// Without a GPU (computing on the host) every figure is 0 and a limit has no effect.
#pragma once

#include <cstdint>
#include <source_location>

namespace lazy {

struct MemoryStats {
  std::int64_t in_use_bytes = 0;    // held by live buffers now
  std::int64_t peak_bytes = 0;      // the most in use at once since the start or the last reset
  std::int64_t reserved_bytes = 0;  // what the pool holds from the GPU: in use plus cached
  std::int64_t limit_bytes = 0;     // set_memory_limit's bound; 0 for none
};

MemoryStats memory_stats();
// Starts a new peak from what is in use now.
void reset_peak_memory();
// Waits for the GPU's queued work, then gives the pool's cached memory back to the GPU (for other
// libraries or processes); what is in use stays.
void empty_cache();
// Bounds the bytes in use; 0 (the default, or LAZY_MEMORY_LIMIT) removes the bound. An allocation
// that would take the pool's holdings past it frees the pool's cache first, so those stay near
// the bound too; one that would take the bytes in use past it throws lazy::RuntimeError from the
// sync that needed it, naming the op, the size, the limit and the user's file:line, and keeps the
// recorded work, so the program can drop handles (or raise the limit) and go on.
// A negative bound is a lazy::ValueError.
void set_memory_limit(std::int64_t bytes,
                      std::source_location loc = std::source_location::current());

}  // namespace lazy
