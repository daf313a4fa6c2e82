// Helpers for tests of lazy::Error: run a call that must throw, and check where it says it was.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <exception>
#include <functional>
#include <string>
#include <string_view>

namespace lazy_test {

// Runs `op`, which must throw E; returns the message.
template <class E>
std::string message_of(const std::function<void()>& op) {
  try {
    op();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
    return {};
  }
  ADD_FAILURE() << "no exception";
  return {};
}

// "file.cpp:line" for a __FILE__ and __LINE__, as lazy::Error writes its location.
inline std::string file_and_line(std::string_view file, int line) {
  return std::string(file.substr(file.rfind('/') + 1)) + ":" + std::to_string(line);
}

}  // namespace lazy_test

// `statement` (written on one line) throws E, whose message names this file and line: the
// user's call, not a line inside the library.
#define EXPECT_ERROR_AT_THIS_LINE(E, statement)                       \
  EXPECT_THAT(::lazy_test::message_of<E>([&] { (void)(statement); }), \
              ::testing::HasSubstr(::lazy_test::file_and_line(__FILE__, __LINE__)))
