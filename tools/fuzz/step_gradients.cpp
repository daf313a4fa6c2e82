#include "tools/fuzz/step_gradients.h"

#include <algorithm>
#include <exception>

#include "tools/fuzz/input_values.h"

namespace lazy::fuzz {

namespace {

bool differentiable(const Step& s, const Builder& forward, int i) {
  if (s.op == Op::data || s.op == Op::rand || s.op == Op::randn || s.op == Op::full ||
      s.op == Op::arange)
    return false;
  return is_floating(forward.tensor(i).dtype());
}

std::vector<int> floating_arguments(const Step& s, const Builder& forward) {
  std::vector<int> wrt;
  for (const Arg& a : s.args)
    if (a.is_tensor() && is_floating(forward.tensor(a.step).dtype()) &&
        std::find(wrt.begin(), wrt.end(), a.step) == wrt.end())
      wrt.push_back(a.step);
  return wrt;
}

}  // namespace

std::vector<StepGradient> record_step_gradients(const Program& program, const Builder& forward,
                                                std::uint64_t key) {
  std::vector<StepGradient> out;
  for (int i = 0; i < forward.size(); ++i) {
    const Step& s = program.steps[std::size_t(i)];
    if (!differentiable(s, forward, i)) continue;
    StepGradient g;
    g.step = i;
    g.wrt = floating_arguments(s, forward);
    if (g.wrt.empty()) continue;
    const Tensor& result = forward.tensor(i);
    g.cotangent = from_data(fz_floats(fz_mix(key + std::uint64_t(i)), result.numel(), -1, 1, -1, 0),
                            result.shape(), result.dtype());
    std::vector<Tensor> primals;
    for (int j : g.wrt) primals.push_back(forward.tensor(j));
    // The step recorded alone: every earlier step is replaced by its computed value, or by the
    // primal for the arguments differentiated, so only step i is traced through.
    const auto step_alone = [&](std::span<const Tensor> at) {
      Program copy = program;
      Builder b(copy);
      for (int j = 0; j < i; ++j) b.substitute(j, forward.tensor(j));
      for (std::size_t k = 0; k < g.wrt.size(); ++k) b.substitute(g.wrt[k], at[k]);
      for (int j = 0; j <= i; ++j) b.apply(j);
      return std::vector<Tensor>{b.tensor(i)};
    };
    try {
      g.gradients = vjp(step_alone, primals, std::span<const Tensor>(&g.cotangent, 1)).gradients;
    } catch (const std::exception& e) {
      g.refused = e.what();
    }
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace lazy::fuzz
