#include "codegen/reduction_folds.h"

#include "codegen/op_expressions.h"
#include "codegen/text.h"

namespace lazy::codegen {

namespace {

// The accumulator's start as a literal of acc_type ("float", "long long" or "int").
std::string identity_literal(ir::FoldIdentity identity, std::string_view acc_type) {
  const bool floating = acc_type == "float", narrow = acc_type == "int";
  switch (identity) {
    case ir::FoldIdentity::zero:
      return "0";
    case ir::FoldIdentity::one:
      return "1";
    case ir::FoldIdentity::lowest:
      return floating ? "-__int_as_float(0x7f800000)"
             : narrow ? "(-2147483647 - 1)"
                      : "(-9223372036854775807LL - 1)";
    case ir::FoldIdentity::highest:
      return floating ? "__int_as_float(0x7f800000)"
             : narrow ? "2147483647"
                      : "9223372036854775807LL";
  }
  return "0";
}

}  // namespace

Fold fold_of(const ir::Node& reduction) {
  const ir::ReductionInfo& info = ir::reduction_info(reduction.op);
  Fold fold;
  fold.logical = info.fold == ir::FoldKind::logical;
  fold.positional = info.fold == ir::FoldKind::positional;
  const DType compute = reduction.compute_dtype;
  fold.acc_type = fold.logical || compute == DType::bool_ || compute == DType::i32
                      ? "int"
                      : std::string(value_type(compute));
  fold.identity = identity_literal(info.identity, fold.acc_type);
  fold.function = std::string(info.device_fold);
  return fold;
}

std::string fold_input(const ir::Node& reduction, const Fold& fold, DType folded,
                       const std::string& value) {
  // A fold that picks or tests elements (all but sums and products) reads an f16 or bf16 value as
  // stored, as an op whose result jumps does: unrounded, argmax told apart values that tie.
  const ir::Op combine = ir::reduction_info(reduction.op).combine;
  const std::string read =
      combine == ir::Op::Add || combine == ir::Op::Mul ? value : as_stored(folded, value);
  if (fold.logical) return cat("(int)(", convert(folded, DType::bool_, read), ")");
  return cat("(", fold.acc_type, ")", convert(folded, reduction.compute_dtype, read));
}

std::string fold_result(const ir::Node& reduction, const Fold& fold, const std::string& acc,
                        const std::string& at) {
  if (fold.positional) return at;
  if (fold.logical) return cat("(", acc, " != 0)");
  return convert(reduction.compute_dtype, reduction.dtype, acc);
}

}  // namespace lazy::codegen
