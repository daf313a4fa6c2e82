#include "codegen/reduction_folds.h"

#include "codegen/op_expressions.h"
#include "codegen/text.h"

namespace lazy::codegen {

using ir::Op;

Fold fold_of(const ir::Node& reduction) {
  const Op op = reduction.op;
  Fold fold;
  fold.logical = op == Op::ReduceAny || op == Op::ReduceAll;
  fold.positional = op == Op::ArgMax || op == Op::ArgMin;
  const DType compute = reduction.compute_dtype;
  fold.acc_type = fold.logical || compute == DType::bool_ || compute == DType::i32
                      ? "int"
                      : std::string(value_type(compute));
  const bool floating = fold.acc_type == "float", narrow = fold.acc_type == "int";
  switch (op) {
    case Op::ReduceSum:
      fold = {fold.acc_type, "0", "lz_fold_sum", false, false};
      break;
    case Op::ReduceProd:
      fold = {fold.acc_type, "1", "lz_fold_prod", false, false};
      break;
    case Op::ReduceMax:
      fold.identity = floating ? "-__int_as_float(0x7f800000)"
                      : narrow ? "(-2147483647 - 1)"
                               : "(-9223372036854775807LL - 1)";
      fold.function = "lz_fold_max";
      break;
    case Op::ReduceMin:
      fold.identity = floating ? "__int_as_float(0x7f800000)"
                      : narrow ? "2147483647"
                               : "9223372036854775807LL";
      fold.function = "lz_fold_min";
      break;
    case Op::ReduceAny:
      fold.identity = "0";
      fold.function = "lz_fold_any";
      break;
    case Op::ReduceAll:
      fold.identity = "1";
      fold.function = "lz_fold_all";
      break;
    case Op::ArgMax:
      fold.identity = "0";
      fold.function = "lz_fold_argmax";
      break;
    case Op::ArgMin:
      fold.identity = "0";
      fold.function = "lz_fold_argmin";
      break;
    default:
      break;
  }
  return fold;
}

std::string fold_input(const ir::Node& reduction, const Fold& fold, DType folded,
                       const std::string& value) {
  if (fold.logical) return cat("(int)(", convert(folded, DType::bool_, value), ")");
  return cat("(", fold.acc_type, ")", convert(folded, reduction.compute_dtype, value));
}

std::string fold_result(const ir::Node& reduction, const Fold& fold, const std::string& acc,
                        const std::string& at) {
  if (fold.positional) return at;
  if (fold.logical) return cat("(", acc, " != 0)");
  return convert(reduction.compute_dtype, reduction.dtype, acc);
}

}  // namespace lazy::codegen
