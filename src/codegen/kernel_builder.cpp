#include "codegen/kernel_builder.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>

#include <absl/strings/str_replace.h>

#include "codegen/generated_names.h"
#include "codegen/kernel_name.h"
#include "codegen/op_expressions.h"
#include "codegen/text.h"
#include "ir/dtype_codec.h"
#include "ir/integer_math.h"
#include "ir/pointwise_dtypes.h"

namespace lazy::codegen {

namespace {

std::string basename(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

}  // namespace

std::int64_t grid_blocks(std::int64_t units, std::int64_t per_block) {
  return std::min(std::max<std::int64_t>(ir::ceil_div(units, per_block), 1), kMaxGridBlocks);
}

int transcendentals(const fuse::Region& region, std::span<const ir::NodePtr> pending) {
  int count = 0;
  for (const fuse::Term& term : region.terms) {
    const bool computed =
        term.kind == fuse::Term::Kind::op || term.kind == fuse::Term::Kind::generator;
    if (computed && ir::is_transcendental(pending[term.source]->op)) ++count;
  }
  return count;
}

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

namespace {

// Whether `comment` (from its "//" to the line's end) is one op_and_place wrote:
// "// <op> (<file>:<line>)".
bool is_op_place_comment(std::string_view comment) {
  if (!comment.starts_with("// ") || !comment.ends_with(")")) return false;
  comment.remove_prefix(3);
  const std::size_t op_end = comment.find(" (");
  if (op_end == 0 || op_end == std::string_view::npos) return false;
  for (char c : comment.substr(0, op_end))
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  const std::string_view line = comment.substr(0, comment.size() - 1);
  const std::size_t colon = line.rfind(':');
  if (colon == std::string_view::npos || colon <= op_end + 2 || colon + 1 == line.size())
    return false;
  for (char c : line.substr(colon + 1))
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

std::vector<std::string_view> pieces_without_op_places(std::string_view source) {
  std::vector<std::string_view> pieces;
  std::size_t start = 0;  // of the piece not yet taken
  for (std::size_t at = source.find("// "); at != std::string_view::npos;
       at = source.find("// ", at)) {
    const std::size_t line_end = std::min(source.find('\n', at), source.size());
    if (is_op_place_comment(source.substr(at, line_end - at))) {
      std::size_t cut = at;
      while (cut > start && source[cut - 1] == ' ') --cut;
      pieces.push_back(source.substr(start, cut - start));
      start = line_end;
    }
    at = line_end;
  }
  pieces.push_back(source.substr(start));
  return pieces;
}

std::string without_op_places(std::string_view source) {
  std::string out;
  out.reserve(source.size());
  for (std::string_view piece : pieces_without_op_places(source)) out.append(piece);
  return out;
}

std::uint64_t scalar_argument(const ir::Node& scalar) {
  // Every replay encodes each number again: an f32 one in f32's range converts as
  // round_to_dtype would, without its calls.
  const Scalar& value = *scalar.scalar;
  if (scalar.dtype == DType::f32 && value.kind() == Scalar::Kind::floating &&
      std::fabs(value.to_double()) <= double(std::numeric_limits<float>::max())) {
    return std::bit_cast<std::uint32_t>(static_cast<float>(value.to_double()));
  }
  // Rounded to the dtype already, so exact in f32: no second rounding is needed.
  if (is_floating(scalar.dtype))
    return std::bit_cast<std::uint32_t>(
        static_cast<float>(ir::scalar_as_float(value, scalar.dtype)));
  return std::uint64_t(ir::scalar_as_int(value, scalar.dtype));
}

KernelBuilder::KernelBuilder(const fuse::Region& region, std::span<const ir::NodePtr> pending,
                             std::span<const ir::NodePtr> externals, const CodegenOptions& options)
    : region_(region), pending_(pending), externals_(externals), options_(options) {}

DType KernelBuilder::term_dtype(std::size_t t) const {
  return codegen::term_dtype(region_.terms[t], pending_, externals_);
}

DType KernelBuilder::output_dtype(std::size_t r) const {
  const fuse::Root& root = region_.roots[r];
  return root.external_copy ? externals_[root.node]->dtype : pending_[root.node]->dtype;
}

void KernelBuilder::constant(std::string_view name, std::uint64_t value, std::string_view type) {
  if (!constants_compiled_) {
    add_arg({ArgSource::Kind::constant, value}, type, " ", name);
    return;
  }
  if (!args_text_wanted_) return;
  const auto as_signed = std::int64_t(value);
  // -2^63 has no literal of its own.
  const std::string literal = type != "long long" ? cat(value, "ULL")
                              : as_signed == std::numeric_limits<std::int64_t>::min()
                                  ? "(-9223372036854775807LL - 1)"
                                  : cat(as_signed, "LL");
  append(args_text_, "  static constexpr ", type, " ", name, " = ", literal, ";\n");
}

void KernelBuilder::scratch(std::string_view name, std::uint64_t bytes) {
  add_arg({ArgSource::Kind::scratch, bytes}, "unsigned long long* ", name);
}

void KernelBuilder::launch_index(std::string_view name) {
  add_arg({ArgSource::Kind::launch_index, 0}, "long long ", name);
}

void KernelBuilder::scalar_argument(std::size_t t) {
  const fuse::Term& term = region_.terms[t];
  // Floating scalars travel as f32 bits: converting a double on every thread would cost a slow
  // conversion per scalar (a tenth of a transcendental chain's time).
  const bool as_float = is_floating(term_dtype(t));
  add_arg({as_float ? ArgSource::Kind::scalar_float : ArgSource::Kind::scalar_int, term.source},
          as_float ? "unsigned long long " : "long long ", scalar_field(t));
}

void KernelBuilder::input_pointer(std::size_t t) {
  const std::string type = cat("const ", storage_type(term_dtype(t)), "* ");
  if (!pointers_shared_) {
    add_arg(load_pointer(region_.terms[t]), type, input_field(t));
    return;
  }
  // The first load of a tensor declares every load's name of it, as members of one union.
  const ArgSource source = load_pointer(region_.terms[t]);
  std::string names;
  for (std::size_t u = 0; u < region_.terms.size(); ++u) {
    const fuse::Term& term = region_.terms[u];
    if (term.kind != fuse::Term::Kind::load || term_dtype(u) != term_dtype(t)) continue;
    const ArgSource other = load_pointer(term);
    if (other.kind != source.kind || other.value != source.value) continue;
    if (u < t) return;  // declared with u
    append(names, type, input_field(u), "; ");
  }
  add_arg(source, "union { ", names, "}");
}

void KernelBuilder::output_pointer(std::size_t r) {
  const fuse::Root& root = region_.roots[r];
  const ArgSource::Kind kind =
      root.external_copy ? ArgSource::Kind::copy_pointer : ArgSource::Kind::root_pointer;
  add_arg({kind, root.node}, storage_type(output_dtype(r)), "* ", output_field(r));
}

void KernelBuilder::gather_arguments(std::size_t t) {
  const fuse::Term::Gather& gather = *region_.terms[t].gather;
  constant(cat("gs", t), std::uint64_t(gather.stride));
  constant(cat("gb", t), std::uint64_t(gather.bound));
  index_site(cat("site", t), gather.node);
}

void KernelBuilder::index_site(std::string_view name, std::uint32_t node) {
  add_arg({ArgSource::Kind::index_site, node}, "unsigned long long ", name);
  if (reports_faults_) return;
  reports_faults_ = true;
  add_arg({ArgSource::Kind::index_faults, 0}, "unsigned int* faults");
}

std::string KernelBuilder::gather_statement(std::size_t t, const std::string& base) const {
  const fuse::Term& term = region_.terms[t];
  const auto index = std::size_t(term.gather->index);
  return load_statement(t, cat("lz_gather_element(", input_name(t), ", ", base, ", (long long)",
                               value_name(region_.terms[index], index), ", a.gs", t, ", a.gb", t,
                               ", a.faults, a.site", t, ")"));
}

std::string KernelBuilder::gather_vector(std::size_t t, int width, const std::string& base) const {
  const auto index = std::size_t(region_.terms[t].gather->index);
  return cat("lz_gather_vec<", width, ">(", input_name(t), ", ", base, ", (long long)",
             value_name(region_.terms[index], index), ", a.gs", t, ", a.gb", t,
             ", a.faults, a.site", t, ")");
}

std::string KernelBuilder::value_statement(std::size_t t, const std::string& value) const {
  return cat("const ", value_type(term_dtype(t)), " ", value_name(region_.terms[t], t), " = ",
             value, ";\n");
}

std::string KernelBuilder::scalar_statement(std::size_t t) const {
  const DType dtype = term_dtype(t);
  return value_statement(
      t, is_floating(dtype) ? convert(DType::f32, dtype,
                                      cat("__uint_as_float((unsigned int)a.", scalar_field(t), ")"))
                            : cat("(", value_type(dtype), ")a.", scalar_field(t)));
}

std::string KernelBuilder::load_statement(std::size_t t, const std::string& raw) const {
  return value_statement(t, load_conversion(term_dtype(t), raw));
}

std::string KernelBuilder::operand_value(std::size_t t, int i) const {
  const std::size_t operand = std::size_t(region_.terms[t].operands[i]);
  return operand_as_read(*pending_[region_.terms[t].source], i, term_dtype(operand),
                         value_name(region_.terms[operand], operand));
}

std::string KernelBuilder::op_statement(std::size_t t, const std::string& value) const {
  const ir::Node& node = *pending_[region_.terms[t].source];
  return cat("const ", value_type(node.dtype), " ", value_name(region_.terms[t], t), " = ", value,
             ";  // ", op_and_place(node), "\n");
}

std::string KernelBuilder::concat_statement(std::size_t t, int part) const {
  const auto value = std::size_t(region_.terms[t].concat->parts.at(std::size_t(part)));
  return op_statement(t, value_name(region_.terms[value], value));
}

std::string KernelBuilder::concat_declaration(std::size_t t) const {
  const ir::Node& node = *pending_[region_.terms[t].source];
  return cat(value_type(node.dtype), " ", value_name(region_.terms[t], t), ";  // ",
             op_and_place(node), "\n");
}

std::string KernelBuilder::concat_assignment(std::size_t t, int part) const {
  const auto value = std::size_t(region_.terms[t].concat->parts.at(std::size_t(part)));
  return cat(value_name(region_.terms[t], t), " = ", value_name(region_.terms[value], value),
             ";\n");
}

std::string KernelBuilder::concat_loaded_assignment(std::size_t t, const std::string& raw) const {
  return cat(value_name(region_.terms[t], t), " = ", load_conversion(term_dtype(t), raw), ";\n");
}

std::string KernelBuilder::computed_statement(std::size_t t, const std::string& index) const {
  const fuse::Term& term = region_.terms[t];
  std::vector<std::string> operands;
  for (int i = 0; i < term.n_operands; ++i) operands.push_back(operand_value(t, i));
  // A generator's last operand is the element's linear index.
  if (term.kind == fuse::Term::Kind::generator) operands.push_back(cat("(long long)(", index, ")"));
  return op_statement(t, op_expression(*pending_[term.source], operands, options_.fast_math));
}

std::string KernelBuilder::reciprocal_statement(std::size_t t) const {
  return cat("const double ", reciprocal_name(t), " = 1.0 / (double)", operand_value(t, 1), ";\n");
}

std::string KernelBuilder::division_statement(std::size_t t) const {
  return op_statement(t, cat("lz_div_by(", operand_value(t, 0), ", ", operand_value(t, 1), ", ",
                             reciprocal_name(t), ")"));
}

std::string KernelBuilder::scalar_stores() const {
  std::string out;
  for (std::size_t r = 0; r < region_.roots.size(); ++r) {
    const auto t = std::size_t(region_.root_terms[r]);
    append(out, "    ", output_name(r), "[i] = ", stored_value(t, term_dtype(t)), ";\n");
  }
  return out;
}

std::string KernelBuilder::stored_value(std::size_t t, DType stored) const {
  // A cast to f16 or bf16 rounds as storing to it does: storing the cast's floating operand
  // rounds once. (Casts to bool or integers convert unlike a store's C++ conversion.)
  const fuse::Term& term = region_.terms[t];
  const bool narrow = stored == DType::f16 || stored == DType::bf16;
  if (narrow && term.kind == fuse::Term::Kind::op && pending_[term.source]->op == ir::Op::Cast &&
      term_dtype(t) == stored && value_type(term_dtype(std::size_t(term.operands[0]))) == "float")
    return store_conversion(stored, operand_value(t, 0));
  return store_conversion(stored, value_name(term, t));
}

GeneratedKernel KernelBuilder::finish(const std::string& body, std::string_view prefix,
                                      std::vector<std::string> leading) {
  GeneratedKernel kernel;
  kernel.name = kernel_name(prefix, std::move(leading), region_, pending_, output_dtype(0), body);
  kernel.source = absl::StrReplaceAll(body, {{"$NAME", kernel.name}});
  kernel.args = std::move(args_);
  if (options_.fast_math) kernel.nvrtc_options.push_back("--use_fast_math");
  return kernel;
}

GeneratedKernel KernelBuilder::finish_with_text(KernelText text,
                                                absl::FunctionRef<void()> declare_args) {
  args_text_wanted_ = false;
  declare_args();
  GeneratedKernel kernel;
  kernel.name = std::move(text.name);
  kernel.source = std::move(text.source);
  kernel.nvrtc_options = std::move(text.nvrtc_options);
  kernel.source_hash = text.source_hash;
  kernel.args = std::move(args_);
  return kernel;
}

}  // namespace lazy::codegen
