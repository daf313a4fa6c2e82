#include "tools/fuzz/order_steps.h"

#include <limits>
#include <string>
#include <vector>

namespace lazy::fuzz {

void add_order_statistic(GrowingProgram& g, int x) {
  const int rank = int(g.shape(x).size());
  Random& random = g.random();
  Step s = GrowingProgram::step_of(Op::order_statistic, "", {GrowingProgram::tensor_arg(x)});
  s.axis = rank == 0 ? int(random.between(-1, 0)) : g.random_axis(rank, true);
  s.keepdim = random.chance(30);
  // quantile and cdist take f32 only, as PyTorch's: other dtypes would only be refused.
  const bool f32 = g.dtype(x) == DType::f32;
  switch (random.weighted({30, 12, 20, f32 ? 28 : 0, f32 && rank >= 2 ? 15 : 0})) {
    case 0:
      s.name = random.pick(
          std::vector<std::string>{"median", "median_indices", "nanmedian", "nanmedian_indices"});
      break;
    case 1:
      s.name = random.chance(60) ? "median_all" : "nanmedian_all";
      break;
    case 2:
      s.name = random.chance(65) ? "kthvalue" : "kthvalue_indices";
      s.k = random.between(1, 9);
      break;
    case 3: {
      static const std::vector<std::string> modes = {"linear", "linear",   "lower",
                                                     "higher", "midpoint", "nearest"};
      s.name = (random.chance(60) ? "quantile_" : "nanquantile_") + random.pick(modes);
      s.q = random.pick(std::vector<double>{0, 0.013, 0.25, 0.37, 0.5, 0.9, 1});
      s.no_axis = random.chance(30);
      break;
    }
    default:
      s.name = "cdist";
      s.q = random.pick(
          std::vector<double>{0, 0.5, 1, 1.5, 2, 2, 3, std::numeric_limits<double>::infinity()});
      break;
  }
  g.try_add(s);
}

}  // namespace lazy::fuzz
