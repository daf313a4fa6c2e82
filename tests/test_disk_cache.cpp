// The kernel cache on disk, through real processes: a second run compiles nothing; damaged,
// foreign or unwritable caches never fail the program; concurrent processes leave valid entries;
// the directory stays under its bound. Runs without a GPU (CUBINs are compiled for sm_90).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "helper_programs.h"
#include "jit/cache_files.h"
#include "jit/disk_cache.h"
#include "jit/nvrtc.h"
#include "lazy/config.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "lazyfuse-cache-test-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ignored;
    fs::permissions(path_, fs::perms::owner_all, ignored);
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string child_program() {
  return lazy_test::helper_program(LAZY_CACHE_CHILD);
}

struct ChildRun {
  int exit_code = -1;
  std::map<std::string, long long> counts;
  std::string stderr_text;
};

std::string read_file(const fs::path& path) {
  std::ifstream file(path);
  return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

std::map<std::string, long long> parse_counts(const std::string& line) {
  std::map<std::string, long long> counts;
  std::istringstream words(line);
  std::string word;
  while (words >> word) {
    auto eq = word.find('=');
    if (eq != std::string::npos) counts[word.substr(0, eq)] = std::atoll(word.c_str() + eq + 1);
  }
  return counts;
}

// Runs the child program with the cache in `dir` (and extra environment assignments).
ChildRun run_child(const fs::path& dir, int kernels, const std::string& env = "") {
  TempDir scratch;
  fs::path out = scratch.path() / "out", err = scratch.path() / "err";
  std::string command = "LAZY_CACHE_DIR='" + dir.string() + "' " + env + " " + child_program() +
                        " " + std::to_string(kernels) + " >" + out.string() + " 2>" + err.string();
  ChildRun run;
  int status = std::system(command.c_str());
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.counts = parse_counts(read_file(out));
  run.stderr_text = read_file(err);
  return run;
}

std::vector<fs::path> entries_in(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code error;
  for (fs::recursive_directory_iterator it(dir, error), end; !error && it != end;
       it.increment(error))
    if (it->path().extension() == ".lzk") out.push_back(it->path());
  return out;
}

int count_warnings(const std::string& text) {
  int n = 0;
  for (std::size_t at = text.find("warning"); at != std::string::npos;
       at = text.find("warning", at + 1))
    ++n;
  return n;
}

class DiskCache : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!lazy::jit::nvrtc_available(&why)) GTEST_SKIP() << "no NVRTC: " << why;
  }
  static constexpr int kKernels = 4;
};

TEST_F(DiskCache, SecondRunCompilesNothing) {
  TempDir dir;
  ChildRun first = run_child(dir.path(), kKernels);
  ASSERT_EQ(first.exit_code, 0) << first.stderr_text;
  EXPECT_EQ(first.counts["compiles"], kKernels);
  EXPECT_EQ(first.counts["writes"], kKernels);
  ChildRun second = run_child(dir.path(), kKernels);
  ASSERT_EQ(second.exit_code, 0) << second.stderr_text;
  EXPECT_EQ(second.counts["compiles"], 0);
  EXPECT_EQ(second.counts["disk_hits"], kKernels);
  EXPECT_EQ(second.counts["rejected"], 0);
}

TEST_F(DiskCache, DirectoriesArePrivate) {
  TempDir dir;
  fs::path root = dir.path() / "nested" / "cache";
  ASSERT_EQ(run_child(root, 1).exit_code, 0);
  struct stat info;
  ASSERT_EQ(::stat(root.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
}

// Each way an entry can be damaged: the run still gives right values, and replaces the entry.
void damage_all(const fs::path& dir, const std::function<void(const fs::path&)>& damage) {
  std::vector<fs::path> entries = entries_in(dir);
  ASSERT_FALSE(entries.empty());
  for (const fs::path& entry : entries) damage(entry);
}

void expect_recovers_from(const std::function<void(const fs::path&)>& damage, const char* what) {
  TempDir dir;
  ASSERT_EQ(run_child(dir.path(), 3).exit_code, 0);
  damage_all(dir.path(), damage);
  ChildRun damaged = run_child(dir.path(), 3);
  EXPECT_EQ(damaged.exit_code, 0) << what << ": " << damaged.stderr_text;
  EXPECT_EQ(damaged.counts["wrong"], 0) << what;
  EXPECT_EQ(damaged.counts["rejected"], 3) << what;
  EXPECT_EQ(damaged.counts["compiles"], 3) << what;
  ChildRun after = run_child(dir.path(), 3);
  EXPECT_EQ(after.counts["compiles"], 0) << what << ": the entries were not replaced";
  EXPECT_EQ(after.counts["rejected"], 0) << what;
}

TEST_F(DiskCache, TruncatedEntriesAreReplaced) {
  expect_recovers_from([](const fs::path& p) { fs::resize_file(p, fs::file_size(p) / 2); },
                       "truncated");
}

TEST_F(DiskCache, ZeroedEntriesAreReplaced) {
  expect_recovers_from(
      [](const fs::path& p) {
        std::string zeros(fs::file_size(p), '\0');
        std::ofstream(p, std::ios::binary) << zeros;
      },
      "zeroed");
}

TEST_F(DiskCache, BitFlippedEntriesAreReplaced) {
  expect_recovers_from(
      [](const fs::path& p) {
        std::fstream file(p, std::ios::in | std::ios::out | std::ios::binary);
        file.seekg(-100, std::ios::end);
        char byte;
        file.get(byte);
        file.seekp(-100, std::ios::end);
        file.put(char(byte ^ 0x10));
      },
      "bit-flipped");
}

TEST_F(DiskCache, EntriesWithAWrongHeaderAreReplaced) {
  expect_recovers_from(
      [](const fs::path& p) {
        std::fstream file(p, std::ios::in | std::ios::out | std::ios::binary);
        file.seekp(0);
        file.write("NOTLAZYF", 8);
      },
      "wrong header");
}

TEST_F(DiskCache, EightProcessesAtOnceAllSucceedAndLeaveValidEntries) {
  TempDir dir;
  TempDir scratch;
  std::string script;
  for (int i = 0; i < 8; ++i) {
    script += "(LAZY_CACHE_DIR='" + dir.path().string() + "' " + child_program() + " " +
              std::to_string(kKernels) + " >/dev/null 2>&1; echo $? > " +
              (scratch.path() / ("rc" + std::to_string(i))).string() + ") & ";
  }
  script += "wait";
  ASSERT_EQ(std::system(("bash -c \"" + script + "\"").c_str()), 0);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(read_file(scratch.path() / ("rc" + std::to_string(i))), "0\n") << "process " << i;
  EXPECT_EQ(entries_in(dir.path()).size(), std::size_t(kKernels));
  ChildRun check = run_child(dir.path(), kKernels);
  EXPECT_EQ(check.counts["compiles"], 0);
  EXPECT_EQ(check.counts["rejected"], 0);
  // No temp file is left behind.
  for (const auto& f : fs::recursive_directory_iterator(dir.path()))
    EXPECT_THAT(f.path().filename().string(), ::testing::Not(HasSubstr(".tmp-")));
}

TEST_F(DiskCache, UnusableDirectoryWarnsOnceAndRunsFromMemory) {
  ChildRun run = run_child("/proc/lazyfuse-cannot-exist/cache", kKernels);
  EXPECT_EQ(run.exit_code, 0) << run.stderr_text;
  EXPECT_EQ(run.counts["wrong"], 0);
  EXPECT_EQ(run.counts["writes"], 0);
  EXPECT_EQ(count_warnings(run.stderr_text), 1) << run.stderr_text;
}

TEST_F(DiskCache, ReadOnlyDirectoryWarnsOnceAndRunsFromMemory) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes to read-only directories";
  TempDir dir;
  fs::permissions(dir.path(), fs::perms::owner_read | fs::perms::owner_exec);
  ChildRun run = run_child(dir.path(), kKernels);
  EXPECT_EQ(run.exit_code, 0) << run.stderr_text;
  EXPECT_EQ(run.counts["writes"], 0);
  EXPECT_EQ(count_warnings(run.stderr_text), 1) << run.stderr_text;
}

// Found in review: a regular file as the cache directory was said to be owned by another user.
TEST_F(DiskCache, AFileForADirectoryIsNamedAsSuch) {
  TempDir dir;
  const fs::path file = dir.path() / "not-a-directory";
  std::ofstream(file) << "x";
  ChildRun run = run_child(file, kKernels);
  EXPECT_EQ(run.exit_code, 0) << run.stderr_text;
  EXPECT_EQ(run.counts["writes"], 0);
  EXPECT_THAT(run.stderr_text, HasSubstr("is not a directory"));
}

TEST_F(DiskCache, DirectoryWritableByOthersIsRefused) {
  TempDir dir;
  fs::permissions(dir.path(), fs::perms::all);  // 0777
  ChildRun run = run_child(dir.path(), kKernels);
  EXPECT_EQ(run.exit_code, 0) << run.stderr_text;
  EXPECT_EQ(run.counts["wrong"], 0);
  EXPECT_EQ(run.counts["writes"], 0);
  EXPECT_THAT(run.stderr_text, HasSubstr("writable by others"));
  EXPECT_TRUE(entries_in(dir.path()).empty());
}

TEST_F(DiskCache, EntryWritableByOthersIsNotLoaded) {
  TempDir dir;
  ASSERT_EQ(run_child(dir.path(), 1).exit_code, 0);
  for (const fs::path& entry : entries_in(dir.path())) fs::permissions(entry, fs::perms::all);
  ChildRun run = run_child(dir.path(), 1);
  EXPECT_EQ(run.exit_code, 0) << run.stderr_text;
  EXPECT_EQ(run.counts["disk_hits"], 0);
  EXPECT_EQ(run.counts["rejected"], 1);
}

TEST_F(DiskCache, CacheOffWritesNothing) {
  TempDir dir;
  ChildRun run = run_child(dir.path() / "off", kKernels, "LAZY_CACHE=0");
  EXPECT_EQ(run.exit_code, 0) << run.stderr_text;
  EXPECT_EQ(run.counts["writes"], 0);
  EXPECT_FALSE(fs::exists(dir.path() / "off"));
}

TEST_F(DiskCache, SaveSourceWritesTheCudaBesideEachEntry) {
  TempDir dir;
  ASSERT_EQ(run_child(dir.path(), 2, "LAZY_CACHE_SAVE_SOURCE=1").exit_code, 0);
  for (const fs::path& entry : entries_in(dir.path())) {
    fs::path source = entry;
    source.replace_extension(".cu");
    EXPECT_THAT(read_file(source), HasSubstr("extern \"C\" __global__"));
  }
}

TEST_F(DiskCache, AnotherArchOrNvrtcVersionIsAnotherDirectory) {
  const fs::path root = "/cache";
  using lazy::jit::DiskCache;
  EXPECT_NE(DiskCache::entry_directory(root, {13, 0}, 90),
            DiskCache::entry_directory(root, {13, 1}, 90));
  EXPECT_NE(DiskCache::entry_directory(root, {13, 0}, 90),
            DiskCache::entry_directory(root, {13, 0}, 80));
  TempDir dir;
  ASSERT_EQ(run_child(dir.path(), 1, "LAZY_DEVICE=cpu LAZY_ARCH=sm_80").exit_code, 0);
  ASSERT_EQ(run_child(dir.path(), 1, "LAZY_DEVICE=cpu LAZY_ARCH=sm_90").exit_code, 0);
  lazy::jit::NvrtcVersion version = lazy::jit::nvrtc_version();
  EXPECT_EQ(entries_in(DiskCache::entry_directory(dir.path(), version, 80)).size(), 1u);
  EXPECT_EQ(entries_in(DiskCache::entry_directory(dir.path(), version, 90)).size(), 1u);
}

TEST_F(DiskCache, EvictionKeepsTheDirectoryUnderItsBound) {
  TempDir dir;
  lazy::jit::DiskCacheConfig config;
  config.root = dir.path();
  config.max_bytes = 64 << 10;
  lazy::jit::DiskCache cache(config);
  ASSERT_TRUE(cache.usable());
  const std::vector<char> cubin(4096, 'x');
  lazy::ir::Hash128 last{};
  for (std::uint64_t i = 1; i <= 40; ++i) {
    last = {i, i * 7};
    cache.store(last, "source " + std::to_string(i), cubin, {13, 0}, 90);
  }
  std::uint64_t total = 0;
  for (const auto& entry : cache.entries()) total += entry.bytes;
  EXPECT_LE(total, config.max_bytes);
  EXPECT_GT(cache.counters().evictions.load(), 0);
  EXPECT_TRUE(cache.load(last, "source 40", {13, 0}, 90).has_value());    // the newest stays
  EXPECT_FALSE(cache.load({1, 7}, "source 1", {13, 0}, 90).has_value());  // the oldest went
}

// Found in review: a root shared with other files (LAZY_CACHE_DIR=$HOME) lost every file named
// like an entry to eviction and clearing, wherever it was.
TEST_F(DiskCache, ClearingAndEvictionTouchOnlyEntries) {
  TempDir dir;
  lazy::jit::DiskCacheConfig config;
  config.root = dir.path();
  config.max_bytes = 8 << 10;
  const fs::path foreign = dir.path() / "projects" / "pricing.algo";
  const fs::path lookalike = dir.path() / "v1" / "notes.lzk";  // in the tree, not an entry
  for (const fs::path& file : {foreign, lookalike}) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << std::string(64 << 10, 'u');
  }
  lazy::jit::DiskCache cache(config);
  ASSERT_TRUE(cache.usable());
  for (std::uint64_t i = 1; i <= 8; ++i)
    cache.store({i, i}, "source " + std::to_string(i), std::vector<char>(4096, 'x'), {13, 0}, 90);
  EXPECT_EQ(cache.entries().size(), 1u);  // the bound evicted the others, not the user's files
  EXPECT_EQ(cache.clear(), 1u);
  EXPECT_TRUE(fs::exists(foreign));
  EXPECT_TRUE(fs::exists(lookalike));
}

// Found in review: a process killed while writing an entry left its temp file for ever.
TEST_F(DiskCache, ClearingRemovesTempFilesAbandonedLongAgoAndKeepsFreshOnes) {
  TempDir dir;
  lazy::jit::DiskCacheConfig config;
  config.root = dir.path();
  lazy::jit::DiskCache cache(config);
  ASSERT_TRUE(cache.usable());
  cache.store({1, 1}, "source", std::vector<char>(64, 'x'), {13, 0}, 90);
  const fs::path entries = lazy::jit::DiskCache::entry_directory(dir.path(), {13, 0}, 90);
  const fs::path abandoned = entries / ".tmp-4242-1-0-7", in_progress = entries / ".tmp-4243-1-0-8";
  for (const fs::path& file : {abandoned, in_progress}) std::ofstream(file) << "half an entry";
  fs::last_write_time(abandoned, fs::file_time_type::clock::now() - std::chrono::hours(2));
  EXPECT_EQ(cache.clear(), 1u);
  EXPECT_FALSE(fs::exists(abandoned));
  EXPECT_TRUE(fs::exists(in_progress));  // perhaps another process's write: left alone
}

// Found in review: LAZY_CACHE_DIR naming a symbolic link to a private directory turned the
// cache off ("owned by another user"), while the same path with a trailing slash worked.
TEST_F(DiskCache, ASymbolicLinkToThePrivateDirectoryIsFollowed) {
  TempDir dir;
  const fs::path target = dir.path() / "real", link = dir.path() / "link";
  ASSERT_TRUE(lazy::jit::make_private_directories(target));
  fs::create_directory_symlink(target, link);
  ::setenv("LAZY_CACHE_DIR", link.c_str(), 1);
  lazy::jit::DiskCacheConfig config = lazy::jit::disk_cache_config_from_env();
  ::unsetenv("LAZY_CACHE_DIR");
  EXPECT_EQ(config.root, fs::canonical(target));
  lazy::jit::DiskCache cache(config);
  EXPECT_TRUE(cache.usable());
}

// Without HOME, XDG_CACHE_HOME or LAZY_CACHE_DIR the cache has no place: off, with a reason.
TEST_F(DiskCache, NoPlaceForTheCacheTurnsItOffWithAReason) {
  lazy::jit::DiskCacheConfig config;
  config.root.clear();
  testing::internal::CaptureStderr();
  lazy::jit::DiskCache cache(config);
  const std::string warning = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(cache.usable());
  EXPECT_THAT(warning, HasSubstr("HOME"));
}

// Found in review: a bound of 0 wrote each entry and deleted it at once.
TEST_F(DiskCache, ABoundOfZeroWritesNothing) {
  TempDir dir;
  lazy::jit::DiskCacheConfig config;
  config.root = dir.path();
  config.max_bytes = 0;
  lazy::jit::DiskCache cache(config);
  cache.store({5, 6}, "the source", std::vector<char>(100, 'c'), {13, 0}, 90);
  EXPECT_EQ(cache.counters().writes.load(), 0);
  EXPECT_TRUE(entries_in(dir.path()).empty());
}

// Found in review: a FIFO where an entry would be blocked the program in its open.
TEST_F(DiskCache, AFifoAtAnEntrysPathIsIgnoredWithoutOpeningIt) {
  TempDir dir;
  lazy::jit::DiskCacheConfig config;
  config.root = dir.path();
  lazy::jit::DiskCache cache(config);
  cache.store({3, 4}, "the source", std::vector<char>(100, 'c'), {13, 0}, 90);
  const std::vector<fs::path> stored = entries_in(dir.path());
  ASSERT_EQ(stored.size(), 1u);
  fs::remove(stored[0]);
  ASSERT_EQ(::mkfifo(stored[0].c_str(), 0600), 0);
  EXPECT_FALSE(cache.load({3, 4}, "the source", {13, 0}, 90).has_value());
  EXPECT_TRUE(cache.entries().empty());
  // Nor is it replaced, and the cache stays in use for other entries (a directory there turned
  // the whole cache off).
  cache.store({3, 4}, "the source", std::vector<char>(100, 'c'), {13, 0}, 90);
  EXPECT_TRUE(cache.usable());
  cache.store({7, 8}, "another source", std::vector<char>(100, 'c'), {13, 0}, 90);
  EXPECT_EQ(cache.entries().size(), 1u);
}

TEST_F(DiskCache, LoadComparesTheSource) {
  TempDir dir;
  lazy::jit::DiskCacheConfig config;
  config.root = dir.path();
  lazy::jit::DiskCache cache(config);
  cache.store({1, 2}, "the source", std::vector<char>(100, 'c'), {13, 0}, 90);
  EXPECT_TRUE(cache.load({1, 2}, "the source", {13, 0}, 90).has_value());
  EXPECT_FALSE(cache.load({1, 2}, "another source", {13, 0}, 90).has_value());
  EXPECT_EQ(cache.counters().rejected.load(), 1);
}

}  // namespace

namespace {

// Rewrites every entry with a CUBIN the driver cannot load, behind a valid header and checksum.
void replace_cubins_with_garbage(const fs::path& root) {
  lazy::jit::DiskCacheConfig config;
  config.root = root;
  lazy::jit::DiskCache cache(config);
  for (const fs::path& entry : entries_in(root)) {
    std::string bytes = read_file(entry);
    auto word = [&](int i) {
      std::uint64_t w = 0;
      for (int b = 0; b < 8; ++b)
        w |= std::uint64_t(static_cast<unsigned char>(bytes[8 + 8 * i + b])) << (8 * b);
      return w;
    };
    std::string source = bytes.substr(56, word(3));
    int arch = std::atoi(entry.parent_path().parent_path().filename().string().c_str() + 3);
    std::vector<char> garbage(word(4), 0);
    garbage[0] = 0x7f, garbage[1] = 'E', garbage[2] = 'L', garbage[3] = 'F';  // a corrupt ELF
    cache.store({word(1), word(2)}, source, garbage, lazy::jit::nvrtc_version(), arch);
  }
}

TEST_F(DiskCache, EntryTheDriverRefusesIsReplaced) {
  if (!lazy::on_gpu()) GTEST_SKIP() << "no CUDA device: " << lazy::device_description();
  TempDir dir;
  ASSERT_EQ(run_child(dir.path(), 2).exit_code, 0);
  replace_cubins_with_garbage(dir.path());
  ChildRun refused = run_child(dir.path(), 2);
  EXPECT_EQ(refused.exit_code, 0) << refused.stderr_text;
  EXPECT_EQ(refused.counts["wrong"], 0);
  EXPECT_EQ(refused.counts["rejected"], 2);
  EXPECT_EQ(refused.counts["compiles"], 2);
  ChildRun after = run_child(dir.path(), 2);
  EXPECT_EQ(after.counts["compiles"], 0);
  EXPECT_EQ(after.counts["disk_hits"], 2);
  EXPECT_EQ(after.counts["wrong"], 0);  // a loaded entry runs and gives the reference's values
}

}  // namespace
