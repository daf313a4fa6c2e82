#include "tools/fuzz/mask_steps.h"

#include <vector>

namespace lazy::fuzz {

void add_mask(GrowingProgram& g, int x) {
  const std::vector<Dim> shape = g.shape(x);
  Random& random = g.random();
  Step s;
  if (shape.size() >= 2 && random.chance(50)) {
    s.op = Op::triangle;
    s.name = random.chance(50) ? "tril" : "triu";
    s.k = random.pick(std::vector<std::int64_t>{0, 0, 1, -1, 2, -3});
    s.args = {GrowingProgram::tensor_arg(x)};
    g.try_add(s);
    return;
  }
  const int mask = g.add_leaf(random.chance(60) ? shape : g.broadcastable(shape), DType::bool_);
  if (mask < 0) return;
  const Arg value = fill_number(random, g.dtype(x));
  s.op = Op::masked_fill;
  s.name = "masked_fill";
  s.args = {GrowingProgram::tensor_arg(x), GrowingProgram::tensor_arg(mask), value};
  g.try_add(s);
}

}  // namespace lazy::fuzz
