#include "ir/debug.h"

#include <cstdio>
#include <sstream>

#include "ir/settings.h"

namespace lazy::ir {

int debug_level() {
  static const int level = int(integer_setting(Setting::debug));
  return level;
}

void debug_print(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stderr);
  if (!text.empty() && text.back() != '\n') std::fputc('\n', stderr);
}

std::string describe_graph(std::span<const ir::NodePtr> pending, const std::vector<bool>& live) {
  std::ostringstream out;
  for (std::size_t i = 0; i < pending.size(); ++i) {
    const ir::Node& node = *pending[i];
    out << "  %" << i << " = " << ir::op_name(node.op) << "(";
    for (std::size_t k = 0; k < node.inputs.size(); ++k) {
      ir::Node* input = node.inputs[k];
      out << (k ? ", " : "");
      if (input->is_pending()) {
        out << "%" << input->trace_index;
      } else {
        out << "input" << input->shape.to_string();
      }
    }
    out << ") " << dtype_name(node.dtype) << node.shape.to_string();
    if (node.op == ir::Op::Scalar) out << " = " << node.scalar->to_double();
    out << (live[i] ? "  [held]" : "") << "\n";
  }
  return out.str();
}

}  // namespace lazy::ir
