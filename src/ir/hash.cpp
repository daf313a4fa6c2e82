#include "ir/hash.h"

#include <cstdio>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace lazy::ir {

Hash128 hash_bytes(const void* data, std::size_t size) {
  XXH128_hash_t h = XXH3_128bits(data, size);
  return {h.low64, h.high64};
}

Hash128 hash_words(std::span<const std::uint64_t> first, std::span<const std::uint64_t> then) {
  XXH3_state_t state;
  XXH3_INITSTATE(&state);
  XXH3_128bits_reset(&state);
  XXH3_128bits_update(&state, first.data(), first.size_bytes());
  XXH3_128bits_update(&state, then.data(), then.size_bytes());
  XXH128_hash_t h = XXH3_128bits_digest(&state);
  return {h.low64, h.high64};
}

std::string Hash128::to_hex() const {
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(hi),
                static_cast<unsigned long long>(lo));
  return text;
}

}  // namespace lazy::ir
