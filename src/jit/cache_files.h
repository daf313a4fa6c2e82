// How every cache lazyfuse keeps on disk (compiled kernels, autotuned cuBLASLt algorithms) writes
// and reads its files, so that a crash, a full disk, several processes at once or another user
// can never make the program load a wrong entry: directories private to the user, writes through
// a temp file and a rename, and entries that carry their full key and an XXH3 checksum.
//
// An entry: 8-byte magic, then little-endian 64-bit words (format, key lo, key hi, text size,
// payload size, checksum of text and payload), then the text and the payload. The text is what
// the key was hashed from (a kernel's source, a product's description): a load compares it, so
// a key collision is a miss, not a wrong entry.
#pragma once

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "ir/hash.h"

namespace lazy::jit {

// Bump when the entry layout changes: old entries then sit in another directory.
inline constexpr std::uint32_t kDiskCacheFormat = 1;

// What the cache directory holds, by extension: clearing and eviction go over both.
inline constexpr std::string_view kKernelEntryExtension = ".lzk";
inline constexpr std::string_view kAlgorithmEntryExtension = ".algo";

// mkdir -p, each directory it creates private to the user.
bool make_private_directories(const std::filesystem::path& path);

// Writes `parts` to `path` through a temp file in the same directory, named uniquely across
// processes and threads (starting with kTempFilePrefix), then a rename: readers see the old file
// or the whole new one. On failure returns false with errno in *error.
inline constexpr std::string_view kTempFilePrefix = ".tmp-";
bool write_atomically(const std::filesystem::path& path,
                      std::initializer_list<std::string_view> parts, int* error);

// Whether `path` is a directory (or a regular file) the user owns and others cannot change:
// only such entries are loaded, since what they hold decides what the GPU runs.
bool owned_privately(const std::filesystem::path& path, bool directory);

// The header to write before `text` and `payload`.
std::string cache_entry_header(const ir::Hash128& key, std::string_view text,
                               std::string_view payload);

// An entry's parts, or why it is unsound (rejected: "has no valid header", "fails its
// checksum", ...). Views into `bytes`.
struct CacheEntryParts {
  std::string_view text;
  std::string_view payload;
  const char* rejected = nullptr;
};
CacheEntryParts parse_cache_entry(std::string_view bytes, const ir::Hash128& key);

// The key an entry's header names (not checked: parse_cache_entry checks it), or nullopt when
// `bytes` has no header.
std::optional<ir::Hash128> cache_entry_key(std::string_view bytes);

// Whether `path` is a regular file (not a link) that starts with an entry's magic: what
// eviction and clearing may delete, where a cache directory shared with other files holds them.
bool is_cache_entry_file(const std::filesystem::path& path);

}  // namespace lazy::jit
