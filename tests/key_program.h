// A small program recorded by both the key tests and the key printer (a second process), so the
// two can compare keys across processes.
#pragma once

#include <lazy/lazy.h>

namespace lazy_test {

struct KeyProgram {
  lazy::Tensor x, b, y, z;
};

// Records gelu_tanh((x + b) * scale) + x and a second output; nothing is synced.
inline KeyProgram record_key_program(float scale, std::int64_t rows) {
  KeyProgram p;
  p.x = lazy::randn({rows, 8}, 11);
  p.b = lazy::rand({8}, 12);
  p.y = lazy::gelu_tanh((p.x + p.b) * scale) + p.x;
  p.z = lazy::exp(p.y.transpose(0, 1)).slice(1, 0, -1, 2);
  return p;
}

}  // namespace lazy_test
