#include "tools/fuzz/builder.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "ir/dtype_codec.h"
#include "ir/trace.h"
#include "ir/type_promotion.h"
#include "tools/fuzz/api_functions.h"
#include "tools/fuzz/data_bounds.h"
#include "tools/fuzz/data_leaf.h"
#include "tools/fuzz/reduction_rules.h"
#include "tools/fuzz/smooth_function_rules.h"
#include "tools/fuzz/step_recording.h"
#include "tools/fuzz/value_rules.h"

namespace lazy::fuzz {

namespace {

using Loc = std::source_location;

// Tensors past this many elements make the reference evaluator the bottleneck.
constexpr std::int64_t kMaxElements = std::int64_t(1) << 22;
// Values known to less than this (relative to their magnitude, or absolutely below 1) are too
// noisy to compare usefully; the generator picks another op instead.
constexpr double kMaxRelativeError = 0.02;

ir::PromotionOperand promotion_of(const Arg& arg, const std::vector<Tensor>& tensors) {
  if (!arg.is_tensor()) return ir::promotion_operand_of_scalar(scalar_of(arg));
  const Tensor& t = tensors[arg.step];
  return {t.rank() == 0 ? ir::PromotionOperand::Tier::zero_dim
                        : ir::PromotionOperand::Tier::dimensioned,
          t.dtype()};
}

std::int64_t folded_count(const Shape& shape, const std::vector<int>& folded) {
  if (shape.rank() == 0) return 1;  // axis 0 or -1 of a 0-d tensor names its one element
  std::int64_t n = 1;
  for (int a : folded) n *= shape[a];
  return n;
}

}  // namespace

bool broadcast_dims(const std::vector<Dim>& a, const std::vector<Dim>& b, std::vector<Dim>& out) {
  std::size_t rank = std::max(a.size(), b.size());
  out.assign(rank, Dim{});
  for (std::size_t i = 0; i < rank; ++i) {
    const Dim* da = i < rank - a.size() ? nullptr : &a[i - (rank - a.size())];
    const Dim* db = i < rank - b.size() ? nullptr : &b[i - (rank - b.size())];
    if (da == nullptr || is_one(*da))
      out[i] = db ? *db : Dim{};
    else if (db == nullptr || is_one(*db) || *da == *db)
      out[i] = *da;
    else
      return false;
  }
  return true;
}

void Builder::apply(int i) {
  if (program_.steps[i].index_bound) {
    Step& indices = program_.steps[i];
    indices.data.hi = double(dim_value(program_, *indices.index_bound) - 1);
  }
  const Step& step = program_.steps[i];
  // Shapes a step names itself are checked before the API sees them: a shrunk or combined size
  // could make one too large for the host's reference evaluator.
  if (!step.shape.empty() && element_count(program_, step.shape) > double(kMaxElements))
    throw StepRejected("too many elements");
  Tensor out;
  Bounds bounds;
  std::vector<Dim> shape;
  record(step, out, bounds, shape);
  mark_specials_that_may_differ(step, out.dtype(), bounds);
  if (concrete_shape(program_, shape) != out.shape())
    throw std::logic_error("lazyfuse-fuzz: symbolic shape " +
                           concrete_shape(program_, shape).to_string() +
                           " differs from the recorded " + out.shape().to_string() + " at step " +
                           std::to_string(i) + " (" + step_label(step) + ")");
  if (element_count(out.shape()) > double(kMaxElements)) throw StepRejected("too many elements");
  if (!bounds.unchecked && is_floating(out.dtype()) &&
      !(bounds.err <= kMaxRelativeError * std::max(bounds.magnitude(), 1.0)))
    throw StepRejected("values too inexact to compare");
  // Every op's bounds should keep to its dtype; one that does not (an f16 variance of values near
  // 1000: seed 16606 program 1934) would round to infinity where the bounds promise a finite value.
  if (!bounds.unchecked && is_floating(out.dtype()) &&
      bounds.magnitude() + bounds.err > largest(out.dtype()))
    throw StepRejected("values may overflow the dtype");
  if (auto found = substitutes_.find(i); found != substitutes_.end()) out = found->second;
  tensors_.push_back(std::move(out));
  bounds_.push_back(bounds);
  shapes_.push_back(std::move(shape));
}

void Builder::mark_specials_that_may_differ(const Step& step, DType result, Bounds& bounds) const {
  // Steps that multiply within the op: an infinity times a product or normalized value that is
  // 0 in exact math but rounds to a tiny number on one side (seed 17370 program 594: a
  // layer_norm of a constant row with an infinite weight, then 1 / (|y| + 0.5)).
  static const std::set<std::string> kMultiplying = {"mul", "pow", "prod", "cumprod"};
  const bool multiplies = step.op == Op::layer_norm || step.op == Op::rms_norm ||
                          step.op == Op::product || step.op == Op::lerp ||
                          kMultiplying.contains(step.name);
  bool inherited = false;
  for (const Arg& arg : step.args)
    if (arg.is_tensor()) inherited = inherited || bounds_[arg.step].specials_may_differ;
  bounds.specials_may_differ =
      bounds.specials_may_differ || inherited || (multiplies && bounds.special && bounds.err > 0);
  // A comparison or cast of such an element differs as a whole value, not only as a special.
  if (inherited && !is_floating(result)) bounds.unchecked = true;
}

void Builder::apply_all() {
  for (int i = size(); i < int(program_.steps.size()); ++i) apply(i);
}

void discard_recording() {
  ir::Trace::current().clear();
}

void Builder::release_intermediates() {
  for (int i = 0; i < size(); ++i)
    if (!program_.steps[i].held) tensors_[i] = Tensor();
}

void Builder::record(const Step& s, Tensor& out, Bounds& b, std::vector<Dim>& shape) {
  const Loc loc = Loc::current();
  auto arg_tensor = [&](int k) -> const Tensor& { return tensors_[s.args[k].step]; };
  auto operand = [&](int k, DType compute) -> Operand {
    const Arg& a = s.args[k];
    if (a.is_tensor()) return Operand{bounds_[a.step], tensors_[a.step].dtype()};
    return Operand{number_bounds(a.number, compute), compute};
  };
  auto api_operand = [&](int k) -> lazy::Operand {
    const Arg& a = s.args[k];
    if (a.is_tensor()) return lazy::Operand(tensors_[a.step], loc);
    return lazy::Operand(scalar_of(a), loc);
  };
  auto pointwise_shape = [&] {
    std::vector<Dim> result;
    for (const Arg& a : s.args) {
      if (!a.is_tensor()) continue;
      std::vector<Dim> next;
      if (!broadcast_dims(result, shapes_[a.step], next))
        throw StepRejected("shapes do not broadcast symbolically");
      result = next;
    }
    return result;
  };
  switch (s.op) {
    case Op::data: {
      // A leaf replaced anyway is not made: a compiled call's body may not take memory in.
      const auto replaced = substitutes_.find(int(&s - program_.steps.data()));
      out = replaced != substitutes_.end()
                ? replaced->second
                : data_leaf(s.data, s.dtype, concrete_shape(program_, s.shape), loc);
      b = data_bounds(s.data, s.dtype);
      shape = s.shape;
      return;
    }
    case Op::full: {
      Shape sh = concrete_shape(program_, s.shape);
      if (s.name == "zeros")
        out = zeros(sh, s.dtype, loc);
      else if (s.name == "ones")
        out = ones(sh, s.dtype, loc);
      else
        out = full(sh, scalar_of(s.args[0]), s.dtype, loc);
      double v = s.name == "zeros" ? 0 : s.name == "ones" ? 1 : s.args[0].number;
      if (s.dtype == DType::bool_)
        v = v != 0;
      else if (!is_floating(s.dtype))
        v = std::trunc(v);
      b = cast_rule(Operand{number_bounds(v, DType::f32), DType::f32}, s.dtype);
      if (!is_floating(s.dtype)) b = Bounds{v, v, 0, 0};
      shape = s.shape;
      return;
    }
    case Op::arange: {
      std::int64_t n = dim_value(program_, s.shape[0]);
      out = arange(Scalar(s.start), Scalar(s.start + s.step * n), Scalar(s.step), s.dtype, loc);
      double last = double(s.start + s.step * std::max<std::int64_t>(n - 1, 0));
      b = cast_rule(
          Operand{Bounds{std::min<double>(s.start, last), std::max<double>(s.start, last), 0, 0},
                  DType::i64},
          s.dtype);
      shape = s.shape;
      return;
    }
    case Op::rand:
    case Op::randn: {
      Shape sh = concrete_shape(program_, s.shape);
      if (s.op == Op::rand) {
        out = rand(sh, s.data.key, s.dtype, loc);
        b = Bounds{0, 1, 0, significand_bits(s.dtype)};
      } else {
        out = randn(sh, s.data.key, s.dtype, loc);
        // Box-Muller in the host's libm and the GPU's: a few ulp apart.
        b = inexact_result(s.dtype, -7, 7, 0, 8);
      }
      shape = s.shape;
      return;
    }
    case Op::unary: {
      out = unary_fn(s.name)(arg_tensor(0), loc);
      b = unary_rule(s.name, operand(0, arg_tensor(0).dtype()), out.dtype());
      shape = shapes_[s.args[0].step];
      return;
    }
    case Op::binary: {
      out = binary_fn(s.name)(api_operand(0), api_operand(1), loc);
      ir::PromotionOperand ops[2] = {promotion_of(s.args[0], tensors_),
                                     promotion_of(s.args[1], tensors_)};
      DType compute = ir::result_type(ops);
      if (has_floating_result(s.name) && !is_floating(compute)) compute = DType::f32;
      if (s.name.starts_with("logical_")) compute = DType::bool_;
      // As PyTorch's, these take a number rounded to the tensor's dtype (docs/semantics.md).
      const bool rounds = s.name == "pow" || s.name == "remainder" || s.name == "fmod";
      auto binary_operand = [&](int k) {
        const Arg& a = s.args[k];
        if (!rounds || a.is_tensor() || !is_floating(compute)) return operand(k, compute);
        return Operand{number_bounds(ir::round_to_dtype(a.number, compute), compute), compute};
      };
      b = binary_rule(s.name, binary_operand(0), binary_operand(1), compute, out.dtype());
      shape = pointwise_shape();
      return;
    }
    case Op::where: {
      out = where(arg_tensor(0), api_operand(1), api_operand(2), loc);
      b = select_rule(bounds_[s.args[0].step], operand(1, out.dtype()), operand(2, out.dtype()),
                      out.dtype());
      shape = pointwise_shape();
      return;
    }
    case Op::clamp: {
      out = clamp(arg_tensor(0), api_operand(1), api_operand(2), loc);
      DType d = out.dtype();
      Bounds low = binary_rule("maximum", operand(0, d), operand(1, d), d, d);
      b = binary_rule("minimum", Operand{low, d}, operand(2, d), d, d);
      shape = pointwise_shape();
      return;
    }
    case Op::lerp: {
      out = lerp(arg_tensor(0), api_operand(1), api_operand(2), loc);
      DType d = out.dtype();
      b = lerp_rule(operand(0, d), operand(1, d), operand(2, d), d);
      shape = pointwise_shape();
      return;
    }
    case Op::cast: {
      out = s.name == "to" ? arg_tensor(0).to(s.dtype, loc) : cast(arg_tensor(0), s.dtype, loc);
      b = cast_rule(operand(0, arg_tensor(0).dtype()), s.dtype);
      shape = shapes_[s.args[0].step];
      return;
    }
    case Op::join: {
      std::vector<Tensor> parts;
      for (const Arg& arg : s.args) parts.push_back(tensors_[arg.step]);
      out = s.name == "stack" ? stack(parts, s.axis, loc) : cat(parts, s.axis, loc);
      const DType d = out.dtype();
      b = converted(bounds_[s.args[0].step], parts[0].dtype(), d);
      for (std::size_t k = 1; k < parts.size(); ++k)
        b = select_rule(Bounds{0, 1, 0, 0}, Operand{b, d}, operand(int(k), d), d);
      shape = shapes_[s.args[0].step];
      if (s.name == "stack") {
        const int rank = int(shape.size());
        shape.insert(shape.begin() + (s.axis < 0 ? s.axis + rank + 1 : s.axis),
                     Dim{{}, std::int64_t(parts.size())});
        return;
      }
      const int axis = s.axis < 0 ? s.axis + int(shape.size()) : s.axis;
      program_.sizes[s.derived_size].value = out.shape()[axis];
      shape[axis] = Dim{{s.derived_size}, 1};
      return;
    }
    default: {
      if (!recorded_by_its_module(s.op)) break;
      RecordedStep step = record_by_its_module(program_, s, *this, loc);
      out = std::move(step.out);
      b = step.bounds;
      shape = std::move(step.shape);
      return;
    }
  }
  const Tensor& x = arg_tensor(0);
  const std::vector<Dim>& in_shape = shapes_[s.args[0].step];
  b = bounds_[s.args[0].step];
  switch (s.op) {
    case Op::reshape:
      if (s.name == "flatten") {
        out = x.flatten(s.axes[0], s.axes[1], loc);
        int r = int(in_shape.size());
        int start = r == 0 ? 0 : (s.axes[0] + r) % r, end = r == 0 ? 0 : (s.axes[1] + r) % r;
        shape.assign(in_shape.begin(), in_shape.begin() + start);
        Dim merged;
        for (int a = start; a <= end && a < r; ++a) {
          merged.literal *= in_shape[a].literal;
          merged.sizes.insert(merged.sizes.end(), in_shape[a].sizes.begin(),
                              in_shape[a].sizes.end());
        }
        std::sort(merged.sizes.begin(), merged.sizes.end());
        shape.push_back(merged);
        if (r > 0) shape.insert(shape.end(), in_shape.begin() + end + 1, in_shape.end());
      } else {
        Shape target = concrete_shape(program_, s.shape);
        if (s.name == "reshape_infer") target[s.axis] = -1;
        out = x.reshape(target, loc);
        shape = s.shape;
      }
      return;
    case Op::permute:
      if (s.name == "transpose") {
        out = x.transpose(s.axes[0], s.axes[1], loc);
        shape = in_shape;
        int r = int(in_shape.size());
        std::swap(shape[(s.axes[0] + r) % r], shape[(s.axes[1] + r) % r]);
      } else {
        out = x.permute(std::span<const int>(s.axes), loc);
        for (int a : s.axes) shape.push_back(in_shape[(a + in_shape.size()) % in_shape.size()]);
      }
      return;
    case Op::expand:
      out = s.name == "broadcast_to" ? x.broadcast_to(concrete_shape(program_, s.shape), loc)
                                     : x.expand(concrete_shape(program_, s.shape), loc);
      shape = s.shape;
      return;
    case Op::slice: {
      std::optional<std::int64_t> start, stop;
      if (s.has_start) start = s.start;
      if (s.has_stop) stop = s.stop;
      out = x.slice(s.axis, start, stop, s.step, loc);
      int axis = s.axis < 0 ? s.axis + x.rank() : s.axis;
      program_.sizes[s.derived_size].value = out.shape()[axis];
      shape = in_shape;
      shape[axis] = Dim{{s.derived_size}, 1};
      return;
    }
    case Op::squeeze:
      if (s.name == "squeeze_all") {
        out = x.squeeze(loc);
        for (const Dim& d : in_shape)
          if (dim_value(program_, d) != 1) shape.push_back(d);
      } else {
        out = x.squeeze(s.axis, loc);
        shape = in_shape;
        shape.erase(shape.begin() + (s.axis < 0 ? s.axis + x.rank() : s.axis));
      }
      return;
    case Op::unsqueeze: {
      out = x.unsqueeze(s.axis, loc);
      shape = in_shape;
      int axis = s.axis < 0 ? s.axis + x.rank() + 1 : s.axis;
      shape.insert(shape.begin() + axis, Dim{});
      return;
    }
    case Op::contiguous:
      out = s.name == "stop_gradient" ? lazy::stop_gradient(x, loc) : x.contiguous(loc);
      shape = in_shape;
      return;
    default:
      break;
  }
  const Operand xin{bounds_[s.args[0].step], x.dtype()};
  std::vector<int> folded = folded_axes(s.axes, x.rank());
  switch (s.op) {
    case Op::reduce:
      out = reduce_fn(s.name)(x, Axes(std::span<const int>(s.axes)), s.keepdim, loc);
      b = reduce_rule(s.name, xin, out.dtype(), folded_count(x.shape(), folded));
      shape = reduced_shape(in_shape, folded, s.keepdim);
      return;
    case Op::arg_reduce: {
      std::optional<int> axis;
      if (!s.no_axis) axis = s.axis;
      out = s.name == "argmax" ? argmax(x, axis, s.keepdim, loc) : argmin(x, axis, s.keepdim, loc);
      std::vector<int> over =
          s.no_axis ? folded_axes({}, x.rank()) : folded_axes({s.axis}, x.rank());
      b = arg_reduce_rule(xin, folded_count(x.shape(), over));
      shape = reduced_shape(in_shape, over, s.keepdim);
      return;
    }
    case Op::scan: {
      const int axis = x.rank() == 0 ? 0 : (s.axis + x.rank()) % x.rank();
      const std::int64_t n = x.rank() == 0 ? 1 : x.shape()[axis];
      const bool indices = s.name.ends_with("_indices");
      const std::string_view op = std::string_view(s.name).substr(0, 6);  // cumsum, cummax, ...
      if (s.name == "cumsum" || s.name == "cumprod") {
        out = op == "cumsum" ? cumsum(x, s.axis, loc) : cumprod(x, s.axis, loc);
        // Every prefix lies within the bounds of the whole fold.
        b = scan_rule(op == "cumsum" ? "sum" : "prod", xin, out.dtype(), n);
      } else {
        const ValuesAndIndices running =
            op == "cummax" ? cummax(x, s.axis, loc) : cummin(x, s.axis, loc);
        out = indices ? running.indices : running.values;
        b = indices ? arg_reduce_rule(xin, n) : reduce_rule("max", xin, out.dtype(), n);
      }
      shape = in_shape;
      return;
    }
    case Op::top_k: {
      const int axis = x.rank() == 0 ? 0 : (s.axis + x.rank()) % x.rank();
      const std::int64_t n = x.rank() == 0 ? 1 : x.shape()[axis];
      const bool sorts = s.name.starts_with("sort");
      const ValuesAndIndices best = sorts ? sort(x, s.axis, s.largest, loc)
                                          : topk(x, std::min(s.k, n), s.axis, s.largest, loc);
      const bool indices = s.name.ends_with("_indices");
      out = indices ? best.indices : best.values;
      // The i-th best of values within err of the reference's is within err of its i-th best.
      b = indices ? arg_reduce_rule(xin, n) : xin.bounds;
      shape = in_shape;
      if (x.rank() > 0 && !sorts) {
        program_.sizes[s.derived_size].value = out.shape()[axis];
        shape[axis] = Dim{{s.derived_size}, 1};
      }
      return;
    }
    case Op::var:
    case Op::std_dev:
      out = s.op == Op::var
                ? var(x, Axes(std::span<const int>(s.axes)), s.correction, s.keepdim, loc)
                : lazy::std(x, Axes(std::span<const int>(s.axes)), s.correction, s.keepdim, loc);
      b = variance_rule(xin, out.dtype(), folded_count(x.shape(), folded), s.correction,
                        s.op == Op::std_dev);
      shape = reduced_shape(in_shape, folded, s.keepdim);
      return;
    case Op::softmax:
    case Op::log_softmax: {
      out = s.op == Op::softmax ? softmax(x, s.axis, loc) : log_softmax(x, s.axis, loc);
      int axis = s.axis < 0 ? s.axis + x.rank() : s.axis;
      b = softmax_rule(xin, out.dtype(), x.rank() == 0 ? 1 : x.shape()[axis],
                       s.op == Op::log_softmax);
      shape = in_shape;
      return;
    }
    case Op::layer_norm:
    case Op::rms_norm: {
      const Tensor& w = arg_tensor(1);
      Operand win{bounds_[s.args[1].step], w.dtype()};
      std::int64_t n = x.rank() == 0 ? 1 : x.shape()[x.rank() - 1];
      if (s.op == Op::layer_norm) {
        out = layer_norm(x, w, arg_tensor(2), s.eps, loc);
        Operand bin{bounds_[s.args[2].step], arg_tensor(2).dtype()};
        b = norm_rule(xin, win, &bin, out.dtype(), n, s.eps);
      } else {
        out = rms_norm(x, w, s.eps, loc);
        b = norm_rule(xin, win, nullptr, out.dtype(), n, s.eps);
      }
      shape = in_shape;
      return;
    }
    default:
      throw std::logic_error("lazyfuse-fuzz: unhandled step kind");
  }
}

}  // namespace lazy::fuzz
