// The host side of cuBLASLt calls, without a GPU: loading the library and where it is looked for,
// its errors, and the store of autotuned algorithms (memory, entries on disk, damaged entries,
// clearing).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "ir/hash.h"
#include "jit/cache_files.h"
#include "jit/disk_cache.h"
#include "lazy/error.h"
#include "runtime/cublaslt.h"
#include "runtime/matmul_algorithm_store.h"

namespace {

namespace fs = std::filesystem;
using lazy::runtime::AlgorithmScope;
using ::testing::HasSubstr;

// Without ctest's LAZY_CACHE_DIR, entries go to a directory of this run (removed at exit), not
// the user's cache.
fs::path private_cache_directory;
const bool kPrivateCacheDirectory = [] {
  if (std::getenv("LAZY_CACHE_DIR") != nullptr) return false;
  std::string pattern = (fs::temp_directory_path() / "lazyfuse-algorithm-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) return false;
  private_cache_directory = pattern;
  ::setenv("LAZY_CACHE_DIR", pattern.c_str(), 1);
  std::atexit([] {
    std::error_code ignored;
    fs::remove_all(private_cache_directory, ignored);
  });
  return true;
}();

// ---- the library ----

TEST(CublasLtLibrary, LoadsTheMajorVersionOfTheHeaders) {
  const lazy::runtime::CublasLt& library = lazy::runtime::cublaslt();
  EXPECT_EQ(int(library.version / 10000), CUBLAS_VER_MAJOR);
  EXPECT_THAT(library.path, HasSubstr("libcublasLt.so"));
}

TEST(CublasLtLibrary, LooksForTheHeadersMajorVersionFirstAndInTheEnvironmentsToolkits) {
  const std::vector<std::string> candidates =
      lazy::runtime::cublaslt_library_candidates("/opt/cuda-home", nullptr);
  auto position = [&](const std::string& candidate) {
    return std::find(candidates.begin(), candidates.end(), candidate) - candidates.begin();
  };
  const std::string versioned = "libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR);
  const auto end = std::ptrdiff_t(candidates.size());
  EXPECT_EQ(position(versioned), 0);
  ASSERT_LT(position("/opt/cuda-home/lib64/" + versioned), end);
  ASSERT_LT(position("/usr/local/cuda/lib64/" + versioned), end);
  ASSERT_LT(position("libcublasLt.so"), end);
  EXPECT_LT(position("/opt/cuda-home/lib64/" + versioned),
            position("/usr/local/cuda/lib64/" + versioned));
  EXPECT_LT(position("/usr/local/cuda/lib64/" + versioned), position("libcublasLt.so"));
}

TEST(CublasLtLibrary, StatusTextNamesTheStatus) {
  EXPECT_THAT(lazy::runtime::cublas_status_text(CUBLAS_STATUS_NOT_SUPPORTED),
              HasSubstr("CUBLAS_STATUS_NOT_SUPPORTED"));
}

TEST(CublasLtLibrary, ErrorsNameTheFunctionTheStatusAndTheProblem) {
  try {
    lazy::runtime::check_cublaslt(CUBLAS_STATUS_INVALID_VALUE, "cublasLtMatmul",
                                  "cuBLASLt f16 m=8 n=8 k=8");
    FAIL() << "no error";
  } catch (const lazy::RuntimeError& error) {
    EXPECT_THAT(error.what(), HasSubstr("cublasLtMatmul failed with CUBLAS_STATUS_INVALID_VALUE"));
    EXPECT_THAT(error.what(), HasSubstr("cuBLASLt f16 m=8 n=8 k=8"));
  }
}

// ---- the algorithm store ----

const AlgorithmScope kScope{130100, 90};

// An algorithm with recognisable bytes.
cublasLtMatmulAlgo_t algorithm(std::uint64_t seed) {
  cublasLtMatmulAlgo_t algo;
  for (std::size_t i = 0; i < std::size(algo.data); ++i) algo.data[i] = seed * 1000 + i;
  return algo;
}

bool same(const cublasLtMatmulAlgo_t& a, const cublasLtMatmulAlgo_t& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// A description, and its key, no other test uses.
struct Product {
  std::string description;
  lazy::ir::Hash128 key;
  explicit Product(const std::string& name)
      : description("test product " + name + " " + std::to_string(::getpid())),
        key(lazy::ir::hash_bytes(description.data(), description.size())) {}
};

fs::path cache_root() {
  return lazy::jit::disk_cache().config().root;
}

// Writes an entry as an earlier run would have.
void write_entry(const fs::path& root, const Product& product, std::string_view description,
                 const cublasLtMatmulAlgo_t& algo, AlgorithmScope scope) {
  const fs::path path = lazy::runtime::matmul_algorithm_path(root, product.key, scope);
  ASSERT_TRUE(lazy::jit::make_private_directories(path.parent_path()));
  const std::string_view payload(reinterpret_cast<const char*>(&algo), sizeof algo);
  {
    std::ofstream file(path, std::ios::binary);
    file << lazy::jit::cache_entry_header(product.key, description, payload) << description
         << payload;
  }
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
}

class MatmulAlgorithmStore : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!lazy::jit::disk_cache().usable()) GTEST_SKIP() << "the cache directory is not usable";
  }
};

TEST_F(MatmulAlgorithmStore, StoredAlgorithmIsFoundInThisProcessAndWrittenToDisk) {
  const Product product("stored");
  lazy::runtime::store_matmul_algorithm(product.key, product.description, algorithm(1), kScope);
  auto found = lazy::runtime::find_matmul_algorithm(product.key, product.description, kScope);
  ASSERT_TRUE(found.has_value());
  EXPECT_TRUE(same(found->algo, algorithm(1)));
  EXPECT_FALSE(found->from_disk);
  EXPECT_TRUE(fs::exists(lazy::runtime::matmul_algorithm_path(cache_root(), product.key, kScope)));
}

TEST_F(MatmulAlgorithmStore, EntryOfAnEarlierRunIsReadFromDisk) {
  const Product product("earlier run");
  write_entry(cache_root(), product, product.description, algorithm(2), kScope);
  auto found = lazy::runtime::find_matmul_algorithm(product.key, product.description, kScope);
  ASSERT_TRUE(found.has_value());
  EXPECT_TRUE(same(found->algo, algorithm(2)));
  EXPECT_TRUE(found->from_disk);
}

TEST_F(MatmulAlgorithmStore, EntryOfAnotherProductIsAMissAndIsRemoved) {
  const Product product("collision");
  write_entry(cache_root(), product, "another product", algorithm(3), kScope);
  EXPECT_FALSE(lazy::runtime::find_matmul_algorithm(product.key, product.description, kScope));
  EXPECT_FALSE(fs::exists(lazy::runtime::matmul_algorithm_path(cache_root(), product.key, kScope)));
}

TEST_F(MatmulAlgorithmStore, DamagedEntryIsAMissAndIsRemoved) {
  const Product product("damaged");
  write_entry(cache_root(), product, product.description, algorithm(4), kScope);
  const fs::path path = lazy::runtime::matmul_algorithm_path(cache_root(), product.key, kScope);
  {
    std::fstream file(path, std::ios::binary | std::ios::in | std::ios::out);
    file.seekp(-3, std::ios::end);
    file.put('\x5a');
  }
  EXPECT_FALSE(lazy::runtime::find_matmul_algorithm(product.key, product.description, kScope));
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(MatmulAlgorithmStore, EntryWritableByOthersIsNotRead) {
  const Product product("writable by others");
  write_entry(cache_root(), product, product.description, algorithm(5), kScope);
  const fs::path path = lazy::runtime::matmul_algorithm_path(cache_root(), product.key, kScope);
  fs::permissions(path, fs::perms::others_write, fs::perm_options::add);
  EXPECT_FALSE(lazy::runtime::find_matmul_algorithm(product.key, product.description, kScope));
  fs::remove(path);
}

TEST_F(MatmulAlgorithmStore, AnotherCublasLtOrArchIsAnotherDirectory) {
  const Product product("scope");
  const fs::path here = lazy::runtime::matmul_algorithm_path(cache_root(), product.key, kScope);
  EXPECT_NE(here, lazy::runtime::matmul_algorithm_path(cache_root(), product.key, {130200, 90}));
  EXPECT_NE(here, lazy::runtime::matmul_algorithm_path(cache_root(), product.key, {130100, 100}));
  write_entry(cache_root(), product, product.description, algorithm(6), kScope);
  EXPECT_FALSE(
      lazy::runtime::find_matmul_algorithm(product.key, product.description, {130100, 100}));
}

TEST_F(MatmulAlgorithmStore, ForgottenAlgorithmIsGoneFromMemoryAndDisk) {
  const Product product("forgotten");
  lazy::runtime::store_matmul_algorithm(product.key, product.description, algorithm(7), kScope);
  lazy::runtime::forget_matmul_algorithm(product.key, kScope);
  EXPECT_FALSE(lazy::runtime::find_matmul_algorithm(product.key, product.description, kScope));
}

TEST(MatmulAlgorithmEntries, CountAsCacheEntriesAndAreCleared) {
  std::string pattern = (fs::temp_directory_path() / "lazyfuse-algorithm-clear-XXXXXX").string();
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  const fs::path root = pattern;
  lazy::jit::DiskCacheConfig config;
  config.root = root;
  lazy::jit::DiskCache cache(config);
  const Product product("cleared");
  write_entry(root, product, product.description, algorithm(8), kScope);
  EXPECT_EQ(cache.entries().size(), 1u);
  EXPECT_EQ(cache.clear(), 1u);
  EXPECT_FALSE(fs::exists(lazy::runtime::matmul_algorithm_path(root, product.key, kScope)));
  fs::remove_all(root);
}

}  // namespace
