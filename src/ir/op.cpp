#include "ir/op.h"

#include <array>

namespace lazy::ir {

namespace {
constexpr std::array kOpInfos = {
#define LAZY_OP_INFO(name, kind, arity) OpInfo{#name, OpKind::kind, arity},
    LAZY_FOR_EACH_OP(LAZY_OP_INFO)
#undef LAZY_OP_INFO
};
}  // namespace

const OpInfo& op_info(Op op) {
  return kOpInfos[static_cast<std::size_t>(op)];
}

}  // namespace lazy::ir
