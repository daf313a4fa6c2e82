#include "tools/fuzz/loss_steps.h"

#include <string>
#include <vector>

namespace lazy::fuzz {

void add_loss(GrowingProgram& g, int x) {
  if (!is_floating(g.dtype(x))) return;
  Random& random = g.random();
  const std::string loss = random.pick(
      std::vector<std::string>{"mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
                               "binary_cross_entropy_with_logits", "kl_div", "kl_div_log_target"});
  std::vector<std::string> reductions = {"none", "mean", "sum"};
  if (loss.starts_with("kl_div")) reductions.push_back("batchmean");
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
  g.try_add(GrowingProgram::step_of(Op::loss, loss + "." + random.pick(reductions), args));
}

}  // namespace lazy::fuzz
