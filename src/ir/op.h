// Every primitive the graph can hold, in one table: what it is (kind, arity, dtype rule, how it
// reads its operands, cost), the device function generated kernels call (lz_<op>, in
// nvrtc_templates/lz_pointwise.cuh) and the host function the reference evaluator calls
// (ir/op_reference.h). Codegen, the reference evaluator and the partitioner read this table;
// none of them switches on a pointwise op. Composites (gelu, silu, softmax, the norms) are
// built from these in api/, so fusion sees through them. Adding a primitive:
// docs/architecture.md, "Adding an op".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lazy/dtype.h"

namespace lazy::ir {

enum class OpKind : std::uint8_t {
  leaf,       // no inputs: data, scalars
  pointwise,  // element i of the output depends on element i of each input
  generator,  // element i is a function of i and of scalar operands (arange, rand)
  view,       // an index map over one input; never copies
  copy,       // a dense copy of one input
  reduction,  // folds the axes in attrs[0] (a bit mask); attrs[1]: keepdim
  matmul,     // a matrix product through cuBLASLt, with its epilogue (ir/matmul.h)
  gather,     // element i of input 0 with its coordinate along attrs[0] taken from element i of
              // input 1 (an index): a load at a data-dependent position
  concat,     // the inputs joined along attrs[0], in order: element i comes from the one input
              // whose span of that axis holds i's coordinate
  scan,       // element i folds every element of its input's last axis up to i's (cumsum)
  top_k,      // the attrs[0] best elements of each row of the input's last axis, best first
              // (attrs[1]: 1 for the largest, 0 for the smallest), or their positions
  scatter,    // element i of input 0, with the elements of input 3 whose index (input 1, sorted
              // along attrs[1]; input 2, where each came from) names i folded in
};

// A kernel takes each concatenation part's address and bounds as arguments, within CUDA's 32 KiB
// of them, and compiles longer the more parts it has (300 parts: 1.7 s in one, 0.75 in groups of
// 64): a Concat joins at most this many inputs, and a kernel computes at most this many parts.
inline constexpr std::size_t kMaxConcatParts = 64;

// The result dtype of a pointwise op from its operands' promoted dtype (ir/type_promotion.h).
enum class DTypeRule : std::uint8_t {
  promoted,           // the promoted dtype; computed in it
  promoted_rounding,  // like promoted, but a number is first rounded to the promoted dtype, as
                      // PyTorch's pow, remainder and fmod do (f16 1.0 % 0.1 is by f16's 0.1)
  promoted_floating,  // like promoted, but integers and bool give f32
  promoted_integral,  // like promoted, but floating dtypes are refused (bitwise ops)
  promoted_integer,   // like promoted, but floating dtypes and bool are refused (shifts)
  to_bool,            // bool, computed in the promoted dtype
  given,              // set by the op's own API function (casts, leaves, views, reductions)
};

// The dtype a pointwise op reads operand i as.
enum class OperandRule : std::uint8_t {
  compute,    // tensors in the op's compute dtype; numbers keep the dtype they were recorded in
  own,        // as they are (casts, isnan)
  truth,      // as bool: non-zero, NaN included, is true
  condition,  // operand 0 as bool, the others as `compute`
};

// What an op costs per element: the row emitter recomputes cheap values rather than holding
// them, and the pointwise emitter budgets transcendental chains.
enum class Cost : std::uint8_t {
  simple,          // a few ALU instructions
  long_latency,    // division and square roots: one long instruction sequence
  transcendental,  // the special-function unit or a library call
};

// How the device function's name is chosen.
enum class DeviceName : std::uint8_t {
  plain,              // lz_<op>, overloaded on the operands' C++ types
  fast_math_variant,  // lz_<op>_fast under LAZY_FAST_MATH for floating compute
  per_result_dtype,   // lz_<op>_<dtype of the result>, e.g. lz_cast_f16
};

// X(enum name, lower-case name, kind, arity, dtype rule, operand rule, cost, device name)
#define LAZY_FOR_EACH_OP(X)                                                                        \
  /* leaves */                                                                                     \
  X(Data, data, leaf, 0, given, own, simple, plain)     /* values already computed */              \
  X(Scalar, scalar, leaf, 0, given, own, simple, plain) /* a number given by the user */           \
  /* generators: start + i * step; Philox streams from the seed scalar */                          \
  X(Arange, arange, generator, 2, given, own, simple, per_result_dtype)                            \
  X(RandUniform, rand_uniform, generator, 1, given, own, simple, per_result_dtype)                 \
  X(RandNormal, rand_normal, generator, 1, given, own, transcendental, plain)                      \
  /* unary pointwise */                                                                            \
  X(Neg, neg, pointwise, 1, promoted, compute, simple, plain)                                      \
  X(Abs, abs, pointwise, 1, promoted, compute, simple, plain)                                      \
  X(Sign, sign, pointwise, 1, promoted, compute, simple, plain)                                    \
  X(Square, square, pointwise, 1, promoted, compute, simple, plain)                                \
  X(Relu, relu, pointwise, 1, promoted, compute, simple, plain)                                    \
  X(Floor, floor, pointwise, 1, promoted, compute, simple, plain)                                  \
  X(Ceil, ceil, pointwise, 1, promoted, compute, simple, plain)                                    \
  X(Round, round, pointwise, 1, promoted, compute, simple, plain)                                  \
  X(Trunc, trunc, pointwise, 1, promoted, compute, simple, plain)                                  \
  X(Exp, exp, pointwise, 1, promoted_floating, compute, transcendental, plain)                     \
  X(Exp2, exp2, pointwise, 1, promoted_floating, compute, transcendental, plain)                   \
  X(Log, log, pointwise, 1, promoted_floating, compute, transcendental, plain)                     \
  X(Log2, log2, pointwise, 1, promoted_floating, compute, transcendental, plain)                   \
  X(Log1p, log1p, pointwise, 1, promoted_floating, compute, transcendental, plain)                 \
  X(Expm1, expm1, pointwise, 1, promoted_floating, compute, transcendental, plain)                 \
  X(Sqrt, sqrt, pointwise, 1, promoted_floating, compute, long_latency, plain)                     \
  X(Rsqrt, rsqrt, pointwise, 1, promoted_floating, compute, long_latency, plain)                   \
  X(Sin, sin, pointwise, 1, promoted_floating, compute, transcendental, plain)                     \
  X(Cos, cos, pointwise, 1, promoted_floating, compute, transcendental, plain)                     \
  X(Tanh, tanh, pointwise, 1, promoted_floating, compute, transcendental, fast_math_variant)       \
  X(Tan, tan, pointwise, 1, promoted_floating, compute, transcendental, plain)                     \
  X(Asin, asin, pointwise, 1, promoted_floating, compute, transcendental, plain)                   \
  X(Acos, acos, pointwise, 1, promoted_floating, compute, transcendental, plain)                   \
  X(Atan, atan, pointwise, 1, promoted_floating, compute, transcendental, plain)                   \
  X(Sinh, sinh, pointwise, 1, promoted_floating, compute, transcendental, plain)                   \
  X(Cosh, cosh, pointwise, 1, promoted_floating, compute, transcendental, plain)                   \
  X(Asinh, asinh, pointwise, 1, promoted_floating, compute, transcendental, plain)                 \
  X(Acosh, acosh, pointwise, 1, promoted_floating, compute, transcendental, plain)                 \
  X(Atanh, atanh, pointwise, 1, promoted_floating, compute, transcendental, plain)                 \
  X(Log10, log10, pointwise, 1, promoted_floating, compute, transcendental, plain)                 \
  X(Erf, erf, pointwise, 1, promoted_floating, compute, transcendental, plain)                     \
  X(Sigmoid, sigmoid, pointwise, 1, promoted_floating, compute, transcendental, fast_math_variant) \
  /* gelu_tanh is one node so that a matrix product's epilogue can take it (ir/matmul.h) */        \
  X(GeluTanh, gelu_tanh, pointwise, 1, promoted_floating, compute, transcendental, plain)          \
  X(Reciprocal, reciprocal, pointwise, 1, promoted_floating, compute, simple, plain)               \
  X(LogicalNot, logical_not, pointwise, 1, to_bool, truth, simple, plain)                          \
  X(BitwiseNot, bitwise_not, pointwise, 1, promoted_integer, compute, simple, plain)               \
  X(IsNan, isnan, pointwise, 1, to_bool, own, simple, plain)                                       \
  X(IsInf, isinf, pointwise, 1, to_bool, own, simple, plain)                                       \
  X(IsFinite, isfinite, pointwise, 1, to_bool, own, simple, plain)                                 \
  X(Cast, cast, pointwise, 1, given, own, simple, per_result_dtype)                                \
  /* binary pointwise */                                                                           \
  X(Add, add, pointwise, 2, promoted, compute, simple, plain)                                      \
  X(Sub, sub, pointwise, 2, promoted, compute, simple, plain)                                      \
  X(Mul, mul, pointwise, 2, promoted, compute, simple, plain)                                      \
  X(Div, div, pointwise, 2, promoted_floating, compute, long_latency, plain)                       \
  X(Pow, pow, pointwise, 2, promoted_rounding, compute, transcendental, plain)                     \
  X(Maximum, maximum, pointwise, 2, promoted, compute, simple, plain)                              \
  X(Minimum, minimum, pointwise, 2, promoted, compute, simple, plain)                              \
  /* integer division rounding down (Python's // and %) or toward zero (C's %) */                  \
  X(Remainder, remainder, pointwise, 2, promoted_rounding, compute, long_latency, plain)           \
  X(Fmod, fmod, pointwise, 2, promoted_rounding, compute, long_latency, plain)                     \
  X(FloorDivide, floor_divide, pointwise, 2, promoted, compute, long_latency, plain)               \
  X(Atan2, atan2, pointwise, 2, promoted_floating, compute, transcendental, plain)                 \
  X(Hypot, hypot, pointwise, 2, promoted_floating, compute, long_latency, plain)                   \
  X(LogAddExp, logaddexp, pointwise, 2, promoted_floating, compute, transcendental, plain)         \
  /* gelu_tanh's backward g * gelu_tanh'(x), one node so a product's DGELU epilogue can take it */ \
  X(GeluTanhGrad, gelu_tanh_grad, pointwise, 2, promoted_floating, compute, transcendental, plain) \
  X(Eq, eq, pointwise, 2, to_bool, compute, simple, plain)                                         \
  X(Ne, ne, pointwise, 2, to_bool, compute, simple, plain)                                         \
  X(Lt, lt, pointwise, 2, to_bool, compute, simple, plain)                                         \
  X(Le, le, pointwise, 2, to_bool, compute, simple, plain)                                         \
  X(Gt, gt, pointwise, 2, to_bool, compute, simple, plain)                                         \
  X(Ge, ge, pointwise, 2, to_bool, compute, simple, plain)                                         \
  X(LogicalAnd, logical_and, pointwise, 2, to_bool, truth, simple, plain)                          \
  X(LogicalOr, logical_or, pointwise, 2, to_bool, truth, simple, plain)                            \
  X(LogicalXor, logical_xor, pointwise, 2, to_bool, truth, simple, plain)                          \
  /* bits of integers (and of bool, where and, or and xor are logic); see lz_pointwise.cuh */      \
  X(BitwiseAnd, bitwise_and, pointwise, 2, promoted_integral, compute, simple, plain)              \
  X(BitwiseOr, bitwise_or, pointwise, 2, promoted_integral, compute, simple, plain)                \
  X(BitwiseXor, bitwise_xor, pointwise, 2, promoted_integral, compute, simple, plain)              \
  X(BitwiseLeftShift, bitwise_left_shift, pointwise, 2, promoted_integer, compute, simple, plain)  \
  X(BitwiseRightShift, bitwise_right_shift, pointwise, 2, promoted_integer, compute, simple,       \
    plain)                                                                                         \
  /* ternary pointwise */                                                                          \
  X(Where, where, pointwise, 3, promoted, condition, simple, plain)                                \
  X(Lerp, lerp, pointwise, 3, promoted_floating, compute, simple, plain)                           \
  /* views: attrs hold the index map (ir/layout.h: apply_view) */                                  \
  X(Reshape, reshape, view, 1, given, own, simple, plain)                                          \
  X(Permute, permute, view, 1, given, own, simple, plain) /* attrs: the permutation */             \
  X(Expand, expand, view, 1, given, own, simple, plain)   /* NumPy broadcast_to */                 \
  X(Slice, slice, view, 1, given, own, simple, plain)     /* attrs: axis, start, step */           \
  /* the same values as a node of its own: where gradients start (grad's inputs) or stop */        \
  X(Alias, alias, view, 1, given, own, simple, plain)                                              \
  /* copies */                                                                                     \
  X(Contiguous, contiguous, copy, 1, given, own, simple, plain)                                    \
  /* reductions (LAZY_FOR_EACH_REDUCTION): compute_dtype is the accumulator's */                   \
  X(ReduceSum, sum, reduction, 1, given, own, simple, plain)                                       \
  X(ReduceProd, prod, reduction, 1, given, own, simple, plain)                                     \
  X(ReduceMax, max, reduction, 1, given, own, simple, plain)                                       \
  X(ReduceMin, min, reduction, 1, given, own, simple, plain)                                       \
  X(ArgMax, argmax, reduction, 1, given, own, simple, plain)                                       \
  X(ArgMin, argmin, reduction, 1, given, own, simple, plain)                                       \
  X(ReduceAny, any, reduction, 1, given, own, simple, plain)                                       \
  X(ReduceAll, all, reduction, 1, given, own, simple, plain)                                       \
  /* matrix products: inputs a, b, then the epilogue's bias and residual (ir/matmul.h) */          \
  X(MatMul, matmul, matmul, 2, given, own, simple, plain)                                          \
  /* gathers: source, index of the result's shape; attrs[0]: the axis the index picks along */     \
  X(Gather, gather, gather, 2, given, own, simple, plain)                                          \
  /* concatenations: any number of inputs of one dtype; attrs[0]: the axis they join along */      \
  X(Concat, concat, concat, 0, given, own, simple, plain)                                          \
  /* scans over the input's last axis (LAZY_FOR_EACH_SCAN); compute_dtype is the accumulator's */  \
  X(CumSum, cumsum, scan, 1, given, own, simple, plain)                                            \
  X(CumProd, cumprod, scan, 1, given, own, simple, plain)                                          \
  X(CumMax, cummax, scan, 1, given, own, simple, plain)                                            \
  X(CumMin, cummin, scan, 1, given, own, simple, plain)                                            \
  X(CumArgMax, cumargmax, scan, 1, given, own, simple, plain) /* cummax's indices */               \
  X(CumArgMin, cumargmin, scan, 1, given, own, simple, plain) /* cummin's indices */               \
  /* top-k over the input's last axis: attrs k, largest; equal values in order of position */      \
  X(TopK, topk, top_k, 1, given, own, simple, plain)                                               \
  X(TopKIndex, topk_index, top_k, 1, given, own, simple, plain) /* their positions, i64 */         \
  /* scatters along attrs[1] (ir/scatter.h): x, the sorted index, its order, src */                \
  X(ScatterAdd, scatter_add, scatter, 4, given, own, simple, plain)                                \
  X(ScatterLast, scatter_last, scatter, 4, given, own, simple, plain) /* the last src wins */

enum class Op : std::uint8_t {
#define LAZY_OP_ENUM(name, ...) name,
  LAZY_FOR_EACH_OP(LAZY_OP_ENUM)
#undef LAZY_OP_ENUM
};

// How a reduction folds: the accumulator starts at `identity` and takes each element through the
// pointwise op `combine` (its host function is the reference fold; kernels call `device_fold`,
// which also merges partial results across threads).
enum class FoldKind : std::uint8_t {
  value,       // the accumulator is the result
  logical,     // any / all: elements enter as truth values
  positional,  // argmax / argmin: the result is the position of the element `combine` prefers
};
enum class FoldIdentity : std::uint8_t { zero, one, lowest, highest };

// X(op, fold kind, identity, combine, device fold)
#define LAZY_FOR_EACH_REDUCTION(X)                    \
  X(ReduceSum, value, zero, Add, lz_fold_sum)         \
  X(ReduceProd, value, one, Mul, lz_fold_prod)        \
  X(ReduceMax, value, lowest, Maximum, lz_fold_max)   \
  X(ReduceMin, value, highest, Minimum, lz_fold_min)  \
  X(ArgMax, positional, zero, Gt, lz_fold_argmax)     \
  X(ArgMin, positional, zero, Lt, lz_fold_argmin)     \
  X(ReduceAny, logical, zero, LogicalOr, lz_fold_any) \
  X(ReduceAll, logical, one, LogicalAnd, lz_fold_all)

// How a scan folds each prefix: as a reduction would (a positional scan gives the position of the
// value its sibling gives), except that ties go to the later element: PyTorch's cummax.
// X(op, fold kind, identity, combine, device fold)
#define LAZY_FOR_EACH_SCAN(X)                       \
  X(CumSum, value, zero, Add, lz_fold_sum)          \
  X(CumProd, value, one, Mul, lz_fold_prod)         \
  X(CumMax, value, lowest, Ge, lz_scan_max)         \
  X(CumMin, value, highest, Le, lz_scan_min)        \
  X(CumArgMax, positional, lowest, Ge, lz_scan_max) \
  X(CumArgMin, positional, highest, Le, lz_scan_min)

struct ReductionInfo {
  FoldKind fold;
  FoldIdentity identity;
  Op combine;
  std::string_view device_fold;
};

// The reference meaning of one element (ir/op_reference.h), in double precision or in exact
// 64-bit integers (integer and bool dtypes); null where the op has no such meaning. Operands
// beyond the arity are 0.
using HostFloatFunction = double (*)(double, double, double);
using HostIntFunction = std::int64_t (*)(std::int64_t, std::int64_t, std::int64_t);

struct OpInfo {
  std::string_view name;  // the enum's name, as LAZY_DEBUG prints it
  OpKind kind;
  int arity;
  DTypeRule dtype_rule;
  OperandRule operands;
  Cost cost;
  DeviceName device_name;
  std::string_view device_function;  // lz_<lower-case name>
  HostFloatFunction host_float;
  HostIntFunction host_int;
  const ReductionInfo* reduction;  // reductions and scans only
};

const OpInfo& op_info(Op op);
inline std::string_view op_name(Op op) {
  return op_info(op).name;
}
// The op's lower-case name, nearer the API's than the enum's (sum for ReduceSum, rand_uniform
// for RandUniform), for messages that have no API name at hand.
inline std::string_view op_api_name(Op op) {
  return op_info(op).device_function.substr(3);  // past "lz_"
}
inline OpKind op_kind(Op op) {
  return op_info(op).kind;
}
inline bool is_transcendental(Op op) {
  return op_info(op).cost == Cost::transcendental;
}
const ReductionInfo& reduction_info(Op op);
// A scan's fold (LAZY_FOR_EACH_SCAN), in the same terms as a reduction's.
const ReductionInfo& scan_info(Op op);

}  // namespace lazy::ir
