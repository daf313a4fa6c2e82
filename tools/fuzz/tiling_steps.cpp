#include "tools/fuzz/tiling_steps.h"

#include <string>
#include <vector>

namespace lazy::fuzz {

namespace {

void add_roll(GrowingProgram& g, Step& s, int rank) {
  Random& random = g.random();
  s.name = "roll";
  const std::vector<std::int64_t> shifts = {1, -1, 2, 3, -5, 7, 100, -64};
  if (rank == 0 || random.chance(25)) {
    s.counts = {random.pick(shifts)};
    return;
  }
  const int axes = random.chance(30) ? 2 : 1;
  for (int k = 0; k < axes; ++k) {
    s.axes.push_back(g.random_axis(rank));
    s.counts.push_back(random.pick(shifts));
  }
}

void add_repeat(GrowingProgram& g, Step& s, int rank) {
  Random& random = g.random();
  s.name = random.chance(60) ? "repeat" : "tile";
  // tile may leave leading axes out; both may add up to two.
  const int extra = int(random.below(3));
  const int given = s.name == "tile" && rank > 0 ? int(random.between(1, rank)) : rank;
  for (int k = 0; k < given + extra && k < kMaxRank; ++k)
    s.counts.push_back(random.pick(std::vector<std::int64_t>{1, 1, 2, 3, 0, 2}));
}

void add_pad(GrowingProgram& g, Step& s, int x, int rank) {
  Random& random = g.random();
  static const std::vector<std::string> modes = {"pad_constant", "pad_constant", "pad_reflect",
                                                 "pad_replicate", "pad_circular"};
  s.name = random.pick(modes);
  const std::vector<std::int64_t> amounts = {0, 1, 2, 3, -1, 1};
  s.counts = {random.pick(amounts), random.pick(amounts)};
  // A second pair moves the axis before the last without resizing it: (b, -b).
  if (rank >= 2 && random.chance(35)) {
    const std::int64_t b = random.pick(std::vector<std::int64_t>{1, -1, 2});
    s.counts.push_back(b);
    s.counts.push_back(-b);
  }
  s.derived_size = g.new_derived_size();
  if (s.name != "pad_constant") return;
  s.args.push_back(fill_number(random, g.dtype(x)));
}

}  // namespace

void add_tiling(GrowingProgram& g, int x) {
  const int rank = int(g.shape(x).size());
  Step s = GrowingProgram::step_of(Op::tiling, "", {GrowingProgram::tensor_arg(x)});
  switch (g.random().weighted({30, 35, rank > 0 ? 35 : 0})) {
    case 0:
      add_roll(g, s, rank);
      break;
    case 1:
      add_repeat(g, s, rank);
      break;
    default:
      add_pad(g, s, x, rank);
      break;
  }
  g.try_add(s);
}

}  // namespace lazy::fuzz
