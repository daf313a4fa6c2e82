#include "ir/op.h"

#include <array>
#include <concepts>
#include <type_traits>

#include "ir/op_reference.h"

namespace lazy::ir {

namespace {

// An argument that converts to T and nothing else, so that a host function is found for a domain
// only where it is declared for it (an int64 must not reach a double overload through a
// conversion).
template <class T>
struct Exactly {
  T value;
  template <class U>
  requires std::same_as<U, T>
  operator U() const { return value; }
};

// The table's host function for domain T from a generic call of the reference function, or null
// where the op has none for T.
template <class T, class Call>
constexpr auto host_function(Call) {
  using Function = T (*)(T, T, T);
  if constexpr (std::is_invocable_v<Call, Exactly<T>, Exactly<T>, Exactly<T>>) {
    return Function(
        [](T a, T b, T c) -> T { return T(Call{}(Exactly<T>{a}, Exactly<T>{b}, Exactly<T>{c})); });
  } else {
    return Function(nullptr);
  }
}

#define LAZY_HOST_CALL_1(f) [](auto a, auto, auto) -> decltype(f(a)) { return f(a); }
#define LAZY_HOST_CALL_2(f) [](auto a, auto b, auto) -> decltype(f(a, b)) { return f(a, b); }
#define LAZY_HOST_CALL_3(f) \
  [](auto a, auto b, auto c) -> decltype(f(a, b, c)) { return f(a, b, c); }
// Only pointwise ops have host functions here; the evaluator computes the other kinds itself.
#define LAZY_HOST_pointwise(lower, arity, T) \
  host_function<T>(LAZY_HOST_CALL_##arity(reference::lower))
#define LAZY_HOST_leaf(lower, arity, T) nullptr
#define LAZY_HOST_generator(lower, arity, T) nullptr
#define LAZY_HOST_view(lower, arity, T) nullptr
#define LAZY_HOST_copy(lower, arity, T) nullptr
#define LAZY_HOST_reduction(lower, arity, T) nullptr
#define LAZY_HOST_matmul(lower, arity, T) nullptr
#define LAZY_HOST_gather(lower, arity, T) nullptr
#define LAZY_HOST_concat(lower, arity, T) nullptr
#define LAZY_HOST_scan(lower, arity, T) nullptr
#define LAZY_HOST_top_k(lower, arity, T) nullptr
#define LAZY_HOST_scatter(lower, arity, T) nullptr

constexpr std::array kReductionInfos = {
#define LAZY_REDUCTION_INFO(op, fold, identity, combine, device_fold) \
  ReductionInfo{FoldKind::fold, FoldIdentity::identity, Op::combine, #device_fold},
    LAZY_FOR_EACH_REDUCTION(LAZY_REDUCTION_INFO)
#undef LAZY_REDUCTION_INFO
};

constexpr std::array kScanInfos = {
#define LAZY_SCAN_INFO(op, fold, identity, combine, device_fold) \
  ReductionInfo{FoldKind::fold, FoldIdentity::identity, Op::combine, #device_fold},
    LAZY_FOR_EACH_SCAN(LAZY_SCAN_INFO)
#undef LAZY_SCAN_INFO
};

// A reduction's or a scan's fold.
constexpr const ReductionInfo* reduction_entry(Op op) {
  std::size_t i = 0;
#define LAZY_REDUCTION_INDEX(reduction, ...)           \
  if (op == Op::reduction) return &kReductionInfos[i]; \
  ++i;
  LAZY_FOR_EACH_REDUCTION(LAZY_REDUCTION_INDEX)
#undef LAZY_REDUCTION_INDEX
  i = 0;
#define LAZY_SCAN_INDEX(scan, ...)           \
  if (op == Op::scan) return &kScanInfos[i]; \
  ++i;
  LAZY_FOR_EACH_SCAN(LAZY_SCAN_INDEX)
#undef LAZY_SCAN_INDEX
  return nullptr;
}

const std::array kOpInfos = {
#define LAZY_OP_INFO(name, lower, kind, arity, dtype_rule, operands, cost, device_name) \
  OpInfo{#name,                                                                         \
         OpKind::kind,                                                                  \
         arity,                                                                         \
         DTypeRule::dtype_rule,                                                         \
         OperandRule::operands,                                                         \
         Cost::cost,                                                                    \
         DeviceName::device_name,                                                       \
         "lz_" #lower,                                                                  \
         LAZY_HOST_##kind(lower, arity, double),                                        \
         LAZY_HOST_##kind(lower, arity, std::int64_t),                                  \
         reduction_entry(Op::name)},
    LAZY_FOR_EACH_OP(LAZY_OP_INFO)
#undef LAZY_OP_INFO
};

}  // namespace

const OpInfo& op_info(Op op) {
  return kOpInfos[static_cast<std::size_t>(op)];
}

const ReductionInfo& reduction_info(Op op) {
  return *op_info(op).reduction;
}

const ReductionInfo& scan_info(Op op) {
  return *op_info(op).reduction;
}

}  // namespace lazy::ir
