#include "tools/fuzz/bitwise_steps.h"

#include <string>
#include <utility>
#include <vector>

namespace lazy::fuzz {

namespace {

// A shift count, in range mostly; 31, 32, 63, 64 and negative counts test the edges.
Arg shift_count(Random& random) {
  Arg count;
  count.kind = Scalar::Kind::integer;
  count.number = double(
      random.chance(60) ? random.between(0, 4)
                        : random.pick(std::vector<std::int64_t>{31, 32, 40, 63, 64, 100, -1, -7}));
  return count;
}

Arg bit_operand(Random& random) {
  Arg number;
  if (random.chance(25)) {
    number.kind = Scalar::Kind::boolean;
    number.number = random.chance(50);
  } else {
    number.kind = Scalar::Kind::integer;
    number.number = double(random.between(-9, 10));
  }
  return number;
}

}  // namespace

void add_bitwise(GrowingProgram& g, int x) {
  Random& random = g.random();
  if (is_floating(g.dtype(x))) {
    Step cast = GrowingProgram::step_of(Op::cast, "to", {GrowingProgram::tensor_arg(x)});
    cast.dtype = random.chance(50) ? DType::i32 : DType::i64;
    x = g.add(cast);
    if (x < 0) return;
  }
  static const std::vector<std::string> ops = {"bitwise_and",        "bitwise_or",
                                               "bitwise_xor",        "bitwise_not",
                                               "bitwise_left_shift", "bitwise_right_shift"};
  const std::string op = random.pick(ops);
  if (op == "bitwise_not") {
    g.try_add(GrowingProgram::step_of(Op::unary, op, {GrowingProgram::tensor_arg(x)}));
    return;
  }
  const bool shift = op.ends_with("shift");
  Arg other;
  if (random.chance(40)) {
    other = shift ? shift_count(random) : bit_operand(random);
  } else {
    const std::vector<Dim>& shape = g.shape(x);
    const DType dtype = random.pick(std::vector<DType>{DType::i32, DType::i64, DType::bool_});
    const int y = g.add_leaf(random.chance(70) ? shape : g.broadcastable(shape), dtype);
    if (y < 0) return;
    other = GrowingProgram::tensor_arg(y);
  }
  std::vector<Arg> args = {GrowingProgram::tensor_arg(x), other};
  if (random.chance(25)) std::swap(args[0], args[1]);
  g.try_add(GrowingProgram::step_of(Op::binary, op, std::move(args)));
}

}  // namespace lazy::fuzz
