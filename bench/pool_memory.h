// Peak device memory of lazyfuse, for the benches' comparison with PyTorch's
// torch.cuda.max_memory_allocated. lazyfuse has no memory statistics of its own, but it allocates
// everything from the device's default stream-ordered pool, whose driver counters (in use now,
// high watermark of in use) are what PyTorch's allocated and max allocated are to its allocator.
// Those counters are read here from the driver lazyfuse already loaded; the library is unchanged.
#pragma once

#include <cstdint>
#include <optional>

namespace lazy::bench {

class PoolMemory {
 public:
  // The default pool of GPU `ordinal`; nullopt when the driver has no pool counters to read.
  static std::optional<PoolMemory> open(int ordinal);

  std::uint64_t used_now() const;
  // The high watermark of memory in use since reset_peak() (not below what was in use then).
  std::uint64_t peak() const;
  void reset_peak();

  // The driver functions it calls, resolved once (pool_memory.cpp).
  struct Driver;

 private:
  PoolMemory(const Driver* driver, void* pool) : driver_(driver), pool_(pool) {}
  std::uint64_t attribute(int attr) const;

  const Driver* driver_;
  void* pool_;
  std::uint64_t used_at_reset_ = 0;
};

}  // namespace lazy::bench
