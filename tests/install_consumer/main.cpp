#include <cstdio>

#include <lazy/lazy.h>

int main() {
  lazy::Tensor x = lazy::arange(1, 5).to(lazy::f32);  // 1 2 3 4
  float total = 0;
  for (float v : (x * x).to_vector<float>()) total += v;
  std::printf("sum of squares %g\n", total);
  return total == 30.0f ? 0 : 1;
}
