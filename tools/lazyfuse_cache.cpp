// lazyfuse-cache: looks at and trims the kernel cache on disk, through lazy/cache.h alone.
//
//   lazyfuse-cache stats | list | prune --max-mb N | clear | --help
//
// The process's cache configuration is read from the environment on first use, exactly as in any
// program linked with lazyfuse, so the tool always sees the directory those programs use.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <lazy/cache.h>

namespace {

// The library's megabyte (LAZY_CACHE_MAX_MB is shifted by 20).
constexpr std::int64_t kBytesPerMegabyte = std::int64_t(1) << 20;
// The exit status of a command line the tool does not understand (as in grep, diff, bash).
constexpr int kExitUsage = 2;

constexpr const char* kUsage = R"(usage: lazyfuse-cache <command>

Looks at and trims the cache of compiled GPU kernels that lazyfuse keeps on disk.

commands:
  stats              the directory, whether the cache is enabled, its entries, size and bound
  list               one line per entry: size in bytes, age, path; oldest first
  prune --max-mb N   removes least recently used entries until at most N MB remain
  clear              removes every entry
  --help             this text

The directory is chosen by the library's rules: LAZY_CACHE_DIR, else $XDG_CACHE_HOME/lazyfuse,
else ~/.cache/lazyfuse. LAZY_CACHE=0 shows the cache as disabled (its entries can still be listed
and removed); LAZY_CACHE_MAX_MB is the bound that stats shows (default 256). 1 MB = 2^20 bytes.

Exit status: 0; 1 when prune or clear could not remove an entry, or no usable directory is set;
2 for a command line it does not understand.
)";

int usage_error(const std::string& what) {
  std::fprintf(stderr, "lazyfuse-cache: %s\n\n%s", what.c_str(), kUsage);
  return kExitUsage;
}

std::string entry_count(std::int64_t count) {
  return std::to_string(count) + (count == 1 ? " entry" : " entries");
}

// "256 MB" when whole, else "0.76 MB".
std::string megabytes(std::int64_t bytes) {
  if (bytes % kBytesPerMegabyte == 0) return std::to_string(bytes / kBytesPerMegabyte) + " MB";
  char text[64];
  std::snprintf(text, sizeof text, "%.2f MB", double(bytes) / double(kBytesPerMegabyte));
  return text;
}

// "42 s", "5.0 min", "3.2 h", "4.1 d".
std::string age(double seconds) {
  constexpr double kMinute = 60, kHour = 60 * kMinute, kDay = 24 * kHour;
  seconds = std::max(seconds, 0.0);  // a clock set back can make an entry look newer than now
  char text[64];
  if (seconds < kMinute) {
    std::snprintf(text, sizeof text, "%.0f s", seconds);
  } else if (seconds < kHour) {
    std::snprintf(text, sizeof text, "%.1f min", seconds / kMinute);
  } else if (seconds < kDay) {
    std::snprintf(text, sizeof text, "%.1f h", seconds / kHour);
  } else {
    std::snprintf(text, sizeof text, "%.1f d", seconds / kDay);
  }
  return text;
}

int print_stats() {
  const lazy::KernelCacheInfo info = lazy::kernel_cache_info();
  std::printf("directory: %s\n", info.directory.empty()
                                     ? "(none: HOME is not set; set LAZY_CACHE_DIR)"
                                     : info.directory.c_str());
  std::printf("enabled:   %s\n",
              info.enabled ? "yes" : "no (LAZY_CACHE=0, or the directory is unusable)");
  std::printf("entries:   %lld\n", static_cast<long long>(info.entries));
  std::printf("size:      %s (%lld bytes)\n", megabytes(info.bytes).c_str(),
              static_cast<long long>(info.bytes));
  std::printf("bound:     %s\n", megabytes(info.max_bytes).c_str());
  return 0;
}

int print_list() {
  std::vector<lazy::KernelCacheEntry> entries = lazy::kernel_cache_entries();
  std::sort(entries.begin(), entries.end(),
            [](const lazy::KernelCacheEntry& a, const lazy::KernelCacheEntry& b) {
              if (a.age_seconds != b.age_seconds) return a.age_seconds > b.age_seconds;
              return a.path < b.path;
            });
  for (const lazy::KernelCacheEntry& entry : entries) {
    std::printf("%12lld  %9s  %s\n", static_cast<long long>(entry.bytes),
                age(entry.age_seconds).c_str(), entry.path.c_str());
  }
  return 0;
}

// clear and prune change the directory (also under LAZY_CACHE=0): one that is unset or not a
// directory is an error, where "removed 0 entries" would read as success. A missing one is empty.
bool has_directory(const lazy::KernelCacheInfo& info) {
  std::error_code error;
  const std::filesystem::path directory(info.directory);
  if (!directory.empty() && (!std::filesystem::exists(directory, error) ||
                             std::filesystem::is_directory(directory, error)))
    return true;
  std::fprintf(stderr, "lazyfuse-cache: no usable cache directory (%s); set LAZY_CACHE_DIR\n",
               directory.empty() ? "HOME is not set" : info.directory.c_str());
  return false;
}

// Entries left that should have gone could not be removed (permissions): an error, exit 1.
int removal_failed(const std::string& what, const lazy::KernelCacheInfo& info) {
  std::fprintf(stderr,
               "lazyfuse-cache: %s: some entries could not be removed; check the "
               "permissions under %s\n",
               what.c_str(), info.directory.c_str());
  return 1;
}

int prune(std::int64_t max_megabytes) {
  if (!has_directory(lazy::kernel_cache_info())) return 1;
  const std::int64_t max_bytes = max_megabytes * kBytesPerMegabyte;
  const std::int64_t removed = lazy::prune_kernel_cache(max_bytes);
  const lazy::KernelCacheInfo info = lazy::kernel_cache_info();
  std::printf("removed %s; %s %s, %s (%lld bytes)\n", entry_count(removed).c_str(),
              entry_count(info.entries).c_str(), info.entries == 1 ? "remains" : "remain",
              megabytes(info.bytes).c_str(), static_cast<long long>(info.bytes));
  if (info.bytes > max_bytes) return removal_failed("still over " + megabytes(max_bytes), info);
  return 0;
}

int clear() {
  if (!has_directory(lazy::kernel_cache_info())) return 1;
  std::printf("removed %s\n", entry_count(lazy::clear_kernel_cache()).c_str());
  const lazy::KernelCacheInfo info = lazy::kernel_cache_info();
  if (info.entries > 0) return removal_failed(entry_count(info.entries) + " left", info);
  return 0;
}

// `prune --max-mb N` or `prune --max-mb=N`, N a whole number of megabytes.
int run_prune(std::span<const std::string_view> args) {
  if (args.empty()) return usage_error("prune needs --max-mb N");
  std::string_view value;
  std::size_t used = 1;
  if (args[0] == "--max-mb") {
    if (args.size() < 2) return usage_error("prune: --max-mb needs a number of megabytes");
    value = args[1];
    used = 2;
  } else if (args[0].starts_with("--max-mb=")) {
    value = args[0].substr(std::string_view("--max-mb=").size());
  } else {
    return usage_error("prune: unknown option '" + std::string(args[0]) + "'");
  }
  if (args.size() > used) {
    return usage_error("prune: unexpected argument '" + std::string(args[used]) + "'");
  }
  const bool digits_only = !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
    return c >= '0' && c <= '9';
  });
  if (!digits_only) {
    return usage_error("prune: --max-mb takes a non-negative whole number of megabytes, got '" +
                       std::string(value) + "'");
  }
  std::int64_t max_megabytes = 0;
  auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), max_megabytes);
  if (error != std::errc() ||
      max_megabytes > std::numeric_limits<std::int64_t>::max() / kBytesPerMegabyte) {
    return usage_error("prune: --max-mb " + std::string(value) + " is too large");
  }
  return prune(max_megabytes);
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  const bool wants_help = std::any_of(args.begin(), args.end(), [](std::string_view arg) {
    return arg == "--help" || arg == "-h";
  });
  if (args.empty() || wants_help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  const std::string command(args[0]);
  const std::span<const std::string_view> rest = std::span(args).subspan(1);
  if (command == "prune") return run_prune(rest);
  if (command != "stats" && command != "list" && command != "clear") {
    return usage_error("unknown command '" + command + "'");
  }
  if (!rest.empty()) {
    return usage_error(command + " takes no arguments, got '" + std::string(rest[0]) + "'");
  }
  if (command == "stats") return print_stats();
  if (command == "list") return print_list();
  return clear();
}
