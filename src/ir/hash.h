// 128-bit XXH3 hashes for graph keys. 128 bits because a key collision would run the wrong plan.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace lazy::ir {

struct Hash128 {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
  friend bool operator==(const Hash128&, const Hash128&) = default;
  // 32 hex digits, high half first.
  std::string to_hex() const;
  template <class H>
  friend H AbslHashValue(H h, const Hash128& x) {
    return H::combine(std::move(h), x.lo, x.hi);
  }
};

Hash128 hash_bytes(const void* data, std::size_t size);
// The hash of `first` followed by `then`, as if they were one array, without copying them.
Hash128 hash_bytes(std::string_view first, std::string_view then);
// The hash of the pieces laid end to end, without copying them.
Hash128 hash_pieces(std::span<const std::string_view> pieces);
inline Hash128 hash_words(std::span<const std::uint64_t> words) {
  return hash_bytes(words.data(), words.size_bytes());
}
inline Hash128 hash_words(std::span<const std::uint64_t> first,
                          std::span<const std::uint64_t> then) {
  return hash_bytes({reinterpret_cast<const char*>(first.data()), first.size_bytes()},
                    {reinterpret_cast<const char*>(then.data()), then.size_bytes()});
}

}  // namespace lazy::ir
