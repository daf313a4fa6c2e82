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

// cross_entropy against class indices or probabilities, or nll_loss, of x's classes along axis
// 1 (0 for a 1-d x), with ignore_index (`k`) and label smoothing (`q`).
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
  g.try_add(GrowingProgram::step_of(
      Op::loss, with_reduction("binary_cross_entropy", g.random()),
      {GrowingProgram::tensor_arg(probability), GrowingProgram::tensor_arg(target)}));
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
  std::vector<Arg> args = {GrowingProgram::tensor_arg(x), GrowingProgram::tensor_arg(target)};
  g.try_add(GrowingProgram::step_of(
      Op::loss, with_reduction(loss, random, loss.starts_with("kl_div")), args));
}

}  // namespace lazy::fuzz
