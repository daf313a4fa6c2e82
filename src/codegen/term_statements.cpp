#include "codegen/term_statements.h"

#include <bit>
#include <cctype>
#include <cstring>
#include <vector>

#include "codegen/op_expressions.h"
#include "codegen/text.h"
#include "ir/dtype_codec.h"
#include "ir/pointwise_dtypes.h"

namespace lazy::codegen {

namespace {

std::string basename(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

}  // namespace

std::string lower(std::string_view name) {
  std::string out(name);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

DType term_dtype(const fuse::Term& term, std::span<const ir::NodePtr> pending,
                 std::span<const ir::NodePtr> externals) {
  if (term.kind == fuse::Term::Kind::load && term.external) return externals[term.source]->dtype;
  return pending[term.source]->dtype;
}

std::string op_and_place(const ir::Node& node) {
  return cat(lower(ir::op_name(node.op)), " (", basename(node.loc.file_name()), ":",
             node.loc.line(), ")");
}

std::string scalar_statement(std::size_t t, DType dtype) {
  // Floating scalars travel as f32 bits: converting a double on every thread would cost a slow
  // conversion per scalar (a tenth of a transcendental chain's time).
  const std::string value =
      is_floating(dtype)
          ? convert(DType::f32, dtype, cat("__uint_as_float((unsigned int)a.s", t, ")"))
          : cat("(", value_type(dtype), ")a.s", t);
  return cat("const ", value_type(dtype), " v", t, " = ", value, ";\n");
}

std::uint64_t scalar_argument(const ir::Node& scalar) {
  if (is_floating(scalar.dtype))
    return std::bit_cast<std::uint32_t>(
        ir::to_f32(ir::scalar_as_float(*scalar.scalar, scalar.dtype)));
  return std::uint64_t(ir::scalar_as_int(*scalar.scalar, scalar.dtype));
}

std::string computed_statement(const fuse::Term& term, std::size_t t, const ir::Node& node,
                               std::span<const DType> operand_dtypes, const std::string& index,
                               bool fast_math) {
  std::vector<std::string> operands;
  for (int i = 0; i < term.n_operands; ++i) {
    operands.push_back(
        convert(operand_dtypes[i], ir::operand_dtype(node, i), cat("v", term.operands[i])));
  }
  if (term.kind == fuse::Term::Kind::generator) operands.push_back(cat("(long long)(", index, ")"));
  const std::string value = op_expression(node, operands, fast_math);
  return cat("const ", value_type(node.dtype), " v", t, " = ", value, ";  // ", op_and_place(node),
             "\n");
}

}  // namespace lazy::codegen
