#include "tools/fuzz/statistic_steps.h"

#include <limits>
#include <string>
#include <vector>

namespace lazy::fuzz {

void add_statistic(GrowingProgram& g, int x) {
  Random& random = g.random();
  Step s = GrowingProgram::step_of(Op::statistic, "", {GrowingProgram::tensor_arg(x)});
  s.axes = g.random_axes(int(g.shape(x).size()));
  s.keepdim = random.chance(40);
  s.name = random.pick(
      std::vector<std::string>{"nansum", "nanmean", "count_nonzero", "vector_norm", "vector_norm"});
  if (s.name == "count_nonzero") s.keepdim = false;  // it keeps no axis, as PyTorch's
  if (g.options().generation >= 11 && g.shape(x).size() == 2 && g.dtype(x) != DType::bool_ &&
      random.chance(30)) {
    s.name = "trace";
    s.axes.clear();
    s.keepdim = false;
  }
  constexpr double inf = std::numeric_limits<double>::infinity();
  s.q = random.pick(std::vector<double>{2, 2, 1, 3, 0, inf, -inf});
  g.try_add(s);
}

}  // namespace lazy::fuzz
