// Every primitive the graph can hold, in one list. Composite ops (gelu, silu, softplus, clamp,
// later softmax and the norms) are built from these, so fusion sees through them.
#pragma once

#include <cstdint>
#include <string_view>

namespace lazy::ir {

enum class OpKind : std::uint8_t {
  leaf,       // no inputs: data, scalars, generators
  pointwise,  // element i of the output depends on element i of each input
  view,       // an index map over one input; never copies
  copy,       // a dense copy of one input
  reduction,  // folds the axes in attrs[0] (a bit mask); attrs[1]: keepdim
  // Later: library (matrix products).
};

#define LAZY_FOR_EACH_OP(X)                                                             \
  /* leaves */                                                                          \
  X(Data, leaf, 0)             /* values already computed (from_data, earlier syncs) */ \
  X(Scalar, leaf, 0)           /* a number given by the user: an input of the graph */  \
  X(Arange, pointwise, 2)      /* start + i * step; inputs: the two scalars */          \
  X(RandUniform, pointwise, 1) /* Philox; input: the seed scalar */                     \
  X(RandNormal, pointwise, 1)                                                           \
  /* unary pointwise */                                                                 \
  X(Neg, pointwise, 1)                                                                  \
  X(Abs, pointwise, 1)                                                                  \
  X(Sign, pointwise, 1)                                                                 \
  X(Square, pointwise, 1)                                                               \
  X(Relu, pointwise, 1)                                                                 \
  X(Floor, pointwise, 1)                                                                \
  X(Ceil, pointwise, 1)                                                                 \
  X(Round, pointwise, 1)                                                                \
  X(Exp, pointwise, 1)                                                                  \
  X(Exp2, pointwise, 1)                                                                 \
  X(Log, pointwise, 1)                                                                  \
  X(Log2, pointwise, 1)                                                                 \
  X(Log1p, pointwise, 1)                                                                \
  X(Expm1, pointwise, 1)                                                                \
  X(Sqrt, pointwise, 1)                                                                 \
  X(Rsqrt, pointwise, 1)                                                                \
  X(Sin, pointwise, 1)                                                                  \
  X(Cos, pointwise, 1)                                                                  \
  X(Tanh, pointwise, 1)                                                                 \
  X(Erf, pointwise, 1)                                                                  \
  X(Sigmoid, pointwise, 1)                                                              \
  X(Reciprocal, pointwise, 1)                                                           \
  X(LogicalNot, pointwise, 1)                                                           \
  X(IsNan, pointwise, 1)                                                                \
  X(IsInf, pointwise, 1)                                                                \
  X(Cast, pointwise, 1)                                                                 \
  /* binary pointwise */                                                                \
  X(Add, pointwise, 2)                                                                  \
  X(Sub, pointwise, 2)                                                                  \
  X(Mul, pointwise, 2)                                                                  \
  X(Div, pointwise, 2)                                                                  \
  X(Pow, pointwise, 2)                                                                  \
  X(Maximum, pointwise, 2)                                                              \
  X(Minimum, pointwise, 2)                                                              \
  X(Eq, pointwise, 2)                                                                   \
  X(Ne, pointwise, 2)                                                                   \
  X(Lt, pointwise, 2)                                                                   \
  X(Le, pointwise, 2)                                                                   \
  X(Gt, pointwise, 2)                                                                   \
  X(Ge, pointwise, 2)                                                                   \
  X(LogicalAnd, pointwise, 2)                                                           \
  X(LogicalOr, pointwise, 2)                                                            \
  /* ternary pointwise */                                                               \
  X(Where, pointwise, 3)                                                                \
  /* views: attrs hold the index map */                                                 \
  X(Reshape, view, 1)                                                                   \
  X(Permute, view, 1) /* attrs: the permutation */                                      \
  X(Expand, view, 1)  /* NumPy broadcast_to: axes align from the right */               \
  X(Slice, view, 1)   /* attrs: axis, start, step; the shape gives the length */        \
  /* copies */                                                                          \
  X(Contiguous, copy, 1)                                                                \
  /* reductions: compute_dtype is the accumulator's */                                  \
  X(ReduceSum, reduction, 1)                                                            \
  X(ReduceProd, reduction, 1)                                                           \
  X(ReduceMax, reduction, 1)                                                            \
  X(ReduceMin, reduction, 1)                                                            \
  X(ArgMax, reduction, 1)                                                               \
  X(ArgMin, reduction, 1)                                                               \
  X(ReduceAny, reduction, 1)                                                            \
  X(ReduceAll, reduction, 1)

enum class Op : std::uint8_t {
#define LAZY_OP_ENUM(name, kind, arity) name,
  LAZY_FOR_EACH_OP(LAZY_OP_ENUM)
#undef LAZY_OP_ENUM
};

struct OpInfo {
  std::string_view name;
  OpKind kind;
  int arity;
};

const OpInfo& op_info(Op op);
inline std::string_view op_name(Op op) {
  return op_info(op).name;
}
inline OpKind op_kind(Op op) {
  return op_info(op).kind;
}

}  // namespace lazy::ir
