#include "codegen/kernel_name.h"

#include <absl/strings/str_join.h>

#include "codegen/kernel_builder.h"
#include "codegen/text.h"
#include "ir/hash.h"

namespace lazy::codegen {

namespace {

constexpr int kNamedOpsInKernelName = 8;

}  // namespace

std::string kernel_name(std::string_view prefix, std::vector<std::string> leading,
                        const fuse::Region& region, std::span<const ir::NodePtr> pending,
                        DType output, std::string_view source) {
  std::vector<std::string> words = std::move(leading);
  int op_count = 0;
  for (const fuse::Term& term : region.terms) {
    if (term.kind != fuse::Term::Kind::op && term.kind != fuse::Term::Kind::generator) continue;
    if (++op_count <= kNamedOpsInKernelName)
      words.push_back(lower(ir::op_name(pending[term.source]->op)));
  }
  if (words.empty()) words.push_back("copy");
  if (op_count > kNamedOpsInKernelName)
    words.push_back(cat("and", op_count - kNamedOpsInKernelName));
  // The same kernel recorded at another line of user code keeps its name.
  const ir::Hash128 hash = ir::hash_pieces(pieces_without_op_places(source));
  return cat(prefix, absl::StrJoin(words, "_"), "_", dtype_name(output), "_",
             hash.to_hex().substr(0, 8));
}

}  // namespace lazy::codegen
