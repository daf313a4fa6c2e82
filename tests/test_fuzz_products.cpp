// The differential fuzzer's matrix products (tools/fuzz/product_*.cpp): every form is generated,
// reproducers print the calls, the bounds hold for an f32 accumulation in any order, the shrinker
// cuts products like other steps, and a short host run of product programs finds nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include <lazy/lazy.h>

#include "tools/fuzz/builder.h"
#include "tools/fuzz/generator.h"
#include "tools/fuzz/printer.h"
#include "tools/fuzz/product_rules.h"
#include "tools/fuzz/session.h"
#include "tools/fuzz/shrinker.h"

namespace {

using namespace lazy::fuzz;
using ::testing::HasSubstr;
using ::testing::Not;

GenerateOptions products_only() {
  GenerateOptions options;
  options.products_only = true;
  return options;
}

// What kind of product step i of a recorded program is, and what reads and feeds it.
std::set<std::string> features(Program& program) {
  std::set<std::string> seen;
  Builder builder(program);
  builder.apply_all();
  auto rank = [&](const Arg& a) { return builder.shape(a.step).size(); };
  auto op_of = [&](const Arg& a) { return program.steps[a.step].op; };
  for (int i = 0; i < builder.size(); ++i) {
    const Step& s = program.steps[i];
    if (s.op == Op::product) {
      std::string form = s.name;
      if (s.name == "matmul") {
        std::size_t ra = rank(s.args[0]), rb = rank(s.args[1]);
        form += ra == 1 && rb == 1   ? " dot"
                : ra == 1            ? " vector-matrix"
                : rb == 1            ? " matrix-vector"
                : ra == 2 && rb == 2 ? " 2-D"
                                     : " batched";
      }
      if (s.name == "linear") form += s.args.size() > 2 ? " with bias" : " without bias";
      seen.insert(form);
      seen.insert(std::string("dtype ") + std::string(lazy::dtype_name(builder.tensor(i).dtype())));
      if (builder.tensor(i).numel() == 0) seen.insert("empty result");
      if (s.name != "einsum") {
        // The inner size is the last axis of x, or of a (addmm's second operand).
        const Arg& left = s.args[s.name == "addmm" ? 1 : 0];
        std::int64_t k = dim_value(program, builder.shape(left.step).back());
        if (k == 0) seen.insert("inner size 0");
        if (k >= 128) seen.insert("inner size of a few hundred");
      }
      for (const Arg& a : s.args) {
        if (!a.is_tensor()) continue;
        // Operands pass through a scaling multiply or a cast; look through them for the view
        // (not past a number on the left of a binary op).
        Arg source = a;
        while ((op_of(source) == Op::binary || op_of(source) == Op::cast) &&
               program.steps[source.step].args[0].is_tensor())
          source = program.steps[source.step].args[0];
        if (op_of(source) == Op::permute) seen.insert("transposed operand");
        if (op_of(source) == Op::slice) seen.insert("sliced operand");
        if (op_of(source) == Op::expand) seen.insert("expanded operand");
        if (builder.bounds(a.step).magnitude() * 4 < builder.bounds(source.step).magnitude())
          seen.insert("scaled operand");
      }
    }
    for (const Arg& a : s.args) {
      if (!a.is_tensor() || op_of(a) != Op::product) continue;
      if (s.op == Op::unary) seen.insert("then " + s.name);
      if (s.op == Op::binary && s.name == "add") seen.insert("then a residual");
      if (s.op == Op::rms_norm) seen.insert("then rms_norm");
      if (s.op == Op::softmax) seen.insert("then softmax");
    }
  }
  lazy::fuzz::discard_recording();
  return seen;
}

TEST(FuzzProducts, EveryFormDtypeViewAndConsumerIsGenerated) {
  std::set<std::string> seen;
  std::map<std::string, std::int64_t> refusals;
  GenerateOptions options = products_only();
  options.refusals = &refusals;
  for (std::int64_t index = 0; index < 200; ++index) {
    Program program = generate(3, index, options);
    for (const std::string& f : features(program)) seen.insert(f);
  }
  for (const char* f : {"matmul 2-D",
                        "matmul batched",
                        "matmul vector-matrix",
                        "matmul matrix-vector",
                        "matmul dot",
                        "bmm",
                        "linear with bias",
                        "linear without bias",
                        "addmm",
                        "einsum",
                        "dtype f32",
                        "dtype f16",
                        "dtype bf16",
                        "empty result",
                        "transposed operand",
                        "sliced operand",
                        "expanded operand",
                        "scaled operand",
                        "then relu",
                        "then gelu_tanh",
                        "then a residual",
                        "then rms_norm",
                        "then softmax",
                        "inner size 0",
                        "inner size of a few hundred"})
    EXPECT_TRUE(seen.count(f)) << f << " never generated";
  // The generator builds operands the API takes: a refused product is a fuzzer or API bug.
  for (const char* op : {"matmul", "bmm", "linear", "addmm", "einsum"})
    EXPECT_EQ(refusals.count(op), 0u) << op << " refused " << refusals[op] << " times";
}

TEST(FuzzProducts, OrdinaryProgramsHoldProductsToo) {
  int products = 0;
  for (std::int64_t index = 0; index < 200; ++index)
    for (const Step& s : generate(5, index, {}).steps) products += s.op == Op::product;
  EXPECT_GE(products, 20);
}

// A program of data leaves x [M, K], w [N, K], bias [N], c [M, N], b [K, N] and the products
// `products` of them (steps 5 on), every product held.
Program leaves_and(std::vector<Step> products) {
  Program p;
  p.sizes = {SizeVar{3, false}, SizeVar{4, false}, SizeVar{5, false}};
  const Dim m{{0}, 1}, k{{1}, 1}, n{{2}, 1};
  for (std::vector<Dim> shape :
       std::vector<std::vector<Dim>>{{m, k}, {n, k}, {n}, {m, n}, {k, n}}) {
    Step leaf;
    leaf.op = Op::data;
    leaf.shape = shape;
    leaf.data.key = p.steps.size() + 1;
    leaf.data.quantum = 2;
    p.steps.push_back(leaf);
  }
  for (Step& s : products) {
    s.op = Op::product;
    s.held = true;
    p.steps.push_back(s);
  }
  return p;
}

Step product_step(std::string name, std::vector<Arg> args, std::string equation = "") {
  Step s;
  s.name = std::move(name);
  s.args = std::move(args);
  s.equation = std::move(equation);
  return s;
}

TEST(FuzzProducts, PrintsEachProductCallAsTheApiSpellsIt) {
  Arg integer_two{-1, 2, lazy::Scalar::Kind::integer};
  std::vector<Program> programs = {leaves_and({
      product_step("linear", {Arg{0}, Arg{1}, Arg{2}}),
      product_step("addmm", {Arg{3}, Arg{0}, Arg{4}, Arg{-1, 0.5}, integer_two}),
      product_step("einsum", {Arg{0}, Arg{1}}, "ik,jk->ij"),
      product_step("matmul", {Arg{0}, Arg{4}}),
      product_step("einsum", {Arg{0}}, "ij->ji"),
      product_step("einsum", {Arg{0}, Arg{4}, Arg{3}}, "ij,jk,ik->i"),
  })};
  std::string source = print_program(programs);
  // One operand by itself, three or more as a list; a permutation keeps its operand's bounds.
  EXPECT_THAT(source,
              HasSubstr("lazy::einsum(\"ij->ji\", p0_t0);  // f32 [4, 3] in [-1, 1] exact"));
  EXPECT_THAT(source, HasSubstr("lazy::einsum(\"ij,jk,ik->i\", {p0_t0, p0_t4, p0_t3});"));
  EXPECT_THAT(source, HasSubstr("lazy::linear(p0_t0, p0_t1, p0_t2);"));
  EXPECT_THAT(source, HasSubstr("lazy::addmm(p0_t3, p0_t0, p0_t4, 0.5, 2);"));
  EXPECT_THAT(source, HasSubstr("lazy::einsum(\"ik,jk->ij\", p0_t0, p0_t1);"));
  EXPECT_THAT(source, HasSubstr("lazy::matmul(p0_t0, p0_t4);  // f32 [3, 5]"));
  EXPECT_THAT(source, Not(HasSubstr("no longer records")));
  // Quarter-grid values in [-1, 1], four terms: every sum is exact in f32.
  EXPECT_THAT(source, HasSubstr("lazy::matmul(p0_t0, p0_t4);  // f32 [3, 5] in [-4, 4] exact"));
  EXPECT_THAT(source, Not(HasSubstr("set_matmul_precision")));
  // Under TF32 the bounds are TF32's, and the reproducer runs its products so too.
  struct Tf32While {
    Tf32While() { lazy::set_matmul_precision("tf32"); }
    ~Tf32While() { lazy::set_matmul_precision("highest"); }
  };
  {
    const Tf32While tf32;
    source = print_program(programs);
  }
  EXPECT_THAT(source, HasSubstr("int main() {\n  lazy::set_matmul_precision(\"tf32\");"));
  EXPECT_THAT(source, Not(HasSubstr("[3, 5] in [-4, 4] exact")));
}

TEST(FuzzProducts, GeneratedReproducersCarryTheProductCalls) {
  std::string all;
  for (std::int64_t index = 0; index < 40; ++index) {
    std::vector<Program> programs = {generate(9, index, products_only())};
    all += print_program(programs);
  }
  for (const char* call :
       {"lazy::matmul(", "lazy::bmm(", "lazy::linear(", "lazy::addmm(", "lazy::einsum(\""})
    EXPECT_THAT(all, HasSubstr(call));
  EXPECT_THAT(all, Not(HasSubstr("no longer records")));
}

Bounds inexact(double lo, double hi, double err) {
  return Bounds{lo, hi, err, kNoQuantum};
}

// Sums of k products of values held within the operands' errors, in f32 and in a random order,
// stay within the rule's error of the exact sum, which lies in the rule's range.
TEST(FuzzProducts, BoundHoldsForAnF32AccumulationInAnyOrder) {
  std::uint64_t state = 7;
  auto uniform = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return double(state >> 11) * 0x1p-53;
  };
  for (std::int64_t k : {1, 7, 64, 511}) {
    const Bounds a = inexact(-1, 3, 1e-4), b = inexact(-0.5, 0.25, 0);
    const Bounds r =
        product_rule({a, lazy::DType::f32}, {b, lazy::DType::f32}, lazy::DType::f32, k, false);
    for (int trial = 0; trial < 200; ++trial) {
      std::vector<double> exact_terms;
      std::vector<float> held_terms;
      for (std::int64_t i = 0; i < k; ++i) {
        double x = a.lo + (a.hi - a.lo) * (trial % 3 == 0 ? 1.0 : uniform());
        double y = b.lo + (b.hi - b.lo) * (trial % 3 == 0 ? 0.0 : uniform());
        float xh = float(x + (2 * uniform() - 1) * a.err);
        exact_terms.push_back(x * y);
        held_terms.push_back(xh * float(y));
      }
      for (std::size_t i = held_terms.size(); i > 1; --i)
        std::swap(held_terms[i - 1], held_terms[std::size_t(uniform() * double(i))]);
      double exact = 0;
      for (double t : exact_terms) exact += t;
      float sum = 0;
      for (float t : held_terms) sum += t;
      ASSERT_LE(std::abs(double(sum) - exact), r.err) << "k " << k;
      ASSERT_GE(exact, r.lo - 1e-9);
      ASSERT_LE(exact, r.hi + 1e-9);
    }
  }
}

TEST(FuzzProducts, GridProductsAreExactWhilePartialSumsFitF32) {
  const Bounds sixteenths{-4, 4, 0, 4};
  Bounds r = product_rule({sixteenths, lazy::DType::f32}, {sixteenths, lazy::DType::f32},
                          lazy::DType::f32, 64, false);
  EXPECT_TRUE(r.exact());
  EXPECT_EQ(r.quantum, 8);
  EXPECT_EQ(r.hi, 64 * 16);
  // f16 holds 11 bits: the same sums round once when stored, as a fused epilogue may not.
  Bounds narrow = product_rule({sixteenths, lazy::DType::f16}, {sixteenths, lazy::DType::f16},
                               lazy::DType::f16, 64, false);
  EXPECT_GT(narrow.err, 0);
  EXPECT_LE(narrow.err, 2 * ulp(lazy::DType::f16, 1024));
  // 2^22 reached: no longer exact in any order.
  const Bounds quarters{-100, 100, 0, 2};
  EXPECT_FALSE(product_rule({quarters, lazy::DType::f32}, {quarters, lazy::DType::f32},
                            lazy::DType::f32, 511, false)
                   .exact());
}

TEST(FuzzProducts, ErrorGrowsWithTheInnerSizeAndTf32) {
  const Operand a{inexact(-1, 1, 0), lazy::DType::f32}, b{inexact(-1, 1, 0), lazy::DType::f32};
  double e7 = product_rule(a, b, lazy::DType::f32, 7, false).err;
  double e300 = product_rule(a, b, lazy::DType::f32, 300, false).err;
  EXPECT_GT(e300, 300.0 / 7 * e7);  // k terms of |a||b| and k steps of accumulation
  double tf32 = product_rule(a, b, lazy::DType::f32, 300, true).err;
  EXPECT_GT(tf32, 300 * 0x1p-10);
  const Operand h{inexact(-1, 1, 0), lazy::DType::f16};
  EXPECT_EQ(product_rule(h, h, lazy::DType::f16, 300, true).err,
            product_rule(h, h, lazy::DType::f16, 300, false).err);
}

TEST(FuzzProducts, MayOverflowAndEmptyInnerSizes) {
  const Operand big{inexact(-100, 100, 0), lazy::DType::f16};
  EXPECT_THROW(product_rule(big, big, lazy::DType::f16, 64, false), StepRejected);
  EXPECT_NO_THROW(product_rule(big, big, lazy::DType::f32, 64, false));
  Bounds special = inexact(-1, 1, 0.1);
  special.special = true;
  Bounds zeros = product_rule({special, lazy::DType::f32}, {special, lazy::DType::f32},
                              lazy::DType::f32, 0, false);
  EXPECT_TRUE(zeros.exact());  // nothing read: zeros, no NaN from the operands
  EXPECT_FALSE(zeros.special);
  EXPECT_EQ(zeros.lo, 0);
  EXPECT_EQ(zeros.hi, 0);
}

Program first_with(std::uint64_t seed, const std::function<bool(const Program&)>& wanted) {
  for (std::int64_t index = 0; index < 500; ++index) {
    Program program = generate(seed, index, products_only());
    if (wanted(program)) return program;
  }
  ADD_FAILURE() << "no such program";
  return {};
}

bool holds_product(std::vector<Program>& candidate) {
  for (const Step& s : candidate[0].steps)
    if (s.op == Op::product) return true;
  return false;
}

TEST(FuzzProducts, ShrinkerKeepsAProductWithLeavesForOperands) {
  Program program = first_with(
      17, [](const Program& p) { return p.steps.back().op == Op::product && p.steps.size() >= 6; });
  std::vector<Program> small = shrink({program}, holds_product, 200);
  ASSERT_TRUE(holds_product(small));
  EXPECT_LE(small[0].steps.size(), 4u);  // addmm reads three tensors
  for (std::size_t i = 0; i + 1 < small[0].steps.size(); ++i)
    EXPECT_EQ(small[0].steps[i].op, Op::data);
  // Sizes shrink too, those a slice defined before it was cut to a leaf included.
  Builder builder(small[0]);
  builder.apply_all();
  for (int i = 0; i < builder.size(); ++i) EXPECT_LE(builder.tensor(i).numel(), 1) << "step " << i;
  discard_recording();
  EXPECT_THAT(print_program(small), Not(HasSubstr("no longer records")));
}

TEST(FuzzProducts, ShrinkerCutsAProductTheFailureDoesNotNeed) {
  auto softmax_of_product = [](const Program& p) {
    const Step& last = p.steps.back();
    return last.op == Op::softmax && p.steps[last.args[0].step].op == Op::product;
  };
  Program program = first_with(19, softmax_of_product);
  auto holds_softmax = [](std::vector<Program>& candidate) {
    for (const Step& s : candidate[0].steps)
      if (s.op == Op::softmax) return true;
    return false;
  };
  std::vector<Program> small = shrink({program}, holds_softmax, 200);
  EXPECT_FALSE(holds_product(small));
  EXPECT_LE(small[0].steps.size(), 2u);
}

// On the host every mode runs the reference evaluator after planning as for a GPU (the bounds
// are checked against the reference); on a GPU this compares cuBLASLt's products with it.
TEST(FuzzProducts, RandomProductProgramsAgreeWithTheReference) {
  SessionOptions options;
  options.seed = 20261124;
  options.count = 16;
  options.products_only = true;
  options.max_shrink_runs = 60;
  std::ostringstream log;
  SessionSummary summary = run_session(options, log);
  EXPECT_EQ(summary.programs, options.count);
  EXPECT_GT(summary.compared, 0);
  EXPECT_EQ(summary.failures, 0) << log.str();
}

}  // namespace
