#include "codegen/kernel_emitter.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <optional>

#include <absl/strings/str_replace.h>

#include "codegen/column_reduction.h"
#include "codegen/concat_parts.h"
#include "codegen/element_access.h"
#include "codegen/generated_names.h"
#include "codegen/iteration_space.h"
#include "codegen/kernel_builder.h"
#include "codegen/kernel_sources.h"
#include "codegen/op_expressions.h"
#include "codegen/reduction_folds.h"
#include "codegen/row_kernel_emitter.h"
#include "codegen/scan_kernel.h"
#include "codegen/scatter_kernel.h"
#include "codegen/select_kernel.h"
#include "codegen/skinny_matmul.h"
#include "codegen/templates.h"
#include "codegen/text.h"
#include "codegen/top_k_kernel.h"
#include "codegen/uniform_terms.h"
#include "codegen/vector_gathers.h"
#include "codegen/visit_order.h"
#include "ir/integer_math.h"

namespace lazy::codegen {

namespace {

using fuse::Term;
using ir::Op;

class KernelEmitter {
 public:
  KernelEmitter(const fuse::Region& region, std::span<const ir::NodePtr> pending,
                std::span<const ir::NodePtr> externals, const CodegenOptions& options)
      : region_(region), pending_(pending), builder_(region, pending, externals, options) {
    plan_accesses();
    // Its positions' arithmetic is most of such a kernel's work; folded, a period's modulo
    // becomes a mask and a part's offset a load's immediate.
    sizes_compiled_ = select_ && !options.sizes_at_run_time;
    if (sizes_compiled_) builder_.compile_constants();
    if (select_) builder_.share_input_pointers();
    UniformTerms terms = plan_uniform_terms(region_, space_, access_of_term_, concat_, select_);
    uniform_ = std::move(terms.uniform);
    computed_ = std::move(terms.computed);
    vector_gathers_ = plan_vector_gathers(region_, space_, access_of_term_, uniform_);
    if (select_) {
      select_kernel_.emplace(
          region_, space_, access_of_term_, read_everywhere_, uniform_, builder_, sizes_compiled_,
          [this](std::size_t t, bool vector) { return term_statement(t, vector); });
    }
  }

  GeneratedKernel run() {
    declare_args();
    std::vector<std::string> leading;
    if (region_.reduction || row_op_)
      leading.push_back(lower(ir::op_name(pending_[region_.roots[0].node]->op)));
    if (column_) leading.push_back("column");
    GeneratedKernel kernel = builder_.finish(fill_skeleton(), "lz_", std::move(leading));
    set_launch(kernel);
    return kernel;
  }

  // The kernel whose text is known: only its arguments and launch are worked out.
  GeneratedKernel run_with_text(KernelText text) {
    GeneratedKernel kernel = builder_.finish_with_text(std::move(text), [&] { declare_args(); });
    set_launch(kernel);
    return kernel;
  }

  // What the text is written from (kernel_sources.h); none for the kinds it does not cover.
  std::optional<ir::Hash128> text_key(std::span<const ir::NodePtr> externals,
                                      const CodegenOptions& options) const {
    const bool covered = !row_op_ && !concat_ && !select_ && !reuse_order_ &&
                         std::none_of(region_.terms.begin(), region_.terms.end(),
                                      [](const Term& term) { return term.gather.has_value(); }) &&
                         std::none_of(region_.roots.begin(), region_.roots.end(),
                                      [](const fuse::Root& root) { return root.external_copy; });
    if (!covered) return std::nullopt;
    return pointwise_text_key(region_, pending_, externals, space_, access_of_term_,
                              column_.has_value(), options);
  }

 private:
  void set_launch(GeneratedKernel& kernel) const {
    kernel.numel = region_.shape.numel();
    kernel.written = region_.reduction ? region_.reduction->results
                     : region_.top_k   ? region_.top_k->rows * region_.top_k->k
                                       : space_.numel;
    kernel.vector_width = space_.vector_width;
    // Threads wanted: a group each; a block per result or row scanned; a column kernel's lanes
    // per group.
    std::int64_t threads = column_
                               ? ir::ceil_div(column_->groups, column_->lanes) * kThreadsPerBlock
                           : region_.reduction ? region_.reduction->results * kThreadsPerBlock
                           : row_op_           ? row_op_->rows * kThreadsPerBlock
                                               : space_.numel / space_.vector_width;
    kernel.blocks =
        region_.top_k ? top_k_blocks(*region_.top_k) : grid_blocks(threads, kThreadsPerBlock);
    if (region_.top_k) kernel.launches = top_k_launches(*region_.top_k);
    kernel.threads = kThreadsPerBlock;
  }

  DType root_dtype(std::size_t r) const { return builder_.term_dtype(region_.root_terms[r]); }
  std::string root_value(std::size_t r) const {
    return value_name(region_.terms[region_.root_terms[r]], region_.root_terms[r]);
  }

  void plan_accesses() {
    std::vector<Access> accesses;
    access_of_term_.assign(region_.terms.size(), -1);
    // Several concatenations each branch where they are read: only loads every element reads
    // hold the groups to aligned vectors (select_kernel.h).
    select_ = several_concatenations(region_);
    if (select_) read_everywhere_ = SelectKernel::loads_read_everywhere(region_);
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      const Term& term = region_.terms[t];
      if (term.kind == Term::Kind::load || term.kind == Term::Kind::generator || term.concat) {
        if (term.concat && !select_) concat_ = t;
        access_of_term_[t] = int(accesses.size());
        const bool vectors = term.kind == Term::Kind::load && (!select_ || read_everywhere_[t]);
        accesses.push_back({term.layout, vectors ? itemsize(builder_.term_dtype(t)) : 0,
                            term.kind == Term::Kind::load});
      }
    }
    // A reduction (a top-k) writes one element per result, not one per element of its iteration
    // space.
    if (!region_.reduction && !region_.top_k) {
      for (std::size_t r = 0; r < region_.roots.size(); ++r)
        accesses.push_back({ir::Layout::contiguous(region_.shape), itemsize(output_dtype(r))});
    }
    if (region_.reduction) {
      const auto mask = std::uint64_t(pending_[region_.reduction->node]->attrs[0]);
      column_ =
          plan_column_reduction(region_.shape, std::popcount(mask), accesses, kThreadsPerBlock);
      if (column_) {
        space_ = column_->kept;
        return;
      }
    }
    const int math = transcendentals(region_, pending_);
    // Threads stride over the folded elements, or a scan's tile, an element at a time.
    const bool one_at_a_time = region_.reduction || row_op_;
    const bool spread_small = forced_bytes_per_thread() == 0;  // forced widths hold, for the fuzzer
    space_ = plan_iteration_space(region_.shape, accesses, bytes_per_thread(math), spread_small,
                                  one_at_a_time ? 1 : most_elements_per_thread(math));
    // A group picks one part of the concatenation: one element at a time unless its elements all
    // lie in one part. (A byte per thread allows no vectors.)
    if (concat_ && space_.vector_width > 1 &&
        !groups_stay_in_one_part(access(int(*concat_)), *region_.terms[*concat_].concat,
                                 space_.vector_width))
      space_ = plan_iteration_space(region_.shape, accesses, 1);
    // A select kernel's groups keep their order.
    if (!region_.reduction && !row_op_ && !select_)
      reuse_order_ = plan_reuse_order(space_, accesses);
  }

  // What output r stores: the root's dtype (for a reduction, the result's, not the folded one's).
  DType output_dtype(std::size_t r) const { return builder_.output_dtype(r); }

  const AccessPlan& access(int t) const { return space_.accesses[access_of_term_[t]]; }

  void constant(const std::string& name, std::uint64_t value, std::string_view type = "long long") {
    builder_.constant(name, value, type);
  }

  void declare_args() {
    if (column_) {
      constant("groups", std::uint64_t(column_->groups));
      constant("extent", std::uint64_t(column_->extent));
      constant("lanes", std::uint64_t(column_->lanes));
    } else {
      constant("n", std::uint64_t(space_.numel));
    }
    if (reuse_order_) declare_reuse_order_args(*reuse_order_, builder_);
    if (region_.reduction && !column_) {
      constant("rows", std::uint64_t(region_.reduction->results));
      constant("extent", std::uint64_t(region_.reduction->extent));
    }
    if (row_op_) {
      constant("rows", std::uint64_t(row_op_->rows));
      constant("extent", std::uint64_t(row_op_->extent));
    }
    if (region_.top_k) declare_top_k_args(*region_.top_k, builder_);
    declare_multi_index_args(space_, builder_);
    const int rank = int(space_.dims.size());
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      const Term& term = region_.terms[t];
      if (term.kind == Term::Kind::scalar) {
        builder_.scalar_argument(t);
        continue;
      }
      if (access_of_term_[t] < 0) continue;
      if (term.kind == Term::Kind::load) builder_.input_pointer(t);
      if (term.concat)
        declare_concat_args(t, *term.concat, space_.index_32bit, sizes_compiled_, builder_);
      if (term.gather) builder_.gather_arguments(t);
      const AccessPlan& plan = access(int(t));
      constant(cat("off", t), std::uint64_t(plan.offset));
      if (plan.mode == AccessMode::strided) {
        for (int d = 0; d < rank; ++d)
          constant(cat("st", t, "_", d), std::uint64_t(plan.strides[d]));
        if (column_)
          constant(cat("fs", t), std::uint64_t(column_->folded_strides[access_of_term_[t]]));
      }
    }
    for (std::size_t r = 0; r < region_.roots.size(); ++r) builder_.output_pointer(r);
  }

  // The statement computing term t's value for element e of the current group.
  std::string term_statement(std::size_t t, bool vector) const {
    switch (region_.terms[t].kind) {
      case Term::Kind::scalar:
        return builder_.scalar_statement(t);
      case Term::Kind::load:
        if (vector && vector_gathers_.gathers[t])
          return builder_.load_statement(t, cat(vector_load_name(t), ".v[e]"));
        if (region_.terms[t].gather)
          return builder_.gather_statement(t, gather_base(access(int(t)), t, vector));
        return builder_.load_statement(t, raw_element(access(int(t)), t, vector));
      case Term::Kind::generator:
        return builder_.computed_statement(t, generator_index(access(int(t)), t, vector));
      case Term::Kind::op:
      case Term::Kind::reduced:  // only in row regions (row_kernel_emitter.h)
        break;
    }
    // Only generators have an access (and an index): an op term has none to look up.
    return builder_.computed_statement(t, std::string());
  }

  std::string group_offsets(std::string_view offset_name = "o",
                            std::string_view indent = "    ") const {
    return codegen::group_offsets(space_, access_of_term_, offset_name, indent);
  }

  // The statements of the terms an element of `part` of the concatenation needs (-1: there is
  // none), but those computed once before the loop.
  std::string element_statements(bool vector, std::string_view indent, int part = -1) const {
    if (select_kernel_) return select_kernel_->element_statements();
    const std::vector<bool>& computed = computed_[std::max(part, 0)];
    std::string out;
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      if (uniform_[t] || !computed[t] || (vector && vector_gathers_.hoisted[t])) continue;
      append(
          out, indent,
          region_.terms[t].concat ? builder_.concat_statement(t, part) : term_statement(t, vector));
    }
    return out;
  }

  // `body` of each part of the concatenation behind tests of the part (concat_parts.h), or
  // `body(-1)` where there is none.
  std::string in_parts(const std::function<std::string(int)>& body) const {
    if (!concat_) return body(-1);
    const std::size_t t = *concat_;
    return parts_by_position(t, generator_index(access(int(t)), t, false),
                             region_.terms[t].concat->parts.size(), space_.index_32bit,
                             sizes_compiled_, body);
  }

  std::string group_body() const {
    return group_offsets() + in_parts([this](int part) { return group_part(part); });
  }

  // A group's loads, values and stores where its elements lie in `part` of the concatenation.
  std::string group_part(int part) const {
    const int width = space_.vector_width;
    const std::vector<bool>& computed = computed_[std::max(part, 0)];
    std::string out;
    if (width == 1) {
      append(out, element_statements(false, "    ", part), builder_.scalar_stores());
      return out;
    }
    if (select_kernel_)
      return select_kernel_->group_loads() + vector_stores(select_kernel_->group_element());
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      if (computed[t] && vector_gathers_.hoisted[t]) append(out, "    ", term_statement(t, false));
      if (!computed[t] || region_.terms[t].kind != Term::Kind::load) continue;
      if (vector_gathers_.gathers[t]) {
        append(out, "    const auto ", vector_load_name(t), " = ",
               builder_.gather_vector(t, width, gather_base(access(int(t)), t, false)), ";\n");
      }
      if (!region_.terms[t].gather) append(out, vector_load(access(int(t)), t, width, "    "));
    }
    return out + vector_stores(element_statements(true, "      ", part));
  }

  // The group's outputs from `element`, the statements of its element e, stored as vectors.
  std::string vector_stores(const std::string& element) const {
    const int width = space_.vector_width;
    std::string out;
    for (std::size_t r = 0; r < region_.roots.size(); ++r) {
      append(out, "    lz_vec<", width, ", ", storage_type(root_dtype(r)), "> ", stored_name(r),
             ";\n");
    }
    append(out, "#pragma unroll\n    for (int e = 0; e < ", width, "; ++e) {\n", element);
    for (std::size_t r = 0; r < region_.roots.size(); ++r) {
      append(out, "      ", stored_name(r),
             ".v[e] = ", builder_.stored_value(region_.root_terms[r], root_dtype(r)), ";\n");
    }
    append(out, "    }\n");
    for (std::size_t r = 0; r < region_.roots.size(); ++r) {
      append(out, "    lz_store_vec<", width, ">(", output_name(r), " + i, ", stored_name(r),
             ");\n");
    }
    return out;
  }

  // With vectors and no strided access, the last n % width elements, one per thread. (With a
  // strided access, vectors need the inner dim to be a multiple of the width: no tail.)
  std::string tail() const {
    const int width = space_.vector_width;
    if (width == 1 || space_.needs_multi_index()) return {};
    std::string out =
        cat("  for (Index i = n / ", width, " * ", width, " + first; i < n; i += stride) {\n");
    append(out, in_parts([this](int part) {
             return element_statements(false, "    ", part) + builder_.scalar_stores();
           }),
           "  }\n");
    return out;
  }

  std::string uniform_statements() const {
    std::string out;
    for (std::size_t t = 0; t < region_.terms.size(); ++t)
      if (uniform_[t]) append(out, "  ", term_statement(t, false));
    return out;
  }

  // What a reduction region's kernel folds (reduction_folds.h): the root's element as the
  // accumulator's type, and what it stores from accumulator `acc` and position `at`.
  std::string fold_value(const Fold& fold) const {
    return fold_input(*pending_[region_.reduction->node], fold, root_dtype(0), root_value(0));
  }
  std::string fold_store(const Fold& fold, const std::string& acc, const std::string& at) const {
    const ir::Node& node = *pending_[region_.reduction->node];
    return store_conversion(node.dtype, fold_result(node, fold, acc, at));
  }

  // A skeleton's text with its own $-names and those every skeleton has replaced.
  std::string fill(std::string_view skeleton, Substitutions substitutions) const {
    substitutions.insert(
        substitutions.end(),
        {{"$ARGS", builder_.args_text()},
         {"$THREADS", std::to_string(kThreadsPerBlock)},
         {"$INDEX_TYPE", space_.index_32bit ? "unsigned int" : "unsigned long long"},
         {"$OFFSET_TYPE", space_.index_32bit ? "int" : "long long"},
         {"$UNIFORM_LOADS", uniform_statements()}});
    return absl::StrReplaceAll(std::string(template_text(skeleton)), substitutions);
  }

  // One block per result, its threads striding over the folded elements.
  std::string fill_reduction_skeleton() const {
    const Op op = pending_[region_.reduction->node]->op;
    const Fold fold = fold_of(*pending_[region_.reduction->node]);
    std::string header =
        cat("// lazyfuse: ", lower(ir::op_name(op)), " over ", region_.shape.rank(),
            " dim(s) with the folded ones last, merged to ", space_.dims.size(), "\n");
    std::string element = group_offsets() + element_statements(false, "      ");
    return header + fill("reduction_skeleton.cuh", {{"$ELEMENT", element},
                                                    {"$ACC", fold.acc_type},
                                                    {"$INIT", fold.identity},
                                                    {"$FOLD", fold.function},
                                                    {"$VALUE", fold_value(fold)},
                                                    {"$STORE", fold_store(fold, "acc", "at")}});
  }

  // The folded element r of the current group: offsets, loads, and the fold of each result.
  std::string column_element(const Fold& fold) const {
    const int width = space_.vector_width;
    const std::string indent = "        ";
    std::string out;
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      if (access_of_term_[t] < 0 || access(int(t)).mode != AccessMode::strided) continue;
      append(out, indent, "const Offset o", t, " = b", t, " + (Offset)r * (Offset)a.fs", t, ";\n");
    }
    if (width == 1) {
      append(out, element_statements(false, indent));
      append(out, indent, fold.function, "(acc[0], at[0], ", fold_value(fold),
             ", (long long)r);\n");
      return out;
    }
    // Loads read the group's results at kept stride 1 (one vector) or 0 (one element).
    for (std::size_t t = 0; t < region_.terms.size(); ++t)
      if (region_.terms[t].kind == Term::Kind::load)
        append(out, vector_load(access(int(t)), t, width, indent));
    append(out, "#pragma unroll\n", indent, "for (int e = 0; e < ", width, "; ++e) {\n");
    append(out, element_statements(true, indent + "  "));
    append(out, indent, "  ", fold.function, "(acc[e], at[e], ", fold_value(fold),
           ", (long long)r);\n");
    append(out, indent, "}\n");
    return out;
  }

  // Threads take neighbouring results and fold along the columns (column_reduction.h).
  std::string fill_column_skeleton() const {
    const Op op = pending_[region_.reduction->node]->op;
    const Fold fold = fold_of(*pending_[region_.reduction->node]);
    const auto mask = std::uint64_t(pending_[region_.reduction->node]->attrs[0]);
    std::string header = cat("// lazyfuse: ", lower(ir::op_name(op)),
                             " over columns: ", region_.shape.rank() - std::popcount(mask),
                             " kept dim(s) merged to ", space_.dims.size(), ", ",
                             space_.vector_width, " result(s) per thread\n");
    // The skeleton puts each on lines of its own.
    auto lines = [](std::string text) {
      if (!text.empty() && text.back() == '\n') text.pop_back();
      return text;
    };
    return header + fill("column_reduction_skeleton.cuh",
                         {{"$KEPT_OFFSETS", lines(group_offsets("b", "      "))},
                          {"$ELEMENT", lines(column_element(fold))},
                          {"$V", std::to_string(space_.vector_width)},
                          {"$ACC", fold.acc_type},
                          {"$INIT", fold.identity},
                          {"$FOLD", fold.function},
                          {"$STORE", fold_store(fold, "acc[e]", "at[e]")}});
  }

  std::string fill_skeleton() const {
    if (column_) return fill_column_skeleton();
    if (region_.reduction) return fill_reduction_skeleton();
    if (row_op_) {
      const auto parts = region_.scan ? scan_substitutions : top_k_substitutions;
      return cat("// lazyfuse: ", lower(ir::op_name(pending_[region_.roots[0].node]->op)),
                 " over the last of ", region_.shape.rank(), " dim(s), merged to ",
                 space_.dims.size(), "\n") +
             fill(region_.scan ? "scan_skeleton.cuh" : top_k_skeleton(*region_.top_k),
                  parts(region_, pending_,
                        group_offsets("o", "        ") + element_statements(false, "        "),
                        root_dtype(0), root_value(0)));
    }
    // Nothing here may depend on sizes or on the rank before merging: one source serves every
    // shape that walks the same way ([256, 4096] random draws and [2^20] ones share a kernel).
    // Only a kernel of several concatenations compiles its sizes in (sizes_compiled_).
    std::string header =
        cat("// lazyfuse: ", region_.roots.size(), " output(s) over ", space_.dims.size(),
            " merged dim(s), ", space_.vector_width, " element(s) per thread step\n");
    // The element a group starts at: its visit position, reordered (visit_order.h) or not.
    const int width = space_.vector_width;
    const std::string start = cat("group * ", width);
    const std::string element = reuse_order_ ? reordered_element(start) : start;
    return header + fill("pointwise_skeleton.cuh", {{"$GROUP_BODY", group_body()},
                                                    {"$GROUP_START", element},
                                                    {"$GROUPS", cat("n / ", width)},
                                                    {"$TAIL", tail()},
                                                    {"$V", std::to_string(width)}});
  }

  const fuse::Region& region_;
  std::span<const ir::NodePtr> pending_;
  KernelBuilder builder_;
  IterationSpace space_;
  std::optional<ColumnReduction> column_;  // set for a reduction walked as columns
  // A scan's or top-k's rows (the last axis of the iteration space), which blocks take whole.
  std::optional<fuse::ScanInfo> row_op_ =
      region_.scan    ? region_.scan
      : region_.top_k ? std::optional(fuse::ScanInfo{region_.top_k->rows, region_.top_k->extent})
                      : std::nullopt;
  std::vector<int> access_of_term_;
  std::vector<bool> uniform_;
  VectorGathers vector_gathers_;
  std::optional<ReuseOrder> reuse_order_;  // groups visit a broadcast dim late (visit_order.h)
  std::optional<std::size_t> concat_;      // the term of the region's concatenation, if it has one
  bool select_ = false;                    // it has several (select_statements)
  std::vector<bool> read_everywhere_;      // where select_: loads every element reads
  std::optional<SelectKernel> select_kernel_;  // where select_: how it reads its elements
  bool sizes_compiled_ = false;                // its sizes are compile-time constants
  // By part of the concatenation (one entry where there is none): the terms its elements need.
  std::vector<std::vector<bool>> computed_;
};

}  // namespace

GeneratedKernel generate_kernel(const fuse::Region& region, std::span<const ir::NodePtr> pending,
                                std::span<const ir::NodePtr> externals,
                                const CodegenOptions& options) {
  if (region.matmul) return generate_skinny_matmul(region, pending, externals, options);
  if (region.scatter) return generate_scatter_kernel(region, pending, externals);
  if (region.row) return generate_row_kernel(region, pending, externals, options);
  KernelEmitter emitter(region, pending, externals, options);
  const std::optional<ir::Hash128> key = emitter.text_key(externals, options);
  // A kernel with a key copies no external, so its first root is a graph node.
  return kernel_from_text_cache(
      key, [&](KernelText text) { return emitter.run_with_text(std::move(text)); },
      [&] { return emitter.run(); },
      [&] { return KernelEmitter(region, pending, externals, options).run(); },
      key ? pending[region.roots.at(0).node].get() : nullptr);
}

}  // namespace lazy::codegen
