// Errors are thrown at the call, as the right type, naming the op, the shapes and the caller's
// file:line; the thread's trace is left as it was and the program goes on.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include <lazy/lazy.h>

#include "error_test_support.h"
#include "ir/trace.h"

namespace {

using ::lazy_test::message_of;
using ::testing::HasSubstr;

std::string here(int line) {
  return std::string("test_errors.cpp:") + std::to_string(line);
}

TEST(Errors, BroadcastMismatchNamesOpShapesAndCallerLine) {
  lazy::Tensor a = lazy::ones({2, 3});
  lazy::Tensor b = lazy::ones({4});
  int line = 0;
  std::string msg = message_of<lazy::ShapeError>([&] {
    line = __LINE__ + 1;  // the call below
    (void)(a + b);
  });
  EXPECT_THAT(msg, HasSubstr("add"));
  EXPECT_THAT(msg, HasSubstr("[2, 3]"));
  EXPECT_THAT(msg, HasSubstr("[4]"));
  EXPECT_THAT(msg, HasSubstr(here(line)));
}

TEST(Errors, NamedFunctionReportsCallerLine) {
  lazy::Tensor a = lazy::ones({2});
  lazy::Tensor b = lazy::ones({3});
  int line = 0;
  std::string msg = message_of<lazy::ShapeError>([&] {
    line = __LINE__ + 1;  // the call below
    lazy::maximum(a, b);
  });
  EXPECT_THAT(msg, HasSubstr("maximum"));
  EXPECT_THAT(msg, HasSubstr(here(line)));
}

TEST(Errors, ErrorCarriesSourceLocation) {
  lazy::Tensor a = lazy::ones({2, 3});
  int line = 0;
  try {
    line = __LINE__ + 1;  // the call below
    a.reshape({7});
    FAIL() << "no exception";
  } catch (const lazy::Error& e) {
    EXPECT_EQ(e.where().line(), unsigned(line));
    EXPECT_THAT(e.where().file_name(), HasSubstr("test_errors.cpp"));
  }
}

TEST(Errors, BadReshapeIsShapeError) {
  lazy::Tensor a = lazy::ones({2, 3});
  int line = 0;
  std::string msg = message_of<lazy::ShapeError>([&] {
    line = __LINE__ + 1;  // the call below
    a.reshape({4, -1});
  });
  EXPECT_THAT(msg, HasSubstr("reshape"));
  EXPECT_THAT(msg, HasSubstr("[2, 3]"));
  EXPECT_THAT(msg, HasSubstr(here(line)));
  message_of<lazy::ShapeError>([&] { a.reshape({-1, -1}); });
}

TEST(Errors, BadAxisIsAxisError) {
  lazy::Tensor a = lazy::ones({2, 3});
  int line = 0;
  std::string msg = message_of<lazy::AxisError>([&] {
    line = __LINE__ + 1;  // the call below
    a.transpose(0, 2);
  });
  EXPECT_THAT(msg, HasSubstr("axis 2"));
  EXPECT_THAT(msg, HasSubstr(here(line)));
  message_of<lazy::AxisError>([&] { a.permute({0, 0}); });
  message_of<lazy::AxisError>([&] { a.slice(-3, 0, 1); });
  message_of<lazy::AxisError>([&] { a.size(2); });
}

TEST(Errors, DTypeNotAllowedIsDTypeError) {
  lazy::Tensor flags = lazy::full({3}, true);
  int line = 0;
  std::string msg = message_of<lazy::DTypeError>([&] {
    line = __LINE__ + 1;  // the call below
    (void)(-flags);
  });
  EXPECT_THAT(msg, HasSubstr("neg"));
  EXPECT_THAT(msg, HasSubstr(here(line)));
  lazy::Tensor ints = lazy::arange(4);
  message_of<lazy::DTypeError>([&] { lazy::gelu(ints); });
  message_of<lazy::DTypeError>([&] { lazy::where(ints, ints, ints); });
  message_of<lazy::DTypeError>([&] { lazy::randn({2}, 1, lazy::i32); });
}

TEST(Errors, ItemOnNonScalarIsShapeError) {
  lazy::Tensor a = lazy::ones({2, 2});
  int line = 0;
  std::string msg = message_of<lazy::ShapeError>([&] {
    line = __LINE__ + 1;  // the call below
    a.item<float>();
  });
  EXPECT_THAT(msg, HasSubstr("item"));
  EXPECT_THAT(msg, HasSubstr("[2, 2]"));
  EXPECT_THAT(msg, HasSubstr(here(line)));
}

TEST(Errors, UndefinedTensorIsValueError) {
  lazy::Tensor undefined;
  lazy::Tensor a = lazy::ones({2});
  message_of<lazy::ValueError>([&] { (void)(a + undefined); });
  message_of<lazy::ValueError>([&] { lazy::exp(undefined); });
}

TEST(Errors, BadArgumentsAreValueErrors) {
  message_of<lazy::ValueError>([&] { lazy::arange(0, 10, 0); });
  message_of<lazy::ValueError>([&] { lazy::add(1, 2); });
  lazy::Tensor i32s = lazy::zeros({2}, lazy::i32);
  message_of<lazy::ValueError>([&] { (void)(i32s + (std::int64_t(1) << 40)); });
}

TEST(Errors, AllLibraryErrorsDeriveFromLazyError) {
  lazy::Tensor a = lazy::ones({2});
  EXPECT_THROW(a.reshape({3}), lazy::Error);
  EXPECT_THROW(a.transpose(0, 1), lazy::Error);
  EXPECT_THROW(lazy::full({2}, true) - lazy::full({2}, false), lazy::Error);
}

TEST(Errors, FailedOpLeavesTraceIntactAndProgramGoesOn) {
  lazy::sync();
  lazy::Tensor x = lazy::from_data(std::vector<float>{1, 2, 3}, {3});
  lazy::Tensor y = x * 2.0f + 1.0f;
  lazy::Tensor wrong = lazy::ones({2});
  lazy::ir::Trace& trace = lazy::ir::Trace::current();
  std::size_t pending = trace.size();
  lazy::ir::Hash128 key = trace.sync_key();

  EXPECT_THROW(y + wrong, lazy::ShapeError);
  EXPECT_THROW(lazy::where(y, y, y), lazy::DTypeError);
  EXPECT_THROW(y + 1e300, lazy::ValueError);  // overflows f32

  EXPECT_EQ(trace.size(), pending);
  EXPECT_EQ(trace.sync_key(), key);
  lazy::Tensor z = y - 1.0f;
  EXPECT_EQ(z.to_vector<float>(), (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{3, 5, 7}));
}

}  // namespace
