#include "tools/fuzz/view_steps.h"

#include <algorithm>
#include <string>
#include <vector>

namespace lazy::fuzz {

void add_strided_view(GrowingProgram& g, int x) {
  const std::vector<Dim>& shape = g.shape(x);
  const int rank = int(shape.size());
  if (rank == 0) return;
  Random& random = g.random();
  Step s = GrowingProgram::step_of(Op::strided_view, "", {GrowingProgram::tensor_arg(x)});
  s.axis = g.random_axis(rank);
  const std::int64_t n = dim_value(g.program(), shape[std::size_t((s.axis + rank) % rank)]);
  switch (random.weighted({30, rank >= 2 ? 25 : 0, 15, 10, 10, 10})) {
    case 0:  // flip: a few distinct axes
      s.name = "flip";
      for (int a = 0; a < rank; ++a)
        if (random.chance(50)) s.axes.push_back(random.chance(30) ? a - rank : a);
      if (s.axes.empty()) s.axes.push_back(s.axis);
      for (std::size_t i = s.axes.size(); i > 1; --i)
        std::swap(s.axes[i - 1], s.axes[std::size_t(random.below(std::int64_t(i)))]);
      break;
    case 1:  // diagonal of two distinct axes, the offset off the matrix now and then
      s.name = "diagonal";
      s.axes = {g.random_axis(rank), g.random_axis(rank)};
      if ((s.axes[0] + rank) % rank == (s.axes[1] + rank) % rank) return;
      s.k = random.pick(std::vector<std::int64_t>{0, 0, 1, -1, 2, -3, 40});
      s.derived_size = g.new_derived_size();
      break;
    case 2:  // narrow: start in [-n, n], length to the end at most
      s.name = "narrow";
      s.start = random.between(-n, n);
      s.stop = random.between(0, n - (s.start < 0 ? s.start + n : s.start));
      break;
    case 3:
      s.name = "chunk";
      s.k = random.between(1, 5);
      s.start = random.below(std::min(s.k, std::max<std::int64_t>(n, 1)));
      s.derived_size = g.new_derived_size();
      break;
    case 4:
      s.name = "split";
      s.k = random.between(1, std::max<std::int64_t>(n, 1));
      s.start = random.below((n + s.k - 1) / s.k);
      s.derived_size = g.new_derived_size();
      break;
    default:
      if (n == 0) return;
      s.name = "unbind";
      s.start = random.between(0, std::min<std::int64_t>(n - 1, 4));
      break;
  }
  g.try_add(s);
}

}  // namespace lazy::fuzz
