#include "tools/fuzz/loss_steps.h"

#include <string>
#include <vector>

#include "tools/fuzz/indexing_steps.h"

namespace lazy::fuzz {

namespace {

std::string with_reduction(const std::string& loss, Random& random, bool batchmean = false) {
  std::vector<std::string> reductions = {"none", "mean", "sum"};
  if (batchmean) reductions.push_back("batchmean");
  return loss + "." + random.pick(reductions);
}

// A weight of `shape` and `dtype` at least 0.25: |a new leaf| + 0.25 (a mean divides by the
// weights taken); -1 when a step is refused or the leaf holds NaN or infinity.
int positive_leaf(GrowingProgram& g, const std::vector<Dim>& shape, DType dtype) {
  const int leaf = g.add_leaf(shape, dtype);
  if (leaf < 0 || g.dtype(leaf) != dtype || g.bounds(leaf).special) return -1;
  const int magnitude =
      g.add(GrowingProgram::step_of(Op::unary, "abs", {GrowingProgram::tensor_arg(leaf)}));
  if (magnitude < 0) return -1;
  return g.add(GrowingProgram::step_of(
      Op::binary, "add", {GrowingProgram::tensor_arg(magnitude), Arg{.number = 0.25}}));
}

// From generation 12, now and then a weight of the shape `shape_of` draws (and its place among
// s's arguments); earlier generations draw nothing.
template <class ShapeOf>
void maybe_weight(GrowingProgram& g, Step& s, int& arg, ShapeOf shape_of, DType dtype) {
  if (g.options().generation < 12 || !g.random().chance(40)) return;
  const int weight = positive_leaf(g, shape_of(), dtype);
  if (weight < 0) return;
  arg = int(s.args.size());
  s.args.push_back(GrowingProgram::tensor_arg(weight));
}

// cross_entropy against class indices or probabilities, or nll_loss, of x's classes along axis
// 1 (0 for a 1-d x), with ignore_index (`k`) and label smoothing (`q`), and (generation 12) class
// weights.
void add_class_loss(GrowingProgram& g, int x) {
  const std::vector<Dim> shape = g.shape(x);  // a copy: new leaves grow the builder
  if (shape.empty()) return;
  const std::size_t axis = shape.size() == 1 ? 0 : 1;
  if (dim_value(g.program(), shape[axis]) == 0) return;
  Random& random = g.random();
  const bool probabilities = random.chance(25);
  const std::string loss = probabilities       ? "cross_entropy_probabilities"
                           : random.chance(60) ? "cross_entropy"
                                               : "nll_loss";
  int target;
  if (probabilities) {
    target = g.add_leaf(shape, g.dtype(x));
    if (target >= 0 && g.dtype(target) != g.dtype(x)) return;
  } else {
    Step indices = index_leaf(g, shape[axis]);
    indices.shape = shape;
    indices.shape.erase(indices.shape.begin() + std::ptrdiff_t(axis));
    target = g.add(indices);
  }
  if (target < 0) return;
  Step s =
      GrowingProgram::step_of(Op::loss, with_reduction(loss, random),
                              {GrowingProgram::tensor_arg(x), GrowingProgram::tensor_arg(target)});
  s.k = probabilities ? -100 : random.pick(std::vector<std::int64_t>{-100, -100, 0, 1});
  s.q = loss == "nll_loss" ? 0.0 : random.pick(std::vector<double>{0, 0, 0.1, 0.25});
  maybe_weight(
      g, s, s.weight_arg, [&] { return std::vector<Dim>{shape[axis]}; }, g.dtype(x));
  g.try_add(s);
}

// binary_cross_entropy of sigmoid(x), a probability, against sigmoid of a new leaf of x's shape
// and dtype: PyTorch's CUDA kernel stops the process on an input or target outside [0, 1] or NaN.
void add_probability_loss(GrowingProgram& g, int x) {
  if (g.bounds(x).special) return;
  const int leaf = g.add_leaf(g.shape(x), g.dtype(x));
  if (leaf < 0 || g.dtype(leaf) != g.dtype(x) || g.bounds(leaf).special) return;
  const auto sigmoid = [&](int v) {
    return g.add(GrowingProgram::step_of(Op::unary, "sigmoid", {GrowingProgram::tensor_arg(v)}));
  };
  const int target = sigmoid(leaf), probability = sigmoid(x);
  if (target < 0 || probability < 0) return;
  Step s = GrowingProgram::step_of(
      Op::loss, with_reduction("binary_cross_entropy", g.random()),
      {GrowingProgram::tensor_arg(probability), GrowingProgram::tensor_arg(target)});
  maybe_weight(
      g, s, s.weight_arg, [&] { return g.broadcastable(g.shape(x)); }, g.dtype(x));
  g.try_add(s);
}

}  // namespace

void add_loss(GrowingProgram& g, int x) {
  if (!is_floating(g.dtype(x))) return;
  Random& random = g.random();
  if (g.options().generation >= 9 && random.chance(35)) {
    add_class_loss(g, x);
    return;
  }
  if (g.options().generation >= 11 && random.chance(15)) {
    add_probability_loss(g, x);
    return;
  }
  const std::string loss = random.pick(
      std::vector<std::string>{"mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
                               "binary_cross_entropy_with_logits", "kl_div", "kl_div_log_target"});
  int target = g.add_leaf(g.shape(x), g.dtype(x));
  if (target < 0) return;
  // A leaf may come out i64 (arange): the regression losses promote it, the others take x's
  // dtype only.
  const bool differences = loss.ends_with("l1_loss") || loss == "mse_loss" || loss == "huber_loss";
  if (g.dtype(target) != g.dtype(x) && !differences) return;
  // kl_div's target is a probability (xlogy of a negative one is NaN): its magnitude.
  if (loss == "kl_div") {
    target = g.add(GrowingProgram::step_of(Op::unary, "abs", {GrowingProgram::tensor_arg(target)}));
    if (target < 0) return;
  }
  Step s =
      GrowingProgram::step_of(Op::loss, with_reduction(loss, random, loss.starts_with("kl_div")),
                              {GrowingProgram::tensor_arg(x), GrowingProgram::tensor_arg(target)});
  if (loss == "binary_cross_entropy_with_logits") {
    // PyTorch's pos_weight broadcasts against the target, a per-class [C] most often.
    const auto broadcast = [&] { return g.broadcastable(g.shape(x)); };
    maybe_weight(g, s, s.weight_arg, broadcast, g.dtype(x));
    maybe_weight(g, s, s.pos_weight_arg, broadcast, g.dtype(x));
  }
  g.try_add(s);
}

}  // namespace lazy::fuzz
