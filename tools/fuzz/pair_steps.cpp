#include "tools/fuzz/pair_steps.h"

#include <string>
#include <vector>

#include "tools/fuzz/indexing_steps.h"

namespace lazy::fuzz {

namespace {

// x itself (isclose(x, x), a distance of 0) or a new leaf of `shape` and x's dtype; -1 when the
// leaf came out of another dtype.
int second_operand(GrowingProgram& g, int x, const std::vector<Dim>& shape) {
  if (g.random().chance(25)) return x;
  const int other = g.add_leaf(shape, g.dtype(x));
  return other >= 0 && g.dtype(other) == g.dtype(x) ? other : -1;
}

}  // namespace

void add_pair(GrowingProgram& g, int x) {
  const std::vector<Dim> shape = g.shape(x);  // a copy: new leaves grow the builder
  Random& random = g.random();
  Step s = GrowingProgram::step_of(Op::pair, "", {GrowingProgram::tensor_arg(x)});
  int other;
  switch (random.weighted({35, 35, 30})) {
    case 0:
      if (g.dtype(x) == DType::bool_) return;
      s.name = "isclose";
      s.q = random.pick(std::vector<double>{1e-5, 0, 0x1p-10, 0.25});
      s.eps = random.pick(std::vector<double>{1e-8, 0, 0x1p-10, 0.25});
      s.largest = random.chance(30);
      other = second_operand(g, x, shape);
      break;
    case 1:
      if (shape.empty() || !is_floating(g.dtype(x))) return;
      s.name = "pairwise_distance";
      s.q = random.pick(std::vector<double>{2, 2, 1, 3});
      s.keepdim = random.chance(30);
      other = second_operand(g, x, shape);
      break;
    default:
      if (shape.size() != 1) return;
      s.name = "outer";
      other = random.chance(25) ? x : g.add_leaf({Dim{{g.some_size()}, 1}});
      break;
  }
  if (other < 0) return;
  s.args.push_back(GrowingProgram::tensor_arg(other));
  g.try_add(s);
}

void add_one_hot(GrowingProgram& g, int x) {
  const std::vector<Dim> shape = g.shape(x);  // a copy: new leaves grow the builder
  if (shape.empty() || dim_value(g.program(), shape.back()) == 0) return;
  Step ids = index_leaf(g, shape.back());
  ids.shape = std::vector<Dim>(shape.begin(), shape.end() - 1);
  const int index = g.add(ids);
  if (index < 0) return;
  Step s = GrowingProgram::step_of(Op::one_hot, "one_hot", {GrowingProgram::tensor_arg(index)});
  s.shape = {shape.back()};
  s.dtype = g.random().pick(
      std::vector<DType>{DType::i64, DType::i64, DType::f32, g.dtype(x), DType::bool_, DType::f16});
  g.try_add(s);
}

}  // namespace lazy::fuzz
