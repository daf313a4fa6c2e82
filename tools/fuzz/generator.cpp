#include "tools/fuzz/generator.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tools/fuzz/activation_rules.h"
#include "tools/fuzz/bitwise_steps.h"
#include "tools/fuzz/growing_program.h"
#include "tools/fuzz/guard_rules.h"
#include "tools/fuzz/indexing_steps.h"
#include "tools/fuzz/input_values.h"
#include "tools/fuzz/loss_steps.h"
#include "tools/fuzz/mask_steps.h"
#include "tools/fuzz/order_steps.h"
#include "tools/fuzz/pair_steps.h"
#include "tools/fuzz/product_steps.h"
#include "tools/fuzz/row_steps.h"
#include "tools/fuzz/statistic_steps.h"
#include "tools/fuzz/tiling_steps.h"
#include "tools/fuzz/view_steps.h"

namespace lazy::fuzz {

namespace {

std::vector<std::string> with(std::vector<std::string> ops, std::vector<std::string> added) {
  ops.insert(ops.end(), added.begin(), added.end());
  return ops;
}

class Generator : public GrowingProgram {
 public:
  using GrowingProgram::GrowingProgram;

  Program run() {
    int target = int(random_.between(2, options_.max_steps));
    if (random_.chance(10)) target = options_.max_steps * 2;
    for (int attempts = 0; int(program_.steps.size()) < target && attempts < target * 12;
         ++attempts)
      add_random_step();
    if (program_.steps.empty()) add_leaf(fresh_shape());
    for (int tries = 0; options_.products_only && !has_product() && tries < 20; ++tries)
      add_product(*this, pick_step());
    choose_outputs();
    return program_;
  }

 private:
  // A tensor whose shape broadcasts with `shape`: an existing one, or a new leaf.
  int partner_for(int step) {
    const std::vector<Dim>& shape = builder_.shape(step);
    std::vector<int> candidates;
    std::vector<Dim> unused;
    for (int i = 0; i < count(); ++i)
      if (i != step && broadcast_dims(shape, builder_.shape(i), unused)) candidates.push_back(i);
    if (!candidates.empty() && random_.chance(60)) return random_.pick(candidates);
    return add_leaf(random_.chance(70) ? shape : broadcastable(shape));
  }

  void add_unary(int x) {
    static const std::vector<std::string> first = {
        "neg",  "abs",      "sign",        "square", "relu",    "floor",      "ceil", "round",
        "exp",  "exp2",     "log",         "log2",   "log1p",   "expm1",      "sqrt", "rsqrt",
        "sin",  "cos",      "tanh",        "erf",    "sigmoid", "reciprocal", "gelu", "gelu_tanh",
        "silu", "softplus", "logical_not", "isnan",  "isinf"};
    static const std::vector<std::string> second = with(first, {"trunc"});
    static const std::vector<std::string> fifth =
        with(second, {"tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
                      "log10", "isfinite"});
    const std::vector<std::string>& ops =
        options_.generation >= 5 ? fifth : (options_.generation >= 2 ? second : first);
    Step s;
    s.op = Op::unary;
    s.name = random_.pick(ops);
    if (options_.generation >= 8 && random_.chance(30)) {
      // An activation that takes x's dtype (integers only where it converts or clamps them).
      const std::string& name = random_.pick(activation_names());
      const DType dtype = builder_.tensor(x).dtype();
      if (is_floating(dtype) || (activation_takes_integers(name) && dtype != DType::bool_))
        s.name = name;
    }
    if (options_.generation >= 10 && random_.chance(10) && is_floating(builder_.tensor(x).dtype()))
      s.name = random_.pick(domain_guard_names());
    s.args = {tensor_arg(x)};
    if (try_add(s)) return;
    // Domain-limited functions get a positive argument.
    int positive = positive_from(x);
    if (positive < 0) return;
    s.args = {tensor_arg(positive)};
    try_add(s);
  }

  // |x| + 0.5, recorded as two steps: the last one's index, or -1.
  int positive_from(int x) {
    if (!try_add(step_of(Op::unary, "abs", {tensor_arg(x)}))) return -1;
    Arg half;
    half.number = 0.5;
    if (!try_add(step_of(Op::binary, "add", {tensor_arg(count() - 1), half}))) return -1;
    return count() - 1;
  }

  void add_binary(int x) {
    static const std::vector<std::string> first = {
        "add",       "sub", "mul", "div", "pow", "maximum", "minimum", "atan2",       "hypot",
        "logaddexp", "eq",  "ne",  "lt",  "le",  "gt",      "ge",      "logical_and", "logical_or"};
    static const std::vector<std::string> second =
        with(first, {"floor_divide", "remainder", "fmod"});
    static const std::vector<std::string> fifth = with(second, {"logical_xor"});
    const std::vector<std::string>& ops =
        options_.generation >= 5 ? fifth : (options_.generation >= 2 ? second : first);
    Step s;
    s.op = Op::binary;
    s.name = random_.pick(ops);
    if (random_.chance(40)) {
      Arg number = random_number(random_);
      if (s.name == "pow") {
        number.kind = Scalar::Kind::floating;
        number.number = random_.pick(std::vector<double>{2, 3, 0.5, -1, 1.5, 0});
      }
      s.args = random_.chance(75) ? std::vector<Arg>{tensor_arg(x), number}
                                  : std::vector<Arg>{number, tensor_arg(x)};
    } else {
      int y = partner_for(x);
      if (y < 0) return;
      s.args = {tensor_arg(x), tensor_arg(y)};
      if (random_.chance(50)) std::swap(s.args[0], s.args[1]);
    }
    if (try_add(s) || !s.args[1].is_tensor()) return;
    // atan2 off its branch cut and away from the origin: a positive x; the rounded divisions
    // away from a zero divisor.
    const bool division = s.name == "floor_divide" || s.name == "remainder" || s.name == "fmod";
    if (s.name != "atan2" && !division) return;
    int positive = division && !is_floating(builder_.tensor(s.args[1].step).dtype())
                       ? integer_positive_from(s.args[1].step)
                       : positive_from(s.args[1].step);
    if (positive < 0) return;
    s.args[1] = tensor_arg(positive);
    try_add(s);
  }

  // |x| + 1 in x's integer dtype, recorded as two steps: the last one's index, or -1.
  int integer_positive_from(int x) {
    if (!try_add(step_of(Op::unary, "abs", {tensor_arg(x)}))) return -1;
    Arg one;
    one.number = 1;
    one.kind = Scalar::Kind::integer;
    if (!try_add(step_of(Op::binary, "add", {tensor_arg(count() - 1), one}))) return -1;
    return count() - 1;
  }

  void add_select(int x) {
    Step s;
    if (random_.chance(60)) {
      s.op = Op::where;
      int cond = x;
      if (builder_.tensor(x).dtype() != DType::bool_) {
        Step compare = step_of(Op::binary, random_.chance(50) ? "gt" : "le",
                               {tensor_arg(x), random_number(random_)});
        if (!try_add(compare)) return;
        cond = count() - 1;
      }
      Arg a = random_.chance(50) ? tensor_arg(partner_for(cond)) : random_number(random_);
      Arg b = random_.chance(50) ? tensor_arg(partner_for(cond)) : random_number(random_);
      if ((a.is_tensor() && a.step < 0) || (b.is_tensor() && b.step < 0)) return;
      s.args = {tensor_arg(cond), a, b};
    } else {
      s.op = Op::clamp;
      Arg lo = random_number(random_), hi = random_number(random_);
      if (lo.kind == Scalar::Kind::boolean) lo.kind = Scalar::Kind::integer;
      if (hi.kind == Scalar::Kind::boolean) hi.kind = Scalar::Kind::integer;
      if (random_.chance(30)) lo = tensor_arg(partner_for(x));
      if (lo.is_tensor() && lo.step < 0) return;
      s.args = {tensor_arg(x), lo, hi};
    }
    try_add(s);
  }

  // lerp(x, end, weight): end a tensor or a number; weight a number, a uniform [0, 1) tensor or
  // any tensor.
  void add_lerp(int x) {
    Arg end = random_.chance(60) ? tensor_arg(partner_for(x)) : random_number(random_);
    Arg weight;
    int kind = random_.weighted({45, 30, 25});
    if (kind == 0) {
      weight = random_weight(random_);
    } else if (kind == 1) {
      Step uniform = step_of(Op::rand, "", {});
      uniform.dtype =
          is_floating(builder_.tensor(x).dtype()) ? builder_.tensor(x).dtype() : DType::f32;
      uniform.shape = random_.chance(70) ? builder_.shape(x) : broadcastable(builder_.shape(x));
      uniform.data.key = random_.next();
      if (!try_add(uniform)) return;
      weight = tensor_arg(count() - 1);
    } else {
      weight = tensor_arg(partner_for(x));
    }
    if ((end.is_tensor() && end.step < 0) || (weight.is_tensor() && weight.step < 0)) return;
    try_add(step_of(Op::lerp, "", {tensor_arg(x), end, weight}));
  }

  void add_cast(int x) {
    Step s = step_of(Op::cast, random_.chance(50) ? "to" : "cast", {tensor_arg(x)});
    s.dtype = random_dtype(random_);
    try_add(s);
  }

  void add_view(int x) {
    const std::vector<Dim>& shape = builder_.shape(x);
    int rank = int(shape.size());
    Step s;
    s.args = {tensor_arg(x)};
    switch (random_.weighted({18, 22, 16, 10, 8, 20, 6, 6})) {
      case 0:  // permute or transpose
        if (rank < 2) return;
        s.op = Op::permute;
        if (random_.chance(40)) {
          s.name = "transpose";
          s.axes = {random_axis(rank), random_axis(rank)};
        } else {
          s.axes.resize(rank);
          std::iota(s.axes.begin(), s.axes.end(), 0);
          for (int i = rank - 1; i > 0; --i) std::swap(s.axes[i], s.axes[random_.below(i + 1)]);
        }
        break;
      case 1: {  // slice, negative steps too
        if (rank == 0) return;
        s.op = Op::slice;
        s.axis = random_axis(rank);
        std::int64_t n = dim_value(program_, shape[(s.axis + rank) % rank]);
        s.step = random_.pick(std::vector<std::int64_t>{1, 1, 2, 3, -1, -2});
        s.has_start = random_.chance(60);
        s.has_stop = random_.chance(60);
        s.start = random_.between(-n - 2, n + 2);
        s.stop = random_.between(-n - 2, n + 2);
        s.derived_size = new_derived_size();
        break;
      }
      case 2: {  // expand a size-1 axis, or add leading axes
        s.op = Op::expand;
        s.name = random_.chance(30) ? "broadcast_to" : "expand";
        s.shape = shape;
        bool changed = false;
        for (Dim& d : s.shape)
          if (d == Dim{} && random_.chance(70)) d = Dim{{some_size()}, 1}, changed = true;
        if (!changed || random_.chance(30)) s.shape.insert(s.shape.begin(), Dim{{some_size()}, 1});
        if (s.shape.size() > 6) return;
        break;
      }
      case 3:  // unsqueeze
        if (rank >= 6) return;
        s.op = Op::unsqueeze;
        s.axis = int(random_.between(-(rank + 1), rank));
        break;
      case 4: {  // squeeze
        s.op = Op::squeeze;
        std::vector<int> ones;
        for (int a = 0; a < rank; ++a)
          if (shape[a] == Dim{}) ones.push_back(a);
        if (!ones.empty() && random_.chance(70))
          s.axis = random_.pick(ones);
        else
          s.name = "squeeze_all";
        break;
      }
      case 5: {  // reshape: flatten, merge, split, add ones
        s.op = Op::reshape;
        if (rank >= 1 && random_.chance(30)) {
          s.name = "flatten";
          int a = int(random_.below(rank)), b = int(random_.between(a, rank - 1));
          s.axes = {random_.chance(30) ? a - rank : a, b};
          break;
        }
        s.shape = shape;
        int edit = random_.weighted({40, 30, 30});
        if (edit == 0 && rank >= 2) {
          int a = int(random_.below(rank - 1));
          Dim merged{s.shape[a].sizes, s.shape[a].literal * s.shape[a + 1].literal};
          merged.sizes.insert(merged.sizes.end(), s.shape[a + 1].sizes.begin(),
                              s.shape[a + 1].sizes.end());
          std::sort(merged.sizes.begin(), merged.sizes.end());
          s.shape[a] = merged;
          s.shape.erase(s.shape.begin() + a + 1);
        } else if (edit == 1) {
          for (int a = 0; a < rank; ++a) {
            if (s.shape[a].sizes.size() >= 2) {
              Dim inner{{s.shape[a].sizes.back()}, 1};
              s.shape[a].sizes.pop_back();
              s.shape.insert(s.shape.begin() + a + 1, inner);
              break;
            }
          }
        } else if (rank < 6) {
          s.shape.insert(s.shape.begin() + random_.below(rank + 1), Dim{});
        }
        if (s.shape.size() > 6) return;
        if (!s.shape.empty() && random_.chance(30)) {
          s.name = "reshape_infer";
          s.axis = int(random_.below(std::int64_t(s.shape.size())));
        }
        break;
      }
      case 7:  // the same values as a node of its own (an Alias view), for kernels to see through
        s.op = Op::contiguous;
        s.name = "stop_gradient";
        break;
      default:
        s.op = Op::contiguous;
        break;
    }
    try_add(s);
  }

  void add_reduction(int x) {
    int rank = int(builder_.shape(x).size());
    Step s;
    s.args = {tensor_arg(x)};
    s.keepdim = random_.chance(40);
    switch (random_.weighted({70, 10, 10})) {
      case 0:
        s.op = Op::reduce;
        s.name = std::vector<std::string>{"sum",       "sum", "sum", "mean", "mean",
                                          "max",       "max", "min", "prod", "logsumexp",
                                          "logsumexp", "any", "all"}[random_.below(13)];
        s.axes = random_axes(rank);
        break;
      case 1:
        s.op = Op::arg_reduce;
        s.name = random_.chance(50) ? "argmax" : "argmin";
        s.no_axis = rank == 0 || random_.chance(25);
        s.axis = random_axis(rank);
        break;
      default:
        s.op = random_.chance(50) ? Op::var : Op::std_dev;
        s.axes = random_axes(rank);
        s.correction = double(random_.below(2));
        break;
    }
    try_add(s);
  }

  void add_normalization(int x) {
    int rank = int(builder_.shape(x).size());
    Step s;
    s.args = {tensor_arg(x)};
    int kind = random_.weighted({35, 25, 20, 20});
    if (kind <= 1) {
      s.op = kind == 0 ? Op::softmax : Op::log_softmax;
      s.axis = random_.chance(70) ? -1 : random_axis(rank);
      try_add(s);
      return;
    }
    if (rank == 0) return;
    std::vector<Dim> row{builder_.shape(x).back()};
    DType dtype = random_.chance(70) ? builder_.tensor(x).dtype() : DType::f32;
    if (!is_floating(dtype)) dtype = DType::f32;
    int weight = add_leaf(row, dtype);
    if (weight < 0) return;
    s.args.push_back(tensor_arg(weight));
    s.eps = random_.pick(std::vector<double>{1e-5, 1e-6, 1e-3});
    if (kind == 2) {
      s.op = Op::layer_norm;
      int bias = add_leaf(row, dtype);
      if (bias < 0) return;
      s.args.push_back(tensor_arg(bias));
    } else {
      s.op = Op::rms_norm;
    }
    try_add(s);
  }

  void add_random_step() {
    if (count() == 0 || random_.chance(8)) {
      add_leaf(count() > 0 && random_.chance(60) ? builder_.shape(pick_step()) : fresh_shape());
      return;
    }
    int x = pick_step();
    // Products weigh more with --only-products; their consumers are among the other kinds.
    const int products = options_.products_only ? 60 : 6;
    std::vector<int> weights = {24, 24, 7, 4, 5, 18, 14, 8, 7, 7, 7, 5, products};
    if (options_.generation >= 4) weights.push_back(5);
    if (options_.generation >= 5) weights.push_back(5);
    if (options_.generation >= 6) weights.push_back(5);
    if (options_.generation >= 7) weights.push_back(5);
    if (options_.generation >= 8) weights.push_back(7);
    if (options_.generation >= 9) weights.push_back(10);
    if (options_.generation >= 9) weights.push_back(6);
    if (options_.generation >= 10) weights.push_back(6);
    if (options_.generation >= 11) weights.push_back(6);
    if (options_.generation >= 11) weights.push_back(3);
    switch (random_.weighted(weights)) {
      case 0:
        add_unary(x);
        break;
      case 1:
        add_binary(x);
        break;
      case 2:
        add_select(x);
        break;
      case 3:
        add_lerp(x);
        break;
      case 4:
        add_cast(x);
        break;
      case 5:
        add_view(x);
        break;
      case 6:
        add_reduction(x);
        break;
      case 7:
        add_normalization(x);
        break;
      case 8:
        add_join(*this, x);
        break;
      case 9:
        add_gather(*this, x);
        break;
      case 10:
        add_ordering(*this, x);
        break;
      case 11:
        add_scatter(*this, x);
        break;
      case 12:
        add_product(*this, x);
        break;
      case 13:
        add_mask(*this, x);
        break;
      case 14:
        add_bitwise(*this, x);
        break;
      case 15:
        add_tiling(*this, x);
        break;
      case 16:
        add_order_statistic(*this, x);
        break;
      case 17:
        add_loss(*this, x);
        break;
      case 18:
        add_strided_view(*this, x);
        break;
      case 19:
        add_statistic(*this, x);
        break;
      case 20:
        add_row_op(*this, x);
        break;
      case 21:
        add_pair(*this, x);
        break;
      default:
        add_one_hot(*this, x);
        break;
    }
  }

  bool has_product() const {
    return std::any_of(program_.steps.begin(), program_.steps.end(),
                       [](const Step& s) { return s.op == Op::product; });
  }

  void choose_outputs() {
    for (Step& s : program_.steps) s.held = random_.chance(s.op == Op::data ? 5 : 25);
    program_.steps.back().held = true;
  }
};

}  // namespace

Program generate(std::uint64_t seed, std::int64_t index, const GenerateOptions& options) {
  Program program;
  {
    Generator generator(seed, index, options);
    program = generator.run();
  }
  discard_recording();
  if (options.generation >= 3) {
    for (Step& s : program.steps) {
      const std::uint64_t pick = fz_mix(s.data.key ^ 0xb10bu);
      if (s.op == Op::data && pick % 4 == 0) s.data.external = 1 + int((pick >> 8) % 2);
    }
  }
  return program;
}

}  // namespace lazy::fuzz
