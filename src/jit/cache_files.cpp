#include "jit/cache_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <functional>
#include <random>
#include <thread>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace lazy::jit {

namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'L', 'Z', 'K', 'C', 'A', 'C', 'H', 'E'};
constexpr std::size_t kHeaderWords = 6;
constexpr std::size_t kHeaderBytes = sizeof(kMagic) + kHeaderWords * sizeof(std::uint64_t);

std::uint64_t checksum_of(std::string_view text, std::string_view payload) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  XXH3_64bits_update(state, text.data(), text.size());
  XXH3_64bits_update(state, payload.data(), payload.size());
  std::uint64_t sum = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return sum;
}

void put_word(std::string& out, std::uint64_t word) {
  for (int i = 0; i < 8; ++i) out.push_back(char((word >> (8 * i)) & 0xff));
}

std::uint64_t get_word(const char* in) {
  std::uint64_t word = 0;
  for (int i = 0; i < 8; ++i) word |= std::uint64_t(static_cast<unsigned char>(in[i])) << (8 * i);
  return word;
}

CacheEntryParts rejected_entry(const char* why) {
  CacheEntryParts parts;
  parts.rejected = why;
  return parts;
}

}  // namespace

bool make_private_directories(const fs::path& path) {
  std::error_code error;
  if (fs::is_directory(path, error)) return true;
  if (!path.has_parent_path() || path.parent_path() == path) return false;
  if (!make_private_directories(path.parent_path())) return false;
  return ::mkdir(path.c_str(), 0700) == 0 || errno == EEXIST;
}

bool write_atomically(const fs::path& path, std::initializer_list<std::string_view> parts,
                      int* error) {
  static std::atomic<std::uint64_t> counter{0};
  std::random_device random;
  std::string name = std::string(kTempFilePrefix) + std::to_string(::getpid()) + "-" +
                     std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())) +
                     "-" + std::to_string(counter++) + "-" + std::to_string(random());
  fs::path temp = path.parent_path() / name;
  int fd = ::open(temp.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) {
    *error = errno;
    return false;
  }
  bool ok = true;
  for (std::string_view part : parts) {
    std::size_t done = 0;
    while (ok && done < part.size()) {
      ssize_t n = ::write(fd, part.data() + done, part.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        *error = n < 0 ? errno : ENOSPC;
        ok = false;
      } else {
        done += std::size_t(n);
      }
    }
  }
  if (::close(fd) != 0 && ok) {
    *error = errno;
    ok = false;
  }
  if (ok && ::rename(temp.c_str(), path.c_str()) != 0) {
    *error = errno;
    ok = false;
  }
  if (!ok) ::unlink(temp.c_str());
  return ok;
}

bool owned_privately(const fs::path& path, bool directory) {
  struct stat info;
  if (::lstat(path.c_str(), &info) != 0) return false;
  if (directory ? !S_ISDIR(info.st_mode) : !S_ISREG(info.st_mode)) return false;
  return info.st_uid == ::geteuid() && (info.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

std::string cache_entry_header(const ir::Hash128& key, std::string_view text,
                               std::string_view payload) {
  std::string header(kMagic, sizeof kMagic);
  put_word(header, kDiskCacheFormat);
  put_word(header, key.lo);
  put_word(header, key.hi);
  put_word(header, text.size());
  put_word(header, payload.size());
  put_word(header, checksum_of(text, payload));
  return header;
}

CacheEntryParts parse_cache_entry(std::string_view bytes, const ir::Hash128& key) {
  if (bytes.size() < kHeaderBytes || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    return rejected_entry("has no valid header");
  }
  const char* words = bytes.data() + sizeof kMagic;
  const std::uint64_t format = get_word(words), key_lo = get_word(words + 8),
                      key_hi = get_word(words + 16), text_size = get_word(words + 24),
                      payload_size = get_word(words + 32), checksum = get_word(words + 40);
  if (format != kDiskCacheFormat || key_lo != key.lo || key_hi != key.hi) {
    return rejected_entry("belongs to another key or format");
  }
  if (text_size > bytes.size() || payload_size > bytes.size() ||
      kHeaderBytes + text_size + payload_size != bytes.size()) {
    return rejected_entry("is truncated or has the wrong size");
  }
  CacheEntryParts parts{bytes.substr(kHeaderBytes, text_size),
                        bytes.substr(kHeaderBytes + text_size, payload_size)};
  if (checksum_of(parts.text, parts.payload) != checksum)
    return rejected_entry("fails its checksum");
  return parts;
}

bool is_cache_entry_file(const fs::path& path) {
  struct stat info;
  if (::lstat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return false;
  // Non-blocking and no link: a FIFO or a link swapped in after the check cannot hang this.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  char magic[sizeof kMagic];
  const bool matches = ::read(fd, magic, sizeof magic) == ssize_t(sizeof magic) &&
                       std::memcmp(magic, kMagic, sizeof kMagic) == 0;
  ::close(fd);
  return matches;
}

std::optional<ir::Hash128> cache_entry_key(std::string_view bytes) {
  if (bytes.size() < kHeaderBytes || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    return std::nullopt;
  const char* words = bytes.data() + sizeof kMagic;
  return ir::Hash128{get_word(words + 8), get_word(words + 16)};
}

}  // namespace lazy::jit
