// Reading numeric settings from the environment.
#pragma once

#include <cstdlib>
#include <string>

#include <absl/strings/numbers.h>

namespace lazy::ir {

// The positive integer in environment variable `name`, or `fallback` when it is unset or is not
// one.
template <class Int>
Int positive_from_env(const char* name, Int fallback) {
  Int parsed = 0;
  const char* env = std::getenv(name);
  if (env != nullptr && absl::SimpleAtoi(env, &parsed) && parsed > 0) return parsed;
  return fallback;
}

}  // namespace lazy::ir
