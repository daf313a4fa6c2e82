#include "ir/type_promotion.h"

namespace lazy::ir {

namespace {

enum class Category { boolean = 0, integer = 1, floating = 2 };

Category category(DType d) {
  if (is_floating(d)) return Category::floating;
  if (is_integer(d)) return Category::integer;
  return Category::boolean;
}

// Combines the promoted types of two tiers, `higher` the one with more say.
std::optional<DType> combine_tiers(std::optional<DType> higher, std::optional<DType> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (category(*lower) > category(*higher)) return promote_types(*higher, *lower);
  return higher;
}

}  // namespace

PromotionOperand promotion_operand_of_scalar(const Scalar& scalar) {
  switch (scalar.kind()) {
    case Scalar::Kind::boolean:
      return {PromotionOperand::Tier::scalar, DType::bool_};
    case Scalar::Kind::integer:
      return {PromotionOperand::Tier::scalar, DType::i64};
    case Scalar::Kind::floating:
      return {PromotionOperand::Tier::scalar, DType::f32};
  }
  return {PromotionOperand::Tier::scalar, DType::f32};
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  Category ca = category(a);
  Category cb = category(b);
  if (ca != cb) return ca > cb ? a : b;
  if (ca == Category::integer) return DType::i64;  // i32 with i64
  // Two different floating types: f32 wins; f16 with bf16 has no common narrow type.
  return DType::f32;
}

DType result_type(std::span<const PromotionOperand> operands) {
  std::optional<DType> tiers[3];
  for (const PromotionOperand& op : operands) {
    std::optional<DType>& tier = tiers[int(op.tier)];
    tier = tier ? promote_types(*tier, op.dtype) : op.dtype;
  }
  std::optional<DType> result =
      combine_tiers(tiers[int(PromotionOperand::Tier::dimensioned)],
                    combine_tiers(tiers[int(PromotionOperand::Tier::zero_dim)],
                                  tiers[int(PromotionOperand::Tier::scalar)]));
  return result.value_or(DType::f32);
}

}  // namespace lazy::ir
