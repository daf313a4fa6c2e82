#include "codegen/kernel_emitter.h"

#include <cctype>
#include <cstring>

#include <absl/strings/str_join.h>
#include <absl/strings/str_replace.h>
#include "codegen/text.h"

#include "codegen/iteration_space.h"
#include "codegen/op_expressions.h"
#include "codegen/templates.h"
#include "ir/hash.h"

namespace lazy::codegen {

namespace {

using fuse::Term;
using ir::Op;

// How many op names a kernel's name lists before it just counts the rest.
constexpr int kNamedOpsInKernelName = 8;

std::string lower(std::string_view name) {
  std::string out(name);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string basename(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

class KernelEmitter {
 public:
  KernelEmitter(const fuse::Region& region, std::span<const ir::NodePtr> pending,
                std::span<const ir::NodePtr> externals, const CodegenOptions& options)
      : region_(region), pending_(pending), externals_(externals), options_(options) {}

  GeneratedKernel run() {
    plan_accesses();
    mark_uniform_terms();
    declare_args();
    std::string body = fill_skeleton();
    GeneratedKernel kernel;
    kernel.name = kernel_name(body);
    kernel.source = absl::StrReplaceAll(body, {{"$NAME", kernel.name}});
    kernel.args = std::move(args_);
    kernel.numel = space_.numel;
    kernel.written = region_.reduction ? region_.reduction->results : space_.numel;
    kernel.vector_width = space_.vector_width;
    constexpr std::int64_t kMaxGridBlocks = 2147483647;  // a 1-d grid's limit; kernels loop
    std::int64_t groups = region_.reduction ? region_.reduction->results * kThreadsPerBlock
                                            : space_.numel / space_.vector_width;
    kernel.blocks =
        std::min((std::max<std::int64_t>(groups, 1) + kThreadsPerBlock - 1) / kThreadsPerBlock,
                 kMaxGridBlocks);
    kernel.threads = kThreadsPerBlock;
    if (options_.fast_math) kernel.nvrtc_options.push_back("--use_fast_math");
    return kernel;
  }

 private:
  DType term_dtype(const Term& t) const {
    if (t.kind == Term::Kind::load && t.external) return externals_[t.source]->dtype;
    return pending_[t.source]->dtype;
  }

  void plan_accesses() {
    std::vector<Access> accesses;
    access_of_term_.assign(region_.terms.size(), -1);
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      const Term& term = region_.terms[t];
      if (term.kind == Term::Kind::load || term.kind == Term::Kind::generator) {
        access_of_term_[t] = int(accesses.size());
        int bytes = term.kind == Term::Kind::load ? itemsize(term_dtype(term)) : 0;
        accesses.push_back({term.layout, bytes});
      }
    }
    // A reduction writes one element per result, not one per element of its iteration space.
    if (!region_.reduction) {
      for (std::size_t r = 0; r < region_.roots.size(); ++r)
        accesses.push_back({ir::Layout::contiguous(region_.shape), itemsize(output_dtype(r))});
    }
    space_ = plan_iteration_space(region_.shape, accesses, bytes_per_thread(transcendentals()));
    if (region_.reduction) space_.vector_width = 1;  // threads stride over the folded elements
  }

  // Ops computed on the special-function unit, per element.
  int transcendentals() const {
    int count = 0;
    for (const Term& term : region_.terms) {
      if (term.kind != Term::Kind::op && term.kind != Term::Kind::generator) continue;
      switch (pending_[term.source]->op) {
        case Op::Exp:
        case Op::Exp2:
        case Op::Log:
        case Op::Log2:
        case Op::Log1p:
        case Op::Expm1:
        case Op::Sin:
        case Op::Cos:
        case Op::Tanh:
        case Op::Erf:
        case Op::Sigmoid:
        case Op::Pow:
        case Op::RandNormal:
          ++count;
          break;
        default:
          break;
      }
    }
    return count;
  }

  DType root_dtype(std::size_t r) const { return term_dtype(region_.terms[region_.root_terms[r]]); }
  // What output r stores: the root's dtype (for a reduction, the result's, not the folded one's).
  DType output_dtype(std::size_t r) const {
    const fuse::Root& root = region_.roots[r];
    return root.external_copy ? externals_[root.node]->dtype : pending_[root.node]->dtype;
  }

  const AccessPlan& access(int t) const { return space_.accesses[access_of_term_[t]]; }

  void mark_uniform_terms() {
    uniform_.assign(region_.terms.size(), false);
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      const Term& term = region_.terms[t];
      switch (term.kind) {
        case Term::Kind::scalar:
          uniform_[t] = true;
          break;
        case Term::Kind::load:
        case Term::Kind::generator:
          uniform_[t] = access(int(t)).mode == AccessMode::uniform;
          break;
        case Term::Kind::op:
          uniform_[t] = true;
          for (int i = 0; i < term.n_operands; ++i)
            uniform_[t] = uniform_[t] && uniform_[term.operands[i]];
          break;
      }
      if (term.kind == Term::Kind::generator) {
        for (int i = 0; i < term.n_operands; ++i)
          uniform_[t] = uniform_[t] && uniform_[term.operands[i]];
      }
    }
  }

  void arg(std::string declaration, ArgSource source) {
    append(args_text_, "  ", declaration, ";\n");
    args_.push_back(source);
  }
  void constant(std::string name, std::uint64_t value, std::string_view type = "long long") {
    arg(cat(type, " ", name), {ArgSource::Kind::constant, value});
  }

  void declare_args() {
    constant("n", std::uint64_t(space_.numel));
    if (region_.reduction) {
      constant("rows", std::uint64_t(region_.reduction->results));
      constant("extent", std::uint64_t(region_.reduction->extent));
    }
    const int rank = int(space_.dims.size());
    if (space_.needs_multi_index()) {
      for (int d = 1; d < rank; ++d) {
        constant(cat("size", d), std::uint64_t(space_.dims[d]));
        constant(cat("div", d), fast_div_constants(std::uint32_t(space_.dims[d])),
                 "unsigned long long");
      }
    }
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      const Term& term = region_.terms[t];
      if (term.kind == Term::Kind::scalar) {
        DType dtype = term_dtype(term);
        bool as_float = is_floating(dtype);
        // Floating scalars travel as f32 bits: converting a double on every thread would cost
        // a slow conversion per scalar (a tenth of a transcendental chain's time).
        arg(cat(as_float ? "unsigned long long" : "long long", " s", t),
            {as_float ? ArgSource::Kind::scalar_float : ArgSource::Kind::scalar_int, term.source});
        continue;
      }
      if (term.kind != Term::Kind::load && term.kind != Term::Kind::generator) continue;
      if (term.kind == Term::Kind::load) {
        ArgSource::Kind kind = term.from_copy  ? ArgSource::Kind::copy_pointer
                               : term.external ? ArgSource::Kind::external_pointer
                                               : ArgSource::Kind::root_pointer;
        arg(cat("const ", storage_type(term_dtype(term)), "* p", t), {kind, term.source});
      }
      const AccessPlan& plan = access(int(t));
      constant(cat("off", t), std::uint64_t(plan.offset));
      if (plan.mode == AccessMode::strided) {
        for (int d = 0; d < rank; ++d)
          constant(cat("st", t, "_", d), std::uint64_t(plan.strides[d]));
      }
    }
    for (std::size_t r = 0; r < region_.roots.size(); ++r) {
      const fuse::Root& root = region_.roots[r];
      ArgSource::Kind kind =
          root.external_copy ? ArgSource::Kind::copy_pointer : ArgSource::Kind::root_pointer;
      arg(cat(storage_type(output_dtype(r)), "* out", r), {kind, root.node});
    }
  }

  // Statements computing term t's value v<t> for element e of the current group.
  std::string term_statement(std::size_t t, bool vector) const {
    const Term& term = region_.terms[t];
    DType dtype = term_dtype(term);
    std::string lhs = cat("const ", value_type(dtype), " v", t, " = ");
    switch (term.kind) {
      case Term::Kind::scalar:
        return cat(lhs,
                   is_floating(dtype) ? convert(DType::f32, dtype,
                                                cat("__uint_as_float((unsigned int)a.s", t, ")"))
                                      : cat("(", value_type(dtype), ")a.s", t),
                   ";\n");
      case Term::Kind::load:
        return cat(lhs, load_conversion(dtype, raw_element(t, vector)), ";\n");
      case Term::Kind::generator:
      case Term::Kind::op:
        break;
    }
    const ir::Node& node = *pending_[term.source];
    std::vector<std::string> operands;
    for (int i = 0; i < term.n_operands; ++i) {
      int operand = term.operands[i];
      DType from = term_dtype(region_.terms[operand]);
      DType to = term.kind == Term::Kind::generator ? from : operand_dtype(node, i);
      operands.push_back(convert(from, to, cat("v", operand)));
    }
    std::string value = term.kind == Term::Kind::generator
                            ? generator_expression(node, operands, generator_index(t, vector))
                            : op_expression(node, operands, options_.fast_math);
    return cat(lhs, value, ";  // ", lower(ir::op_name(node.op)), " (",
               basename(node.loc.file_name()), ":", node.loc.line(), ")\n");
  }

  // The stored element a load reads, for element e of the group (or the one element i).
  std::string raw_element(std::size_t t, bool vector) const {
    const AccessPlan& plan = access(int(t));
    switch (plan.mode) {
      case AccessMode::uniform:
        return cat("a.p", t, "[a.off", t, "]");
      case AccessMode::dense:
        return vector ? cat("L", t, ".v[e]") : cat("a.p", t, "[(Offset)a.off", t, " + (Offset)i]");
      case AccessMode::strided:
        if (!vector) return cat("a.p", t, "[o", t, "]");
        if (plan.strides.back() == 1) return cat("L", t, ".v[e]");
        if (plan.strides.back() == 0) return cat("L", t);
        return cat("a.p", t, "[o", t, " + (Offset)e * (Offset)a.st", t, "_",
                   plan.strides.size() - 1, "]");
    }
    return {};
  }

  std::string generator_index(std::size_t t, bool vector) const {
    const AccessPlan& plan = access(int(t));
    std::string e = vector ? " + e" : "";
    switch (plan.mode) {
      case AccessMode::uniform:
        return cat("a.off", t);
      case AccessMode::dense:
        return cat("a.off", t, " + (long long)i", e);
      case AccessMode::strided:
        if (!vector) return cat("(long long)o", t);
        return cat("(long long)o", t, " + (long long)e * a.st", t, "_", plan.strides.size() - 1);
    }
    return {};
  }

  // Index arithmetic at the start of a group: the multi-index of i and each strided offset.
  std::string group_offsets() const {
    if (!space_.needs_multi_index()) return {};
    const int rank = int(space_.dims.size());
    std::string out = "    Index rest = i;\n";
    for (int d = rank - 1; d >= 1; --d) {
      std::string quotient = space_.index_32bit ? cat("lz_fast_div(rest, a.div", d, ")")
                                                : cat("rest / (Index)a.size", d);
      append(out, "    const Index q", d, " = ", quotient, ";\n", "    const Index c", d,
             " = rest - q", d, " * (Index)a.size", d, ";\n", "    rest = q", d, ";\n");
    }
    append(out, "    const Index c0 = rest;\n");
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      if (access_of_term_[t] < 0 || access(int(t)).mode != AccessMode::strided) continue;
      append(out, "    const Offset o", t, " = (Offset)a.off", t);
      for (int d = 0; d < rank; ++d) append(out, " + (Offset)c", d, " * (Offset)a.st", t, "_", d);
      append(out, ";\n");
    }
    return out;
  }

  std::string element_statements(bool vector, std::string_view indent) const {
    std::string out;
    for (std::size_t t = 0; t < region_.terms.size(); ++t)
      if (!uniform_[t]) append(out, indent, term_statement(t, vector));
    return out;
  }

  std::string group_body() const {
    const int width = space_.vector_width;
    std::string out = group_offsets();
    if (width == 1) {
      append(out, element_statements(false, "    "));
      for (std::size_t r = 0; r < region_.roots.size(); ++r) {
        append(out, "    a.out", r,
               "[i] = ", store_conversion(root_dtype(r), cat("v", region_.root_terms[r])), ";\n");
      }
      return out;
    }
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      if (region_.terms[t].kind != Term::Kind::load) continue;
      const AccessPlan& plan = access(int(t));
      if (plan.mode == AccessMode::dense) {
        append(out, "    const auto L", t, " = lz_load_vec<", width, ">(a.p", t, " + (Offset)a.off",
               t, " + (Offset)i);\n");
      } else if (plan.mode == AccessMode::strided && plan.strides.back() == 1) {
        append(out, "    const auto L", t, " = lz_load_vec<", width, ">(a.p", t, " + o", t, ");\n");
      } else if (plan.mode == AccessMode::strided && plan.strides.back() == 0) {
        append(out, "    const auto L", t, " = a.p", t, "[o", t, "];\n");
      }
    }
    for (std::size_t r = 0; r < region_.roots.size(); ++r)
      append(out, "    lz_vec<", width, ", ", storage_type(root_dtype(r)), "> W", r, ";\n");
    append(out, "#pragma unroll\n    for (int e = 0; e < ", width, "; ++e) {\n");
    append(out, element_statements(true, "      "));
    for (std::size_t r = 0; r < region_.roots.size(); ++r) {
      append(out, "      W", r,
             ".v[e] = ", store_conversion(root_dtype(r), cat("v", region_.root_terms[r])), ";\n");
    }
    append(out, "    }\n");
    for (std::size_t r = 0; r < region_.roots.size(); ++r)
      append(out, "    lz_store_vec<", width, ">(a.out", r, " + i, W", r, ");\n");
    return out;
  }

  // With vectors and no strided access, the last n % width elements, one per thread. (With a
  // strided access, vectors need the inner dim to be a multiple of the width: no tail.)
  std::string tail() const {
    const int width = space_.vector_width;
    if (width == 1 || space_.needs_multi_index()) return {};
    std::string out =
        cat("  for (Index i = n / ", width, " * ", width, " + first; i < n; i += stride) {\n");
    append(out, element_statements(false, "    "));
    for (std::size_t r = 0; r < region_.roots.size(); ++r) {
      append(out, "    a.out", r,
             "[i] = ", store_conversion(root_dtype(r), cat("v", region_.root_terms[r])), ";\n");
    }
    append(out, "  }\n");
    return out;
  }

  std::string uniform_statements() const {
    std::string out;
    for (std::size_t t = 0; t < region_.terms.size(); ++t)
      if (uniform_[t]) append(out, "  ", term_statement(t, false));
    return out;
  }

  // The reduction's fold, accumulator and store (reduction regions only).
  std::string fill_reduction_skeleton() const {
    const ir::Node& node = *pending_[region_.reduction->node];
    const Op op = node.op;
    const DType folded = root_dtype(0);
    const bool logical = op == Op::ReduceAny || op == Op::ReduceAll;
    const bool arg = op == Op::ArgMax || op == Op::ArgMin;
    // Accumulators: float, long long, or int (bool and i32; shuffles take no bool).
    DType compute = node.compute_dtype;
    std::string acc_type = logical || compute == DType::bool_ || compute == DType::i32
                               ? "int"
                               : std::string(value_type(compute));
    std::string value = cat("v", region_.root_terms[0]);
    value = logical ? cat("(int)(", convert(folded, DType::bool_, value), ")")
                    : cat("(", acc_type, ")", convert(folded, compute, value));
    std::string init, fold;
    switch (op) {
      case Op::ReduceSum:
        init = "0";
        fold = "lz_fold_sum";
        break;
      case Op::ReduceProd:
        init = "1";
        fold = "lz_fold_prod";
        break;
      case Op::ReduceMax:
        init = acc_type == "float" ? "-__int_as_float(0x7f800000)"
               : acc_type == "int" ? "(-2147483647 - 1)"
                                   : "(-9223372036854775807LL - 1)";
        fold = "lz_fold_max";
        break;
      case Op::ReduceMin:
        init = acc_type == "float" ? "__int_as_float(0x7f800000)"
               : acc_type == "int" ? "2147483647"
                                   : "9223372036854775807LL";
        fold = "lz_fold_min";
        break;
      case Op::ReduceAny:
        init = "0";
        fold = "lz_fold_any";
        break;
      case Op::ReduceAll:
        init = "1";
        fold = "lz_fold_all";
        break;
      case Op::ArgMax:
        init = "0";
        fold = "lz_fold_argmax";
        break;
      case Op::ArgMin:
        init = "0";
        fold = "lz_fold_argmin";
        break;
      default:
        break;
    }
    std::string store =
        arg ? std::string("at")
            : store_conversion(node.dtype, logical ? std::string("(acc != 0)")
                                                   : convert(compute, node.dtype, "acc"));
    std::string header =
        cat("// lazyfuse: ", lower(ir::op_name(op)), " over ", region_.shape.rank(),
            " dim(s) with the folded ones last, merged to ", space_.dims.size(), "\n");
    std::string element = group_offsets() + element_statements(false, "      ");
    return header + absl::StrReplaceAll(std::string(template_text("reduction_skeleton.cuh")),
                                        {{"$ARGS", args_text_},
                                         {"$THREADS", std::to_string(kThreadsPerBlock)},
                                         {"$INDEX_TYPE", space_.index_32bit ? "unsigned int"
                                                                            : "unsigned long long"},
                                         {"$OFFSET_TYPE", space_.index_32bit ? "int" : "long long"},
                                         {"$UNIFORM_LOADS", uniform_statements()},
                                         {"$ELEMENT", element},
                                         {"$ACC", acc_type},
                                         {"$INIT", init},
                                         {"$FOLD", fold},
                                         {"$VALUE", value},
                                         {"$STORE", store}});
  }

  std::string fill_skeleton() const {
    if (region_.reduction) return fill_reduction_skeleton();
    // Nothing here may depend on sizes: one source serves every shape of the same structure.
    std::string header = cat("// lazyfuse: ", region_.roots.size(), " output(s) over ",
                             region_.shape.rank(), " dim(s), merged to ", space_.dims.size(), ", ",
                             space_.vector_width, " element(s) per thread step\n");
    std::string body = absl::StrReplaceAll(
        std::string(template_text("pointwise_skeleton.cuh")),
        {{"$ARGS", args_text_},
         {"$THREADS", std::to_string(kThreadsPerBlock)},
         {"$INDEX_TYPE", space_.index_32bit ? "unsigned int" : "unsigned long long"},
         {"$OFFSET_TYPE", space_.index_32bit ? "int" : "long long"},
         {"$UNIFORM_LOADS", uniform_statements()},
         {"$GROUP_BODY", group_body()},
         {"$TAIL", tail()},
         {"$V", std::to_string(space_.vector_width)}});
    return header + body;
  }

  std::string kernel_name(const std::string& body) const {
    std::vector<std::string> ops;
    int op_count = 0;
    for (const Term& term : region_.terms) {
      if (term.kind != Term::Kind::op && term.kind != Term::Kind::generator) continue;
      if (++op_count <= kNamedOpsInKernelName)
        ops.push_back(lower(ir::op_name(pending_[term.source]->op)));
    }
    if (region_.reduction)
      ops.insert(ops.begin(), lower(ir::op_name(pending_[region_.reduction->node]->op)));
    if (ops.empty()) ops.push_back("copy");
    if (op_count > kNamedOpsInKernelName)
      ops.push_back(cat("and", op_count - kNamedOpsInKernelName));
    ir::Hash128 hash = ir::hash_bytes(body.data(), body.size());
    return cat("lz_", absl::StrJoin(ops, "_"), "_", dtype_name(output_dtype(0)), "_",
               hash.to_hex().substr(0, 8));
  }

  const fuse::Region& region_;
  std::span<const ir::NodePtr> pending_;
  std::span<const ir::NodePtr> externals_;
  CodegenOptions options_;
  IterationSpace space_;
  std::vector<int> access_of_term_;
  std::vector<bool> uniform_;
  std::string args_text_;
  std::vector<ArgSource> args_;
};

}  // namespace

GeneratedKernel generate_kernel(const fuse::Region& region, std::span<const ir::NodePtr> pending,
                                std::span<const ir::NodePtr> externals,
                                const CodegenOptions& options) {
  return KernelEmitter(region, pending, externals, options).run();
}

}  // namespace lazy::codegen
