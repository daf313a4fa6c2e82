// Reductions of a 0-d tensor over axis 0 or -1 fold its one element, as in PyTorch (which wraps
// a 0-d tensor's dims to [-1, 0]); any other axis is an AxisError at the call.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include <lazy/lazy.h>

#include "error_test_support.h"

namespace {

TEST(ZeroDimReductions, AxisZeroOrMinusOneFoldsTheOneElement) {
  lazy::Tensor x = lazy::full({}, 2.5f);
  for (int axis : {0, -1}) {
    EXPECT_EQ(lazy::sum(x, axis).item<float>(), 2.5f);
    EXPECT_EQ(lazy::max(x, axis, true).item<float>(), 2.5f);
    EXPECT_EQ(lazy::sum(x, axis, true).rank(), 0);
    EXPECT_EQ(lazy::argmax(x, axis).item<std::int64_t>(), 0);
    EXPECT_EQ(lazy::softmax(x, axis).item<float>(), 1.0f);
    EXPECT_EQ(lazy::log_softmax(x, axis).item<float>(), 0.0f);
    EXPECT_FLOAT_EQ(lazy::logsumexp(x, axis).item<float>(), 2.5f);
    EXPECT_TRUE(std::isnan(lazy::var(x, axis).item<float>()));  // one element, correction 1
    EXPECT_EQ(lazy::var(x, axis, 0.0).item<float>(), 0.0f);
  }
}

TEST(ZeroDimReductions, OtherAxesAndRepeatsAreAxisErrorsAtTheCall) {
  lazy::Tensor x = lazy::full({}, 2.5f);
  EXPECT_ERROR_AT_THIS_LINE(lazy::AxisError, lazy::sum(x, 1));
  EXPECT_ERROR_AT_THIS_LINE(lazy::AxisError, lazy::softmax(x, -2));
  EXPECT_ERROR_AT_THIS_LINE(lazy::AxisError, lazy::sum(x, {0, -1}));
}

TEST(ZeroDimReductions, ABadSoftmaxAxisNamesSoftmaxNotTheOpsItIsMadeOf) {
  lazy::Tensor m = lazy::ones({2, 3});
  EXPECT_THAT(lazy_test::message_of<lazy::AxisError>([&] { (void)lazy::softmax(m, 5); }),
              ::testing::HasSubstr("lazy::softmax: axis 5"));
  EXPECT_THAT(lazy_test::message_of<lazy::AxisError>([&] { (void)lazy::log_softmax(m, -3); }),
              ::testing::HasSubstr("lazy::log_softmax: axis -3"));
}

}  // namespace
