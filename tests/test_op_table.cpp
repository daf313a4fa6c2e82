// The op table (src/ir/op.h) against what reads it: every pointwise row has the host functions
// its dtype rule needs and a device function in nvrtc_templates/lz_pointwise.cuh, every reduction
// folds through a pointwise row, and a kernel holding every public pointwise op compiles with
// NVRTC for each dtype (when NVRTC is installed), and every op has a gradient rule or passes none.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "autodiff/vjp_rules.h"
#include "codegen/templates.h"
#include "codegen_test_support.h"
#include "ir/op.h"
#include "ir/pointwise_dtypes.h"
#include "ir/trace.h"
#include "jit/nvrtc.h"
#include "lazy/lazy.h"

namespace {

using lazy::DType;
using lazy::Tensor;
using lazy::ir::Op;
using lazy::ir::OpInfo;
using lazy::ir::OpKind;

constexpr DType kAllDTypes[] = {DType::f32, DType::f16, DType::bf16,
                                DType::i32, DType::i64, DType::bool_};

std::vector<Op> all_ops() {
  std::vector<Op> ops;
  for (int i = 0; i <= int(Op::MatMul); ++i) ops.push_back(Op(i));
  return ops;
}

std::string device_source() {
  return std::string(lazy::codegen::template_text("lz_pointwise.cuh")) +
         std::string(lazy::codegen::template_text("lz_device.cuh"));
}

// An op added without a gradient rule fails here, not at a user's grad call.
TEST(OpTable, EveryOpHasAGradientRuleOrPassesNone) {
  for (Op op : all_ops())
    EXPECT_NE(lazy::autodiff::differentiability(op), lazy::autodiff::Differentiability::missing)
        << lazy::ir::op_name(op);
}

TEST(OpTable, LastOpIsTheLastRow) {
  // all_ops() walks the enum up to MatMul: a row added after it would be missed here.
  EXPECT_EQ(lazy::ir::op_name(Op::MatMul), "MatMul");
  EXPECT_EQ(lazy::ir::op_kind(Op::MatMul), OpKind::matmul);
}

TEST(OpTable, EveryPointwiseRowHasTheHostFunctionsItsDTypeRuleNeeds) {
  for (Op op : all_ops()) {
    const OpInfo& info = lazy::ir::op_info(op);
    if (info.kind != OpKind::pointwise) continue;
    EXPECT_TRUE(info.host_float || info.host_int) << info.name;
    if (info.dtype_rule == lazy::ir::DTypeRule::promoted_floating) {
      EXPECT_TRUE(info.host_float) << info.name << " computes in floating point";
    }
    if (info.operands == lazy::ir::OperandRule::truth) {
      EXPECT_TRUE(info.host_int) << info.name << " reads truth values";
    }
  }
}

TEST(OpTable, OnlyPointwiseRowsHaveHostFunctions) {
  for (Op op : all_ops()) {
    const OpInfo& info = lazy::ir::op_info(op);
    if (info.kind == OpKind::pointwise) continue;
    EXPECT_EQ(info.host_float, nullptr) << info.name;
    EXPECT_EQ(info.host_int, nullptr) << info.name;
  }
}

TEST(OpTable, HostFunctionsAreFoundOnlyForTheDomainsTheyAreDeclaredFor) {
  const OpInfo& exp = lazy::ir::op_info(Op::Exp);
  EXPECT_NE(exp.host_float, nullptr);
  EXPECT_EQ(exp.host_int, nullptr);  // an int64 must not reach exp(double) by conversion
  const OpInfo& add = lazy::ir::op_info(Op::Add);
  EXPECT_EQ(add.host_int(std::numeric_limits<std::int64_t>::max(), 1, 0),
            std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(add.host_float(0.5, 0.25, 0), 0.75);
}

TEST(OpTable, EveryDeviceFunctionIsDefinedInTheTemplates) {
  const std::string source = device_source();
  for (Op op : all_ops()) {
    const OpInfo& info = lazy::ir::op_info(op);
    if (info.kind != OpKind::pointwise && info.kind != OpKind::generator) continue;
    std::vector<std::string> names;
    if (info.device_name == lazy::ir::DeviceName::per_result_dtype) {
      for (DType dtype : kAllDTypes) {
        const bool floating_only = op == Op::RandUniform;
        const bool not_bool = op == Op::Arange;
        if ((floating_only && !lazy::is_floating(dtype)) || (not_bool && dtype == DType::bool_))
          continue;
        names.push_back(std::string(info.device_function) + "_" +
                        std::string(lazy::dtype_name(dtype)));
      }
    } else {
      names.push_back(std::string(info.device_function));
      if (info.device_name == lazy::ir::DeviceName::fast_math_variant)
        names.push_back(std::string(info.device_function) + "_fast");
    }
    for (const std::string& name : names) {
      EXPECT_NE(source.find(" " + name + "("), std::string::npos) << name << " for " << info.name;
    }
  }
}

TEST(OpTable, EveryReductionFoldsThroughAPointwiseRowWithHostFunctions) {
  const std::string source = device_source();
  for (Op op : all_ops()) {
    if (lazy::ir::op_kind(op) != OpKind::reduction) continue;
    const lazy::ir::ReductionInfo& info = lazy::ir::reduction_info(op);
    const OpInfo& combine = lazy::ir::op_info(info.combine);
    EXPECT_EQ(combine.kind, OpKind::pointwise) << lazy::ir::op_name(op);
    EXPECT_EQ(combine.arity, 2) << lazy::ir::op_name(op);
    EXPECT_NE(combine.host_int, nullptr) << lazy::ir::op_name(op);
    if (info.fold != lazy::ir::FoldKind::logical) {
      EXPECT_NE(combine.host_float, nullptr) << lazy::ir::op_name(op);
    }
    EXPECT_NE(source.find(std::string(info.device_fold) + ","), std::string::npos)
        << info.device_fold;
  }
}

TEST(OpTable, CostClassesDriveTranscendentalCounting) {
  EXPECT_TRUE(lazy::ir::is_transcendental(Op::Exp));
  EXPECT_TRUE(lazy::ir::is_transcendental(Op::RandNormal));
  EXPECT_FALSE(lazy::ir::is_transcendental(Op::Div));
  EXPECT_EQ(lazy::ir::op_info(Op::Div).cost, lazy::ir::Cost::long_latency);
  EXPECT_EQ(lazy::ir::op_info(Op::Add).cost, lazy::ir::Cost::simple);
}

// PyTorch 2.11 (CPU and CUDA) rounds a number to an f16 or bf16 tensor's dtype for comparisons,
// pow, remainder and fmod, and takes it in f32 for the arithmetic; integer rows keep their own.
TEST(OpTable, NumbersRoundToTheTensorsDtypeOnlyWherePyTorchsDo) {
  using lazy::ir::pointwise_dtypes;
  for (Op op : {Op::Pow, Op::Remainder, Op::Fmod, Op::Lt}) {
    EXPECT_EQ(pointwise_dtypes(op, DType::f16).number, DType::f16) << op_info(op).name;
    EXPECT_EQ(pointwise_dtypes(op, DType::bf16).number, DType::bf16) << op_info(op).name;
    EXPECT_EQ(pointwise_dtypes(op, DType::i32).number, DType::i32) << op_info(op).name;
  }
  for (Op op : {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::FloorDivide, Op::Maximum})
    EXPECT_EQ(pointwise_dtypes(op, DType::bf16).number, DType::f32) << op_info(op).name;
  // pow's exponent converts checked, as PyTorch's; remainder's number may round to inf.
  const Tensor half = lazy::full({1}, 3.0, DType::f16);
  EXPECT_THROW((void)lazy::pow(half, 1e5), lazy::ValueError);
  EXPECT_THROW((void)lazy::pow(lazy::full({1}, 3.0), 1e40), lazy::ValueError);
  EXPECT_EQ(lazy::remainder(half, 1e5).item<double>(), 3);
  EXPECT_EQ(lazy::pow(1e5, lazy::full({1}, 0.0, DType::f16)).item<double>(), 1);
}

// Every public pointwise op the dtype accepts, as one program: one fused kernel per dtype.
std::vector<Tensor> every_pointwise_op(const Tensor& a, const Tensor& b) {
  using Unary = Tensor (*)(const Tensor&, std::source_location);
  using Binary = Tensor (*)(const lazy::Operand&, const lazy::Operand&, std::source_location);
  const Unary unary[] = {
      lazy::neg,   lazy::abs,     lazy::sign,        lazy::square,     lazy::relu,
      lazy::floor, lazy::ceil,    lazy::round,       lazy::trunc,      lazy::exp,
      lazy::exp2,  lazy::log,     lazy::log2,        lazy::log1p,      lazy::expm1,
      lazy::sqrt,  lazy::rsqrt,   lazy::sin,         lazy::cos,        lazy::tanh,
      lazy::erf,   lazy::sigmoid, lazy::gelu_tanh,   lazy::reciprocal, lazy::logical_not,
      lazy::isnan, lazy::isinf,   lazy::bitwise_not, lazy::tan,        lazy::asin,
      lazy::acos,  lazy::atan,    lazy::sinh,        lazy::cosh,       lazy::asinh,
      lazy::acosh, lazy::atanh,   lazy::log10,       lazy::isfinite};
  const Binary binary[] = {lazy::add,
                           lazy::sub,
                           lazy::mul,
                           lazy::div,
                           lazy::pow,
                           lazy::maximum,
                           lazy::minimum,
                           lazy::floor_divide,
                           lazy::remainder,
                           lazy::fmod,
                           lazy::atan2,
                           lazy::hypot,
                           lazy::logaddexp,
                           lazy::eq,
                           lazy::ne,
                           lazy::lt,
                           lazy::le,
                           lazy::gt,
                           lazy::ge,
                           lazy::logical_and,
                           lazy::logical_or,
                           lazy::bitwise_and,
                           lazy::bitwise_or,
                           lazy::bitwise_xor,
                           lazy::bitwise_left_shift,
                           lazy::bitwise_right_shift,
                           lazy::logical_xor};
  std::vector<Tensor> out;
  auto keep = [&](const std::function<Tensor()>& f) {
    try {
      out.push_back(f());
    } catch (const lazy::DTypeError&) {
      // The op refuses this dtype at the call: nothing recorded.
    }
  };
  for (Unary f : unary) keep([&] { return f(a, std::source_location::current()); });
  for (Binary f : binary) {
    keep([&] { return f(a, b, std::source_location::current()); });
    keep([&] { return f(a, 3, std::source_location::current()); });
  }
  keep([&] { return lazy::where(a == b, a, b); });
  keep([&] { return lazy::lerp(a, b, 0.25); });
  keep([&] { return lazy::lerp(a, b, b); });
  for (DType to : kAllDTypes) keep([&] { return a.to(to); });
  return out;
}

TEST(OpTable, AKernelOfEveryPointwiseOpCompilesForEachDType) {
  if (std::string why; !lazy::jit::nvrtc_available(&why)) GTEST_SKIP() << why;
  for (DType dtype : kAllDTypes) {
    SCOPED_TRACE(std::string(lazy::dtype_name(dtype)));
    Tensor a = lazy::zeros({4, 8}, dtype);
    Tensor b = lazy::ones({4, 8}, dtype);
    std::vector<Tensor> outputs = every_pointwise_op(a, b);
    EXPECT_GT(outputs.size(), 20u);
    lazy_test::expect_compiles(lazy_test::generate_pending());
    lazy::ir::Trace::current().clear();
  }
}

TEST(OpTable, GeneratorsCompileForEachDTypeTheyMake) {
  if (std::string why; !lazy::jit::nvrtc_available(&why)) GTEST_SKIP() << why;
  std::vector<Tensor> outputs;
  for (DType dtype : {DType::f32, DType::f16, DType::bf16}) {
    outputs.push_back(lazy::rand({64}, 5, dtype));
    outputs.push_back(lazy::randn({64}, 6, dtype));
  }
  for (DType dtype : {DType::f32, DType::f16, DType::bf16, DType::i32, DType::i64})
    outputs.push_back(lazy::arange(0, 64, 1, dtype));
  lazy_test::expect_compiles(lazy_test::generate_pending());
  lazy::ir::Trace::current().clear();
}

}  // namespace
