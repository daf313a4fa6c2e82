#include "tools/fuzz/row_steps.h"

#include <string>
#include <vector>

namespace lazy::fuzz {

void add_row_op(GrowingProgram& g, int x) {
  const std::vector<Dim> shape = g.shape(x);  // a copy: new leaves grow the builder
  const int rank = int(shape.size());
  if (rank == 0 || !is_floating(g.dtype(x))) return;
  Random& random = g.random();
  Step s = GrowingProgram::step_of(Op::row_op, "", {GrowingProgram::tensor_arg(x)});
  s.axis = g.random_axis(rank);
  switch (random.weighted({35, 30, 35})) {
    case 0:
      if (dim_value(g.program(), shape[std::size_t((s.axis + rank) % rank)]) % 2 != 0) return;
      s.name = "glu";
      s.derived_size = g.new_derived_size();
      break;
    case 1:
      s.name = "normalize";
      break;
    default: {
      s.name = "cosine_similarity";
      const int other = g.add_leaf(shape, g.dtype(x));
      if (other < 0) return;
      s.args.push_back(GrowingProgram::tensor_arg(other));
      break;
    }
  }
  g.try_add(s);
}

}  // namespace lazy::fuzz
