#include "api/composite_marks.h"

#include <utility>

#include <absl/container/flat_hash_map.h>

#include "api/recording.h"

namespace lazy::api {

namespace {

struct MarkedResult {
  Tensor result;  // keeps the node, so its address names no other node while marked
  CompositeMark mark;
};

thread_local absl::flat_hash_map<const ir::Node*, MarkedResult> marks;

}  // namespace

void mark_composite(const Tensor& result, CompositeMark mark) {
  if (!differentiating()) return;
  marks.insert_or_assign(result.node(), MarkedResult{result, std::move(mark)});
}

const CompositeMark* composite_mark(const ir::Node* node) {
  if (marks.empty()) return nullptr;
  auto found = marks.find(node);
  return found == marks.end() ? nullptr : &found->second.mark;
}

void clear_composite_marks() {
  marks.clear();
}

}  // namespace lazy::api
