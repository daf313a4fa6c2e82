#include "tools/fuzz/gradient_check.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include <lazy/lazy.h>

#include "tools/fuzz/bounds.h"
#include "tools/fuzz/builder.h"
#include "tools/fuzz/input_values.h"

namespace lazy::fuzz {

namespace {

// The direction moves each leaf element by at most this fraction of its range; the leaves are
// drawn twice as far inside their range, so every point evaluated keeps to the generator's
// bounds (a log's operand stays positive).
constexpr double kMove = 2e-4;

struct Leaf {
  int step;
  Shape shape;
  std::vector<double> base, direction;
};

Program in_f32(const Program& program) {
  Program copy = program;
  for (Step& step : copy.steps) {
    if (step.dtype == DType::f16 || step.dtype == DType::bf16) step.dtype = DType::f32;
    if (step.op == Op::data) step.data.quantum = -1;
  }
  return copy;
}

// The range a leaf's values are drawn from: its data spec's, or a generator's bounds (rand's
// [0, 1), randn's [-7, 7]); none for other steps and for data with NaN or infinities.
std::optional<std::pair<double, double>> leaf_range(const Step& s) {
  if (!is_floating(s.dtype)) return std::nullopt;
  if (s.op == Op::rand) return std::pair(0.0, 1.0);
  if (s.op == Op::randn) return std::pair(-7.0, 7.0);
  if (s.op != Op::data || s.data.special > 0 || !(s.data.hi - s.data.lo > 1e-6))
    return std::nullopt;
  return std::pair(s.data.lo, s.data.hi);
}

std::vector<Leaf> choose_leaves(const Program& p) {
  std::vector<Leaf> leaves;
  for (int i = 0; i < int(p.steps.size()); ++i) {
    const Step& s = p.steps[std::size_t(i)];
    const auto bounds = leaf_range(s);
    if (!bounds) continue;
    const auto [lo, hi] = *bounds;
    const double range = hi - lo;
    Leaf leaf{i, concrete_shape(p, s.shape), {}, {}};
    const std::int64_t n = leaf.shape.numel();
    const double margin = 2 * kMove * range;
    leaf.base = fz_floats(s.data.key ^ 0x9d1e5u, n, lo + margin, hi - margin, -1, 0);
    leaf.direction = fz_floats(s.data.key ^ 0xd14ecu, n, -kMove * range, kMove * range, -1, 0);
    leaves.push_back(std::move(leaf));
  }
  return leaves;
}

std::vector<Tensor> leaf_tensors(const std::vector<Leaf>& leaves, double t) {
  std::vector<Tensor> out;
  for (const Leaf& leaf : leaves) {
    std::vector<double> values = leaf.base;
    for (std::size_t i = 0; i < values.size(); ++i) values[i] += t * leaf.direction[i];
    out.push_back(from_data(values, leaf.shape, DType::f32));
  }
  return out;
}

// What one recording of the program gives the check: the outputs the loss weighs, their error
// bounds, and the steps held at their values when the leaves move (frozen()).
struct Recording {
  std::vector<int> outputs;  // held floating steps whose values the bounds predict
  std::vector<double> errs;
  std::vector<int> frozen;
  std::vector<Tensor> frozen_values;
  // Some step a leaf reaches may hold NaN or infinity (from data with special values). A rule
  // may then give NaN where the loss does not move (max's, as PyTorch's amax, divides by the
  // count of elements equal to a NaN result: none); central differences cannot judge that.
  bool leaf_reaches_special = false;
};

// Steps whose gradient is zero but whose values jump (rounding, integer and bool results) or
// that pass none by definition (stop_gradient). Held at their values when the leaves move, the
// loss has the same gradient without the jumps central differences would see: a ceil of 1683
// values moved by 1e-2 jumps in a few dozen (seed 17226 program 2269).
bool frozen(const Step& s, const Tensor& value) {
  if (s.op == Op::data) return false;
  if (!is_floating(value.dtype())) return true;
  if (s.op == Op::contiguous) return s.name == "stop_gradient";
  return s.op == Op::unary &&
         (s.name == "floor" || s.name == "ceil" || s.name == "round" || s.name == "sign");
}

std::vector<Tensor> record(Program& p, const std::vector<Leaf>& leaves, std::span<const Tensor> at,
                           Recording& rec, bool first) {
  Builder b(p);
  for (std::size_t k = 0; k < leaves.size(); ++k) b.substitute(leaves[k].step, at[k]);
  for (std::size_t k = 0; !first && k < rec.frozen.size(); ++k)
    b.substitute(rec.frozen[k], rec.frozen_values[k]);
  b.apply_all();
  std::vector<Tensor> out;
  std::vector<bool> reached(std::size_t(b.size()), false);  // by a leaf; the first recording's
  for (const Leaf& leaf : leaves) reached[std::size_t(leaf.step)] = true;
  for (int i = 0; i < b.size(); ++i) {
    const Step& s = p.steps[std::size_t(i)];
    const Bounds& bounds = b.bounds(i);
    if (first) {
      for (const Arg& arg : s.args)
        if (arg.is_tensor() && reached[std::size_t(arg.step)]) reached[std::size_t(i)] = true;
      if (reached[std::size_t(i)] && bounds.special) rec.leaf_reaches_special = true;
    }
    if (first && frozen(s, b.tensor(i))) {
      rec.frozen.push_back(i);
      rec.frozen_values.push_back(b.tensor(i));
    }
    if (first && s.held && is_floating(b.tensor(i).dtype()) && !bounds.unchecked &&
        !bounds.special) {
      rec.outputs.push_back(i);
      rec.errs.push_back(bounds.err + ulp(DType::f32, bounds.magnitude()));
    }
  }
  for (int i : rec.outputs) out.push_back(b.tensor(i));
  return out;
}

// sum(w * values) over the outputs, and its rounding noise from the outputs' error bounds: at
// worst (every error one way), and as independent errors add (the square root of the sum of
// squares). The first keeps a correct gradient from failing, the second a kinked loss from
// passing as smooth.
struct Loss {
  double value = 0, noise = 0, typical_noise = 0;
  bool finite = true;
};
Loss weigh(const std::vector<Tensor>& outputs, const std::vector<std::vector<double>>& weights,
           const std::vector<double>& errs) {
  Loss loss;
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const std::vector<double> v = outputs[k].to_vector<double>();
    for (std::size_t i = 0; i < v.size(); ++i) {
      loss.finite = loss.finite && std::isfinite(v[i]);
      loss.value += weights[k][i] * v[i];
      loss.noise += std::fabs(weights[k][i]) * errs[k];
      loss.typical_noise += std::pow(weights[k][i] * errs[k], 2);
    }
  }
  loss.typical_noise = std::sqrt(loss.typical_noise);
  return loss;
}

GradientOutcome skipped(std::string why) {
  return {GradientOutcome::Kind::skipped, std::move(why)};
}

}  // namespace

GradientOutcome check_gradients(const Program& original) {
  Program p = in_f32(original);
  std::vector<Leaf> leaves;
  Recording rec;
  std::vector<std::vector<double>> weights;
  std::vector<Tensor> outputs;
  std::vector<Tensor> gradients;
  try {
    // A shrunk candidate's derived sizes (a slice's length) are stale until it records, and the
    // leaves' shapes read them (seed 17738 program 705's shrinking substituted a [2, 1] leaf
    // where the recording made [2, 0]).
    Builder(p).apply_all();
    discard_recording();
    leaves = choose_leaves(p);
    if (leaves.empty()) return skipped("no floating leaf");
    gradients = grad([&](std::span<const Tensor> at) {
      outputs = record(p, leaves, at, rec, true);
      Tensor loss = zeros({}, DType::f32);
      for (std::size_t k = 0; k < outputs.size(); ++k) {
        const Step& s = p.steps[std::size_t(rec.outputs[k])];
        weights.push_back(
            fz_floats(s.data.key ^ 0xc07a6u ^ std::uint64_t(k), outputs[k].numel(), -1, 1, -1, 0));
        loss = loss + sum(outputs[k] * from_data(weights.back(), outputs[k].shape(), DType::f32));
      }
      return loss;
    })(leaf_tensors(leaves, 0));
    std::vector<Tensor> wanted = gradients;
    wanted.insert(wanted.end(), outputs.begin(), outputs.end());
    wanted.insert(wanted.end(), rec.frozen_values.begin(), rec.frozen_values.end());
    eval(wanted);
  } catch (const StepRejected&) {
    discard_recording();
    return skipped("the f32 copy does not record");
  } catch (const Error& e) {
    discard_recording();
    return {GradientOutcome::Kind::failed, std::string("grad threw: ") + e.what()};
  }
  if (rec.outputs.empty()) return skipped("no floating output");
  const Loss at_base = weigh(outputs, weights, rec.errs);
  // Central differences over the whole move and over an eighth of it: where the two disagree,
  // the loss has kinks inside the move (a sort whose order changes), and neither is its slope.
  constexpr double kSmall = 0.125;
  const double moves[4] = {-1, -kSmall, kSmall, 1};
  Loss moved[4];
  for (int m = 0; m < 4; ++m) {
    const std::vector<Tensor> at = leaf_tensors(leaves, moves[m]);
    try {
      const std::vector<Tensor> out = record(p, leaves, at, rec, false);
      eval(out);
      moved[m] = weigh(out, weights, rec.errs);
    } catch (const StepRejected&) {
      discard_recording();
      return skipped("the f32 copy does not record");
    }
    if (!moved[m].finite) return skipped("values not finite");
  }
  if (!at_base.finite) return skipped("values not finite");
  // The gradient along the direction, and the size of its terms (their rounding).
  double analytic = 0, terms = 0;
  for (std::size_t k = 0; k < leaves.size(); ++k) {
    const std::vector<double> g = gradients[k].to_vector<double>();
    for (std::size_t i = 0; i < g.size(); ++i) {
      analytic += g[i] * leaves[k].direction[i];
      terms += std::fabs(g[i] * leaves[k].direction[i]);
    }
  }
  if (!std::isfinite(analytic) && rec.leaf_reaches_special)
    return skipped("a gradient through NaN or infinity is not finite");
  double noise = at_base.noise, typical = at_base.typical_noise;
  for (const Loss& loss : moved) {
    noise = std::max(noise, loss.noise);
    typical = std::max(typical, loss.typical_noise);
  }
  const double ahead = moved[3].value - at_base.value, behind = at_base.value - moved[0].value;
  const double central = (moved[3].value - moved[0].value) / 2;
  const double central_small = (moved[2].value - moved[1].value) / (2 * kSmall);
  const auto apart = [&](double a, double b, double rel, double abs) {
    return std::fabs(a - b) > rel * std::max(std::fabs(a), std::fabs(b)) + abs;
  };
  if (apart(ahead, behind, 0.05, 4 * typical) ||
      apart(central, central_small, 0.02, 2 * typical + 2 * typical / kSmall))
    return skipped("not smooth along the direction");
  const double tolerance =
      0.02 * std::max(std::fabs(analytic), std::fabs(central)) + 2 * noise + 1e-4 * terms;
  // The short move's estimate, with its noise 1 / kSmall times as large, counts too: one inexact
  // output's noise can hide from the check above a kink that only the whole move crosses (a
  // cummin of 14049 near-equal values beside a linear's output: seed 17550 program 46).
  const double short_tolerance = 0.02 * std::max(std::fabs(analytic), std::fabs(central_small)) +
                                 2 * noise / kSmall + 1e-4 * terms;
  if (std::isfinite(analytic) && (std::fabs(analytic - central) <= tolerance ||
                                  std::fabs(analytic - central_small) <= short_tolerance))
    return {GradientOutcome::Kind::checked, ""};
  std::ostringstream detail;
  detail.precision(9);
  detail << "the gradient along the direction is " << analytic << ", central differences give "
         << central << " (" << central_small << " over an eighth of the move; tolerance "
         << tolerance << ")";
  return {GradientOutcome::Kind::failed, detail.str()};
}

}  // namespace lazy::fuzz
