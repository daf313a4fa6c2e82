// What LAZY_DEBUG=2 prints for a sync: the partition names which path runs each matrix product, a
// cuBLASLt call or the library's own kernel for few rows. Plans are built without a GPU too
// (compiled for LAZY_ARCH), so this runs anywhere.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include <lazy/lazy.h>

namespace {

using lazy::DType;
using lazy::Tensor;
using ::testing::HasSubstr;
using ::testing::Not;

// The library reads LAZY_DEBUG once per process, at its first sync: set it before any test runs.
const bool kDebugLevelSet = ::setenv("LAZY_DEBUG", "2", 1) == 0;

// What stderr shows for the sync of gelu_tanh(x @ w^T + b) in bf16, x of `rows` rows.
std::string partition_text_of_linear(std::int64_t rows, std::uint64_t seed) {
  Tensor x = lazy::randn({rows, 64}, seed).to(DType::bf16);
  Tensor w = lazy::randn({32, 64}, seed + 1).to(DType::bf16);
  Tensor b = lazy::randn({32}, seed + 2).to(DType::bf16);
  lazy::eval({x, w, b});
  Tensor y = lazy::gelu_tanh(lazy::linear(x, w, b));
  ::testing::internal::CaptureStderr();
  lazy::eval({y});
  return ::testing::internal::GetCapturedStderr();
}

TEST(DebugText, AProductOfFewRowsSaysItRunsAsTheLibrarysKernel) {
  ASSERT_TRUE(kDebugLevelSet);
  const std::string text = partition_text_of_linear(8, 11);
  EXPECT_THAT(text, HasSubstr("one matrix product: bf16"));
  EXPECT_THAT(
      text,
      HasSubstr("product runs as the library's kernel for at most 16 rows (its epilogue inside)"));
  EXPECT_THAT(text, Not(HasSubstr("cuBLASLt call"))) << text;
}

TEST(DebugText, AProductOfManyRowsSaysItIsOneCublasLtCall) {
  ASSERT_TRUE(kDebugLevelSet);
  const std::string text = partition_text_of_linear(48, 21);
  EXPECT_THAT(text, HasSubstr("one matrix product: bf16"));
  EXPECT_THAT(text, HasSubstr("product runs as one cuBLASLt call"));
  EXPECT_THAT(text, Not(HasSubstr("library's kernel for at most 16 rows"))) << text;
}

}  // namespace
