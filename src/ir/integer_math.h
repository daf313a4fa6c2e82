// Integer arithmetic that sizes, chunk counts and launch shapes share.
#pragma once

#include <cstdint>

namespace lazy::ir {

// a / b rounded up, for a >= 0 and b > 0: how many pieces of b hold a.
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

}  // namespace lazy::ir
