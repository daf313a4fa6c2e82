#include "ir/hash.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace lazy::ir {

Hash128 hash_bytes(const void* data, std::size_t size) {
  XXH128_hash_t h = XXH3_128bits(data, size);
  return {h.low64, h.high64};
}

Hash128 hash_bytes(std::string_view first, std::string_view then) {
  const std::string_view pieces[] = {first, then};
  return hash_pieces(pieces);
}

Hash128 hash_pieces(std::span<const std::string_view> pieces) {
  XXH3_state_t state;
  XXH3_INITSTATE(&state);
  XXH3_128bits_reset(&state);
  for (std::string_view piece : pieces) XXH3_128bits_update(&state, piece.data(), piece.size());
  XXH128_hash_t h = XXH3_128bits_digest(&state);
  return {h.low64, h.high64};
}

std::string Hash128::to_hex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text(32, '0');
  for (int i = 0; i < 16; ++i) {
    text[std::size_t(15 - i)] = kDigits[(hi >> (4 * i)) & 15];
    text[std::size_t(31 - i)] = kDigits[(lo >> (4 * i)) & 15];
  }
  return text;
}

}  // namespace lazy::ir
