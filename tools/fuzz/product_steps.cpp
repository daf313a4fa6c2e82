#include "tools/fuzz/product_steps.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "tools/fuzz/einsum_recording.h"
#include "tools/fuzz/product_recording.h"

namespace lazy::fuzz {

namespace {

// What a product's result is kept under (operands scaled by powers of two, which keeps grid values
// exact): far below f16's 65504, so that a bias, a residual and an activation after it stay
// finite, whatever the inner size.
constexpr double kProductMagnitude = 64;

// M, N and K: one, small odd sizes, and sizes about the 16- and 32-element edges of tiles.
const std::vector<std::int64_t> kMatrixSizes = {1, 2, 3, 7, 16, 17, 33, 64};
// Inner sizes of a few hundred, where an f32 accumulation's error grows.
const std::vector<std::int64_t> kLongInnerSizes = {128, 255, 300, 384, 511};
const std::vector<std::int64_t> kBatchSizes = {1, 2, 3, 5};

// Equations of two operands: plain, transposed and batched products, attention's scores, a
// 1-D operand, a dot product, two contracted indices, implicit outputs, a permuted output; an
// index summed out of one operand, a diagonal, and pairs that sum nothing (pointwise).
const std::vector<std::string> kEquations = {
    "ij,jk->ik",    "ik,kj",    "ik,jk->ij",   "ji,jk->ik", "bij,bjk->bik", "bhqd,bhkd->bhqk",
    "bij,jk->bik",  "i,ij->j",  "ij,j->i",     "i,i->",     "bik,bjk->bij", "ikl,jkl->ij",
    "bqd,bkd->bkq", "ij,jk->k", "bij,bjk->bj", "ii,ij->j",  "ij,ij->ji",    "bi,bj->bij"};
// One operand (permutations, sums, diagonals) and chains of three, contracted left to right.
const std::vector<std::string> kOneOperandEquations = {"ij->ji", "ij->i",   "ij->",
                                                       "ii->i",  "bij->bj", "iij->ji"};
const std::vector<std::string> kChainEquations = {"ij,jk,kl->il", "i,ij,j->", "bij,bjk,bkl->bil",
                                                  "ij,jk,kl"};

Step step_of(Op op, std::string name, std::vector<Arg> args) {
  return GrowingProgram::step_of(op, std::move(name), std::move(args));
}

Arg tensor(int step) {
  return GrowingProgram::tensor_arg(step);
}

class ProductMaker {
 public:
  ProductMaker(GrowingProgram& g, int x) : g_(g), random_(g.random()), x_(x) {}

  void run() {
    dtype_ = choose_dtype();
    int product = -1;
    switch (random_.weighted({18, 16, 6, 6, 3, 7, 22, 10, 12})) {
      case 0:
        product = matmul_2d();
        break;
      case 1:
        product = batched_matmul();
        break;
      case 2:
        product = vector_times_matrix();
        break;
      case 3:
        product = matrix_times_vector();
        break;
      case 4:
        product = dot();
        break;
      case 5:
        product = bmm();
        break;
      case 6:
        product = linear();
        break;
      case 7:
        product = addmm();
        break;
      default:
        product = einsum();
        break;
    }
    if (product >= 0) add_consumers(product);
  }

 private:
  using Dims = std::vector<Dim>;

  DType choose_dtype() {
    if (is_floating(g_.dtype(x_)) && random_.chance(75)) return g_.dtype(x_);
    return std::vector<DType>{DType::f32, DType::f16, DType::bf16}[random_.weighted({50, 25, 25})];
  }

  const Dims& shape(int step) const { return g_.shape(step); }
  int rank(int step) const { return int(g_.shape(step).size()); }
  std::int64_t value(const Dim& d) const { return dim_value(g_.program(), d); }

  // Step x as the first operand when its rank fits the form (and a coin says so), else -1.
  int x_if_rank(int lo, int hi) {
    int r = rank(x_);
    return r >= lo && r <= hi && random_.chance(60) ? x_ : -1;
  }

  Dim sized(std::int64_t v) { return Dim{{g_.new_size(v)}, 1}; }
  Dim matrix_dim() { return sized(random_.chance(4) ? 0 : random_.pick(kMatrixSizes)); }
  Dim inner_dim() {
    int kind = random_.weighted({84, 4, 12});
    return sized(kind == 1 ? 0 : random_.pick(kind == 0 ? kMatrixSizes : kLongInnerSizes));
  }
  Dim batch_dim() { return sized(random_.pick(kBatchSizes)); }
  Dims batch_dims() {
    return random_.chance(60) ? Dims{batch_dim()} : Dims{batch_dim(), batch_dim()};
  }

  // A fresh operand of `shape` in the product's dtype, stored as it is or read through a view:
  // its last two axes transposed, a strided or reversed slice along `slice_axis` (>= 0; that axis
  // then has a size of the slice's own), or batch axes of 1 expanded.
  int fresh(Dims want, int slice_axis = -1) {
    const int r = int(want.size());
    int view = random_.weighted({55, r >= 2 ? 25 : 0, slice_axis >= 0 ? 12 : 0, r >= 3 ? 8 : 0});
    Dims stored = want;
    if (view == 1) std::swap(stored[r - 2], stored[r - 1]);
    if (view == 3)
      for (int a = 0; a < r - 2; ++a) stored[a] = Dim{};
    Step slice = step_of(Op::slice, "", {});
    if (view == 2) {
      slice.step = random_.pick(std::vector<std::int64_t>{1, 2, -1});
      slice.has_start = true;
      slice.start = slice.step > 0 ? 1 : -2;
      stored[slice_axis] = sized(std::abs(slice.step) * random_.pick(kMatrixSizes) + 1);
    }
    int leaf = g_.add_leaf(stored, dtype_);
    if (leaf < 0 || view == 0) return leaf;
    if (view == 1) {
      Step t = step_of(Op::permute, "transpose", {tensor(leaf)});
      t.axes = random_.chance(50) ? std::vector<int>{-1, -2} : std::vector<int>{r - 2, r - 1};
      return g_.add(t);
    }
    if (view == 2) {
      slice.args = {tensor(leaf)};
      slice.axis = random_.chance(30) ? slice_axis - r : slice_axis;
      slice.derived_size = g_.new_derived_size();
      return g_.add(slice);
    }
    Step e = step_of(Op::expand, random_.chance(30) ? "broadcast_to" : "expand", {tensor(leaf)});
    e.shape = want;
    return g_.add(e);
  }

  // `step` in the product's dtype with |values| under `limit`: scaled by a power of two (exact
  // for grid values) before a cast where it is floating, after one where it is not.
  int prepared(int step, double limit) {
    if (step < 0) return -1;
    if (is_floating(g_.dtype(step))) step = scaled(step, limit);
    if (step >= 0 && g_.dtype(step) != dtype_) {
      Step cast = step_of(Op::cast, "to", {tensor(step)});
      cast.dtype = dtype_;
      step = g_.add(cast);
    }
    return step < 0 ? -1 : scaled(step, limit);
  }
  // An operand of a product with inner size k: |a| |b| k stays under kProductMagnitude.
  int operand(int step, const Dim& inner) {
    return prepared(step,
                    std::sqrt(kProductMagnitude / double(std::max<std::int64_t>(value(inner), 1))));
  }

  int scaled(int step, double limit) {
    const Bounds& b = g_.bounds(step);
    const double magnitude = b.magnitude() + b.err;
    if (!(magnitude > limit)) return step;
    if (!std::isfinite(magnitude)) return -1;
    Arg factor;
    factor.number = std::ldexp(1.0, -int(std::ceil(std::log2(magnitude / limit))));
    return g_.add(step_of(Op::binary, "mul", {tensor(step), factor}));
  }

  int product(const std::string& name, std::vector<int> operands) {
    Step s = step_of(Op::product, name, {});
    for (int step : operands) {
      if (step < 0) return -1;
      s.args.push_back(tensor(step));
    }
    return g_.add(s);
  }

  int matmul_2d() {
    int a = x_if_rank(2, 2);
    if (a < 0) a = fresh({matrix_dim(), inner_dim()}, int(random_.below(2)));
    if (a < 0) return -1;
    const Dim k = shape(a)[1];
    int b = fresh({k, matrix_dim()}, 1);
    return product("matmul", {operand(a, k), operand(b, k)});
  }

  // Batch axes that broadcast: b's the same as a's, some of them 1, fewer of them, or one more.
  int batched_matmul() {
    int a = x_if_rank(3, 4);
    if (a < 0) {
      Dims want = batch_dims();
      if (random_.chance(20)) want[0] = Dim{};
      want.push_back(matrix_dim());
      want.push_back(inner_dim());
      a = fresh(want, int(want.size()) - 2 + int(random_.below(2)));
    }
    if (a < 0) return -1;
    const Dims& sa = shape(a);
    const Dim k = sa.back();
    Dims want(sa.begin(), sa.end() - 2);
    int kind = random_.weighted({40, 25, 20, 15});
    if (kind == 1)
      for (Dim& d : want) d = random_.chance(50) ? Dim{} : d;
    if (kind == 2) want.erase(want.begin());
    if (kind == 3 && want.size() < 3) want.insert(want.begin(), batch_dim());
    want.push_back(k);
    want.push_back(matrix_dim());
    int b = fresh(want, int(want.size()) - 1);
    return product("matmul", {operand(a, k), operand(b, k)});
  }

  int vector_times_matrix() {
    int a = x_if_rank(1, 1);
    if (a < 0) a = fresh({inner_dim()});
    if (a < 0) return -1;
    const Dim k = shape(a)[0];
    Dims want = random_.chance(40) ? batch_dims() : Dims{};
    want.push_back(k);
    want.push_back(matrix_dim());
    int b = fresh(want, int(want.size()) - 1);
    return product("matmul", {operand(a, k), operand(b, k)});
  }

  int matrix_times_vector() {
    int a = x_if_rank(2, 4);
    if (a < 0) {
      Dims want = random_.chance(30) ? batch_dims() : Dims{};
      want.push_back(matrix_dim());
      want.push_back(inner_dim());
      a = fresh(want, int(want.size()) - 2);
    }
    if (a < 0) return -1;
    const Dim k = shape(a).back();
    int b = fresh({k});
    return product("matmul", {operand(a, k), operand(b, k)});
  }

  int dot() {
    int a = x_if_rank(1, 1);
    if (a < 0) a = fresh({inner_dim()}, 0);
    if (a < 0) return -1;
    const Dim k = shape(a)[0];
    int b = fresh({k});
    return product("matmul", {operand(a, k), operand(b, k)});
  }

  int bmm() {
    int a = x_if_rank(3, 3);
    if (a < 0) a = fresh({batch_dim(), matrix_dim(), inner_dim()}, 1 + int(random_.below(2)));
    if (a < 0) return -1;
    const Dims& sa = shape(a);
    const Dim k = sa[2];
    int b = fresh({sa[0], k, matrix_dim()}, 2);
    return product("bmm", {operand(a, k), operand(b, k)});
  }

  // linear(x, w[, bias]): w fresh [N, K] or, now and then, x itself (x @ x^T); the bias [N] or
  // another shape that broadcasts to the result.
  int linear() {
    int x = x_if_rank(1, 4);
    if (x < 0) {
      Dims want = random_.chance(30) ? batch_dims() : Dims{};
      want.push_back(matrix_dim());
      want.push_back(inner_dim());
      x = fresh(want, int(want.size()) - 2);
    }
    if (x < 0) return -1;
    const Dim k = shape(x).back();
    const bool gram = rank(x) == 2 && random_.chance(10);
    int w = gram ? x : fresh({matrix_dim(), k}, 0);
    if (w < 0) return -1;
    x = operand(x, k);
    w = gram ? x : operand(w, k);
    if (x < 0 || w < 0) return -1;
    if (random_.chance(40)) return product("linear", {x, w});
    Dims result(shape(x).begin(), shape(x).end() - 1);
    result.push_back(shape(w)[0]);
    int bias = fresh(random_.chance(85) ? Dims{result.back()} : g_.broadcastable(result));
    return product("linear", {x, w, prepared(bias, kProductMagnitude / 8)});
  }

  // addmm(c, a, b, beta, alpha): c of the result's shape or broadcast along rows or columns.
  int addmm() {
    int a = x_if_rank(2, 2);
    if (a < 0) a = fresh({matrix_dim(), inner_dim()}, int(random_.below(2)));
    if (a < 0) return -1;
    const Dim m = shape(a)[0], k = shape(a)[1];
    int b = fresh({k, matrix_dim()}, 1);
    if (b < 0) return -1;
    const Dim n = shape(b)[1];
    const std::vector<Dims> c_shapes = {{m, n}, {n}, {m, Dim{}}, {Dim{}, n}, {}};
    int c = fresh(c_shapes[std::size_t(random_.weighted({40, 30, 10, 10, 10}))]);
    Step s = step_of(Op::product, "addmm", {});
    for (int step : {prepared(c, kProductMagnitude / 8), operand(a, k), operand(b, k)}) {
      if (step < 0) return -1;
      s.args.push_back(tensor(step));
    }
    // beta and alpha: 1 (no multiply recorded), 0 (c ignored), others; integers now and then.
    for (double v : {random_.pick(std::vector<double>{1, 1, 1, 0, 0.5, -1, 2}),
                     random_.pick(std::vector<double>{1, 1, 1, 0.5, -2, 0.25, 1.5})}) {
      Arg number;
      number.number = v;
      if (v == std::trunc(v) && random_.chance(30)) number.kind = Scalar::Kind::integer;
      s.args.push_back(number);
    }
    return g_.add(s);
  }

  int einsum() {
    const std::vector<std::string>* lists[] = {&kEquations, &kOneOperandEquations,
                                               &kChainEquations};
    const std::string equation = random_.pick(*lists[random_.weighted({70, 15, 15})]);
    const std::vector<std::string> inputs = einsum_inputs(equation);
    const std::string out = einsum_output(equation);
    std::string all;
    for (const std::string& indices : inputs) all += indices;
    const auto names = [](const std::string& indices, char c) {
      return indices.find(c) != std::string::npos;
    };
    std::map<char, Dim> dims;
    // An operand with a diagonal is made fresh, its repeated index of one size.
    const std::string& first = inputs[0];
    const bool diagonal = std::set<char>(first.begin(), first.end()).size() < first.size();
    int a = diagonal ? -1 : x_if_rank(int(first.size()), int(first.size()));
    if (a >= 0)
      for (std::size_t i = 0; i < first.size(); ++i) dims[first[i]] = shape(a)[i];
    bool first_contracted = true;
    for (char c : all) {
      if (dims.count(c)) continue;
      const auto holders = std::count_if(inputs.begin(), inputs.end(),
                                         [&](const std::string& in) { return names(in, c); });
      if (holders > 1 && names(out, c)) {
        dims[c] = batch_dim();
      } else if (holders > 1) {
        // One contracted index may be long; a second one multiplies K, so it stays short.
        dims[c] = first_contracted ? inner_dim() : matrix_dim();
        first_contracted = false;
      } else {
        dims[c] = matrix_dim();
      }
    }
    auto shape_of = [&](const std::string& indices) {
      Dims s;
      for (char c : indices) s.push_back(dims[c]);
      return s;
    };
    std::vector<int> operands = {a >= 0 ? a : fresh(shape_of(first))};
    for (std::size_t i = 1; i < inputs.size(); ++i) operands.push_back(fresh(shape_of(inputs[i])));
    Dim k;  // every summed index: contracted, or summed out of one operand
    std::string summed;
    for (char c : all) {
      if (names(out, c) || names(summed, c)) continue;
      summed += c;
      k.literal *= dims[c].literal;
      k.sizes.insert(k.sizes.end(), dims[c].sizes.begin(), dims[c].sizes.end());
      std::sort(k.sizes.begin(), k.sizes.end());
    }
    // n operands each at most (kProductMagnitude / k)^(1/n): the result stays under it.
    const double limit = std::pow(kProductMagnitude / double(std::max<std::int64_t>(value(k), 1)),
                                  1.0 / double(operands.size()));
    Step s = step_of(Op::product, "einsum", {});
    s.equation = equation;
    for (int step : operands) {
      step = prepared(step, limit);
      if (step < 0) return -1;
      s.args.push_back(tensor(step));
    }
    return g_.add(s);
  }

  // What a product's epilogue folds (an activation, a residual of its shape, then an activation)
  // or a normalization of its rows, which reads it from a generated kernel.
  void add_consumers(int p) {
    auto activation = [&](int step) {
      g_.add(step_of(Op::unary, random_.chance(50) ? "relu" : "gelu_tanh", {tensor(step)}));
    };
    switch (random_.weighted({40, 20, 20, 20})) {
      case 1:
        activation(p);
        break;
      case 2: {
        int residual = prepared(fresh(shape(p)), kProductMagnitude);
        if (residual < 0) break;
        std::vector<Arg> args = {tensor(p), tensor(residual)};
        if (random_.chance(30)) std::swap(args[0], args[1]);
        int sum = g_.add(step_of(Op::binary, "add", args));
        if (sum >= 0 && random_.chance(50)) activation(sum);
        break;
      }
      case 3: {
        if (rank(p) == 0) break;
        Step s = step_of(Op::softmax, "", {tensor(p)});
        s.axis = -1;
        if (random_.chance(50)) {
          int w = prepared(g_.add_leaf({shape(p).back()}, dtype_), 4);
          if (w < 0) break;
          s.op = Op::rms_norm;
          s.args.push_back(tensor(w));
          s.eps = random_.pick(std::vector<double>{1e-5, 1e-6});
        }
        g_.add(s);
        break;
      }
      default:
        break;
    }
  }

  GrowingProgram& g_;
  Random& random_;
  int x_;
  DType dtype_ = DType::f32;
};

}  // namespace

void add_product(GrowingProgram& program, int x) {
  ProductMaker(program, x).run();
}

}  // namespace lazy::fuzz
