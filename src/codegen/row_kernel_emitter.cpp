#include "codegen/row_kernel_emitter.h"

#include <absl/strings/str_replace.h>

#include "codegen/generated_names.h"
#include "codegen/kernel_builder.h"
#include "codegen/kernel_sources.h"
#include "codegen/op_expressions.h"
#include "codegen/reduction_folds.h"
#include "codegen/row_plan.h"
#include "codegen/templates.h"
#include "codegen/text.h"

namespace lazy::codegen {

namespace {

using fuse::Term;

// Writes a row kernel's source from its RowPlan.
class RowKernelEmitter {
 public:
  RowKernelEmitter(const fuse::Region& region, std::span<const ir::NodePtr> pending,
                   std::span<const ir::NodePtr> externals, const CodegenOptions& options)
      : region_(region),
        row_(*region.row),
        pending_(pending),
        plan_(region, pending, externals, options.sizes_at_run_time),
        builder_(region, pending, externals, options),
        launch_(plan_.launch()),
        vector_width_(plan_.vector_width()) {}

  GeneratedKernel run() {
    plan_.plan_holds();
    declare_args();
    std::vector<std::string> leading;
    for (std::uint32_t reduction : row_.reductions)
      leading.push_back(lower(ir::op_name(pending_[reduction]->op)));
    GeneratedKernel kernel = builder_.finish(fill_skeleton(), "lz_row_", std::move(leading));
    set_launch(kernel);
    return kernel;
  }

  // The kernel whose text is known: only its arguments and launch are worked out.
  GeneratedKernel run_with_text(KernelText text) {
    GeneratedKernel kernel = builder_.finish_with_text(std::move(text), [&] { declare_args(); });
    set_launch(kernel);
    return kernel;
  }

  const RowPlan& plan() const { return plan_; }

 private:
  void set_launch(GeneratedKernel& kernel) const {
    kernel.numel = row_.rows * row_.extent;
    kernel.written = row_.rows;  // rows: each writes its per-row values even over no elements
    kernel.vector_width = vector_width_;
    kernel.blocks = grid_blocks(row_.rows, launch_.block / launch_.row_threads);
    kernel.threads = launch_.block;
  }

  DType term_dtype(std::size_t t) const { return builder_.term_dtype(t); }
  DType output_dtype(std::size_t r) const { return builder_.output_dtype(r); }
  std::string value(std::size_t t) const { return value_name(region_.terms[t], t); }

  void declare_args() {
    builder_.constant("rows", std::uint64_t(row_.rows));
    if (plan_.length_at_run_time()) {
      builder_.constant("extent", std::uint64_t(row_.extent));
      builder_.constant("row_threads", std::uint64_t(launch_.row_threads));
    }
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      const Term& term = region_.terms[t];
      if (term.kind == Term::Kind::scalar) {
        builder_.scalar_argument(t);
        continue;
      }
      if (!plan_.is_access(term)) continue;
      if (term.kind == Term::Kind::load) builder_.input_pointer(t);
      const RowAccess& access = plan_.access(t);
      builder_.constant(cat("off", t), std::uint64_t(access.offset));
      if (plan_.level(t) != Level::uniform)
        builder_.constant(cat("sr", t), std::uint64_t(access.row_stride));
      if (plan_.level(t) != Level::uniform && access.inner_rows > 0) {
        builder_.constant(cat("ri", t), std::uint64_t(access.inner_rows));
        builder_.constant(cat("so", t), std::uint64_t(access.outer_stride));
      }
      if (plan_.level(t) == Level::element)
        builder_.constant(cat("se", t), std::uint64_t(access.extent_stride));
    }
    for (std::size_t r = 0; r < region_.roots.size(); ++r) builder_.output_pointer(r);
  }

  // The stored element a load reads: once (uniform), once per row, or at element g * V + e of
  // the row (from registers when held, or loaded with the loop's other groups: `loaded_ahead`).
  std::string raw_element(std::size_t t, bool loaded_ahead) const {
    switch (plan_.level(t)) {
      case Level::uniform:
        return cat(input_name(t), "[a.off", t, "]");
      case Level::per_row:
        return cat(input_name(t), "[b", t, "]");
      case Level::element:
        break;
    }
    if (plan_.held_load(t) || plan_.block_held_load(t) || loaded_ahead)
      return cat(held_name(t), "[k].v[e]");
    if (plan_.contiguous_load(t) && vector_width_ > 1) return cat(vector_load_name(t), ".v[e]");
    return cat(input_name(t), "[", element_offset(t), "]");
  }

  std::string element_offset(std::size_t t) const {
    return cat("b", t, " + (Offset)(g * ", vector_width_, " + e) * a.se", t);
  }

  std::string generator_index(std::size_t t) const {
    switch (plan_.level(t)) {
      case Level::uniform:
        return cat("a.off", t);
      case Level::per_row:
        return cat("b", t);
      case Level::element:
        break;
    }
    return element_offset(t);
  }

  // The statement computing term t's value; `loaded_ahead`: the loop loaded its groups before.
  std::string term_statement(std::size_t t, bool loaded_ahead = false) const {
    const Term& term = region_.terms[t];
    switch (term.kind) {
      case Term::Kind::scalar:
        return builder_.scalar_statement(t);
      case Term::Kind::load:
        return builder_.load_statement(t, raw_element(t, loaded_ahead));
      case Term::Kind::reduced: {
        const int j = plan_.reduction_position(term.source);
        const ir::Node& node = *pending_[term.source];
        return builder_.value_statement(
            t, fold_result(node, fold_of(node), cat("acc", j), cat("at", j)));
      }
      case Term::Kind::generator:
        return builder_.computed_statement(t, generator_index(t));
      case Term::Kind::op:
        if (plan_.divides_by_row_value(t)) return builder_.division_statement(t);
        break;
    }
    return builder_.computed_statement(t, "");
  }

  // Opens the loop over this thread's groups of the row (g: the group's index in the row), with
  // the group's loads of what a phase reads from memory (`needed`: the phase's element_cone). A
  // loop with `in_flight` groups (RowPlan::loads_in_flight) loads them all first, then computes
  // with each in turn: the same order of folds.
  std::string open_group_loop(const std::vector<std::uint8_t>& needed, int in_flight,
                              std::string_view indent) const {
    if (in_flight > 1) {
      const std::string inner = cat(indent, "  ");
      return cat(indent, "for (int g0 = lane; active && g0 * ", vector_width_,
                 " < extent; g0 += ", in_flight, " * row_threads) {\n",
                 group_loads([&](std::size_t t) { return needed[t] && plan_.element_load(t); },
                             in_flight, "g0", true, inner),
                 "#pragma unroll\n", inner, "for (int k = 0; k < ", in_flight, "; ++k) {\n", inner,
                 "  const int g = g0 + k * row_threads;\n", inner, "  if (g * ", vector_width_,
                 " >= extent) continue;\n");
    }
    std::string out =
        launch_.items > 0
            ? cat(indent, "#pragma unroll\n", indent, "for (int k = 0; k < ", launch_.items,
                  "; ++k) {\n", indent, "  const int g = lane + k * row_threads;\n", indent,
                  "  if (!active || g * ", vector_width_, " >= extent) continue;\n")
            : cat(indent, "for (int g = lane; active && g * ", vector_width_,
                  " < extent; g += row_threads) {\n");
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      if (needed[t] && plan_.contiguous_load(t) && !plan_.held_load(t) &&
          !plan_.block_held_load(t) && vector_width_ > 1) {
        append(out, indent, "  const auto ", vector_load_name(t), " = lz_load_vec<", vector_width_,
               ">(", input_name(t), " + b", t, " + (Offset)g * ", vector_width_, ");\n");
      }
    }
    return out;
  }
  static std::string close_group_loop(int in_flight, std::string_view indent) {
    return in_flight > 1 ? cat(indent, "  }\n", indent, "}\n") : cat(indent, "}\n");
  }

  // The statements of phase `phase`'s element terms (`needed`: its element_cone).
  std::string element_statements(const std::vector<std::uint8_t>& needed, int phase,
                                 bool loaded_ahead, std::string_view indent) const {
    const std::string at = cat("[k * ", vector_width_, " + e]");
    std::string out;
    for (std::size_t t = 0; t < needed.size(); ++t) {
      if (!needed[t]) continue;
      if (plan_.held_from_earlier(t, phase)) {
        append(out, indent, builder_.value_statement(t, cat(kept_name(t), at)));
        continue;
      }
      append(out, indent, term_statement(t, loaded_ahead && plan_.element_load(t)));
      if (plan_.reused(t)) append(out, indent, kept_name(t), at, " = ", value(t), ";\n");
    }
    return out;
  }

  std::string reused_declarations() const {
    std::string out;
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      if (!plan_.reused(t)) continue;
      append(out, "    ", value_type(term_dtype(t)), " ", kept_name(t), "[",
             launch_.items * vector_width_, "];\n");
    }
    return out;
  }

  // Reads into registers the element accesses `which` selects (held rows only): the row's
  // (inside the row loop, from base b<t>) or the ones every row shares (before it, from a.off<t>).
  template <class Which>
  std::string held_loads(Which which, bool per_row) const {
    if (launch_.items == 0) return {};
    return group_loads(which, launch_.items, "lane", per_row, per_row ? "    " : "  ");
  }

  // Loads `count` groups of the accesses `which` selects into registers held<t>[k], group k
  // being `first` + k * row_threads: of the row (from base b<t>) or of every row (a.off<t>).
  template <class Which>
  std::string group_loads(Which which, int count, std::string_view first, bool per_row,
                          std::string_view indent) const {
    const int v = vector_width_;
    std::string out;
    // Vectors keep narrow elements packed: 8 bf16 take 4 registers, not 8.
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      if (!which(t)) continue;
      append(out, indent, "lz_vec<", v, ", ", storage_type(term_dtype(t)), "> ", held_name(t), "[",
             count, "];\n");
    }
    if (out.empty()) return out;
    append(out, "#pragma unroll\n", indent, "for (int k = 0; k < ", count, "; ++k) {\n", indent,
           "  const int g = ", first, " + k * row_threads;\n", indent, "  if (",
           per_row ? "!active || " : "", "g * ", v, " >= extent) continue;\n");
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      if (!which(t)) continue;
      const std::string base = per_row ? cat("b", t) : cat("(Offset)a.off", t);
      if (plan_.contiguous_load(t) && v > 1) {
        append(out, indent, "  ", held_name(t), "[k] = lz_load_vec<", v, ">(", input_name(t), " + ",
               base, " + (Offset)g * ", v, ");\n");
      } else {
        append(out, "#pragma unroll\n", indent, "  for (int e = 0; e < ", v, "; ++e) ",
               held_name(t), "[k].v[e] = ", input_name(t), "[", base, " + (Offset)(g * ", v,
               " + e) * a.se", t, "];\n");
      }
    }
    append(out, indent, "}\n");
    return out;
  }

  // Every thread of the row ends with the same bits: xor shuffles pair the same two values on
  // both sides, and the warps' partials combine in one order. A run-time row length leaves the
  // threads per row to the launch, so both ways are written and the kernel takes one.
  std::string combine(int j, const Fold& fold) const {
    const int threads = launch_.row_threads;
    if (plan_.length_at_run_time()) {
      return cat("    if (row_threads <= 32) {\n", combine_in_warp(j, fold, "row_threads"),
                 "    } else {\n", combine_across_warps(j, fold, "row_threads / 32"), "    }\n");
    }
    if (threads <= 32) return threads > 1 ? combine_in_warp(j, fold, std::to_string(threads)) : "";
    return combine_across_warps(j, fold, std::to_string(threads / 32));
  }

  // Folds each slice of `lanes` lanes (a power of two up to 32) of a warp.
  std::string combine_in_warp(int j, const Fold& fold, std::string_view lanes) const {
    return butterfly(j, fold, cat(lanes, " / 2"), cat(", ", lanes));
  }

  // Folds a row that `warps` warps share: each warp, then their partials through shared memory.
  std::string combine_across_warps(int j, const Fold& fold, std::string_view warps) const {
    const bool positional = fold.positional;
    std::string out = butterfly(j, fold, "16", "");
    append(out, "    if ((threadIdx.x & 31) == 0) {\n      partial", j, "[threadIdx.x >> 5] = acc",
           j, ";\n");
    if (positional) append(out, "      partial_at", j, "[threadIdx.x >> 5] = at", j, ";\n");
    // Each slice of `warps` lanes folds every warp's partial, so every lane ends with the row's.
    append(out, "    }\n    __syncthreads();\n", "    acc", j, " = partial", j, "[threadIdx.x % (",
           warps, ")];\n");
    if (positional)
      append(out, "    at", j, " = partial_at", j, "[threadIdx.x % (", warps, ")];\n");
    append(out, combine_in_warp(j, fold, cat("(", warps, ")")));
    // Each reduction has its own partials; the next row writes them again only after another
    // reduction's barrier, except in a kernel with one reduction.
    if (row_.reductions.size() == 1) append(out, "    __syncthreads();  // partials are reused\n");
    return out;
  }

  std::string butterfly(int j, const Fold& fold, std::string_view from,
                        std::string_view width) const {
    std::string out =
        cat("    for (int o = ", from, "; o > 0; o /= 2) {\n", "      const ", fold.acc_type,
            " other = __shfl_xor_sync(0xffffffffu, acc", j, ", o", width, ");\n");
    append(out, "      const long long other_at = ",
           fold.positional ? cat("__shfl_xor_sync(0xffffffffu, at", j, ", o", width, ")") : "-1",
           ";\n", "      ", fold.function, "(acc", j, ", at", j, ", other, other_at);\n    }\n");
    return out;
  }

  std::string shared_declarations() const {
    if (launch_.row_threads <= 32 && !plan_.length_at_run_time()) return {};
    std::string out;
    for (std::size_t j = 0; j < row_.reductions.size(); ++j) {
      const Fold fold = fold_of(*pending_[row_.reductions[j]]);
      append(out, "  __shared__ ", fold.acc_type, " partial", j, "[32];\n");
      if (fold.positional) append(out, "  __shared__ long long partial_at", j, "[32];\n");
    }
    return out;
  }

  // The reciprocals of divisors at `level` known once `phase` reductions have folded.
  std::string reciprocal_statements(Level level, int phase, std::string_view indent) const {
    std::string out;
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      if (!plan_.divides_by_row_value(t)) continue;
      const std::size_t divisor = std::size_t(region_.terms[t].operands[1]);
      if (plan_.level(divisor) == level && plan_.ready_after(divisor) == phase)
        append(out, indent, builder_.reciprocal_statement(t));
    }
    return out;
  }

  // Per-row terms computable once `phase` reductions have folded.
  std::string per_row_statements(int phase) const {
    std::string out;
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      if (plan_.level(t) == Level::per_row && plan_.ready_after(t) == phase)
        append(out, "    ", term_statement(t));
    }
    return out + reciprocal_statements(Level::per_row, phase, "    ");
  }

  std::string row_body() const {
    std::string out;
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      if (!plan_.is_access(region_.terms[t]) || plan_.level(t) == Level::uniform ||
          plan_.block_held_load(t))
        continue;
      if (plan_.access(t).inner_rows > 0) {
        // Two strided groups of kept axes (a mask broadcast over heads): one division per row.
        append(out, "    const Offset b", t, " = (Offset)a.off", t, " + (Offset)(safe_row / a.ri",
               t, ") * (Offset)a.so", t, " + (Offset)(safe_row % a.ri", t, ") * (Offset)a.sr", t,
               ";\n");
        continue;
      }
      append(out, "    const Offset b", t, " = (Offset)a.off", t, " + safe_row * (Offset)a.sr", t,
             ";\n");
    }
    append(out, per_row_statements(0),
           held_loads([&](std::size_t t) { return plan_.held_load(t); }, true),
           reused_declarations());
    const int v = vector_width_;
    for (std::size_t j = 0; j < row_.reductions.size(); ++j) {
      const ir::Node& node = *pending_[row_.reductions[j]];
      const Fold fold = fold_of(node);
      const std::int32_t input = row_.reduction_terms[j];
      const std::vector<std::uint8_t> needed = plan_.element_cone(std::span(&input, 1), int(j));
      const int in_flight = plan_.loads_in_flight(needed);
      append(out, "    // ", op_and_place(node), "\n", "    ", fold.acc_type, " acc", j, " = ",
             fold.identity, ";\n    long long at", j, " = -1;\n",
             open_group_loop(needed, in_flight, "    "),
             "#pragma unroll\n      for (int e = 0; e < ", v, "; ++e) {\n",
             element_statements(needed, int(j), in_flight > 1, "        "), "        ",
             fold.function, "(acc", j, ", at", j, ", ",
             fold_input(node, fold, term_dtype(input), value(input)), ", (long long)(g * ", v,
             " + e));\n      }\n", close_group_loop(in_flight, "    "), combine(int(j), fold),
             per_row_statements(int(j) + 1));
    }
    std::vector<std::int32_t> element_roots;
    for (std::size_t r = 0; r < region_.roots.size(); ++r) {
      if (!region_.roots[r].per_row) {
        element_roots.push_back(region_.root_terms[r]);
        continue;
      }
      append(out, "    if (lane == 0 && active) ", output_name(r),
             "[row] = ", builder_.stored_value(region_.root_terms[r], output_dtype(r)), ";\n");
    }
    if (element_roots.empty()) return out;
    const int last = int(row_.reductions.size());
    const std::vector<std::uint8_t> needed = plan_.element_cone(element_roots, last);
    const int in_flight = plan_.loads_in_flight(needed);
    append(out, "    const Offset out_base = row * (Offset)extent;\n",
           open_group_loop(needed, in_flight, "    "));
    for (std::size_t r = 0; r < region_.roots.size(); ++r) {
      if (!region_.roots[r].per_row) {
        append(out, "      lz_vec<", v, ", ", storage_type(output_dtype(r)), "> ", stored_name(r),
               ";\n");
      }
    }
    append(out, "#pragma unroll\n      for (int e = 0; e < ", v, "; ++e) {\n",
           element_statements(needed, last, in_flight > 1, "        "));
    for (std::size_t r = 0; r < region_.roots.size(); ++r) {
      if (region_.roots[r].per_row) continue;
      append(out, "        ", stored_name(r),
             ".v[e] = ", builder_.stored_value(region_.root_terms[r], output_dtype(r)), ";\n");
    }
    append(out, "      }\n");
    for (std::size_t r = 0; r < region_.roots.size(); ++r) {
      if (region_.roots[r].per_row) continue;
      if (v > 1) {
        append(out, "      lz_store_vec<", v, ">(", output_name(r), " + out_base + (Offset)g * ", v,
               ", ", stored_name(r), ");\n");
      } else {
        append(out, "      ", output_name(r), "[out_base + g] = ", stored_name(r), ".v[0];\n");
      }
    }
    append(out, close_group_loop(in_flight, "    "));
    return out;
  }

  std::string uniform_statements() const {
    std::string out;
    for (std::size_t t = 0; t < region_.terms.size(); ++t)
      if (plan_.level(t) == Level::uniform) append(out, "  ", term_statement(t));
    return out + reciprocal_statements(Level::uniform, 0, "  ");
  }

  std::string fill_skeleton() const {
    const bool run_time = plan_.length_at_run_time();
    const std::string rows_of = run_time ? std::string("rows of a length given at run time")
                                         : cat("rows of ", row_.extent, " element(s), ",
                                               launch_.row_threads, " thread(s) per row");
    std::string header = cat(
        "// lazyfuse: ", row_.reductions.size(), " reduction(s) over ", rows_of, ", ",
        launch_.items > 0 ? cat(launch_.items, " group(s) of ", vector_width_, " held per thread")
                          : cat("looping over groups of ", vector_width_),
        "\n");
    const std::string block_held_loads =
        held_loads([&](std::size_t t) { return plan_.block_held_load(t); }, false);
    return header +
           absl::StrReplaceAll(
               std::string(template_text("row_skeleton.cuh")),
               {{"$ARGS", builder_.args_text()},
                {"$BLOCK", run_time ? cat(kMaxRunTimeRowThreads, ", ", kMinRunTimeBlocksPerSm)
                                    : std::to_string(launch_.block)},
                {"$SIZES", sizes()},
                {"$SHARED", shared_declarations()},
                {"$UNIFORM_LOADS", uniform_statements() + block_held_loads},
                {"$ROW_BODY", row_body()}});
  }

  // The threads per row, rows per block and the row's length: compiled in, so loops and bounds
  // checks fold away, or arguments of a kernel that serves every length.
  std::string sizes() const {
    if (plan_.length_at_run_time()) {
      return "  const int row_threads = (int)a.row_threads;  // chosen per launch\n"
             "  const int rows_per_block = (int)blockDim.x / row_threads;\n"
             "  const int extent = (int)a.extent;\n";
    }
    return cat("  constexpr int row_threads = ", launch_.row_threads, ";\n",
               "  constexpr int rows_per_block = ", launch_.block / launch_.row_threads, ";\n",
               "  constexpr int extent = ", row_.extent, ";  // fixed per kernel\n");
  }

  const fuse::Region& region_;
  const fuse::RowInfo& row_;
  std::span<const ir::NodePtr> pending_;
  RowPlan plan_;
  KernelBuilder builder_;
  RowLaunch launch_;
  int vector_width_;
};

}  // namespace

GeneratedKernel generate_row_kernel(const fuse::Region& region,
                                    std::span<const ir::NodePtr> pending,
                                    std::span<const ir::NodePtr> externals,
                                    const CodegenOptions& options) {
  return *generate_row_kernel_if(region, pending, externals, options,
                                 [](const std::optional<ir::Hash128>&) { return true; });
}

std::optional<GeneratedKernel> generate_row_kernel_if(
    const fuse::Region& region, std::span<const ir::NodePtr> pending,
    std::span<const ir::NodePtr> externals, const CodegenOptions& options,
    absl::FunctionRef<bool(const std::optional<ir::Hash128>& structure_key)> wanted) {
  RowKernelEmitter emitter(region, pending, externals, options);
  const std::optional<RowTextKeys> keys =
      row_text_keys(region, pending, externals, emitter.plan(), options);
  if (!wanted(keys ? std::optional(keys->structure) : std::nullopt)) return std::nullopt;
  return kernel_from_text_cache(
      keys ? std::optional(keys->text) : std::nullopt,
      [&](KernelText text) { return emitter.run_with_text(std::move(text)); },
      [&] { return emitter.run(); },
      [&] { return RowKernelEmitter(region, pending, externals, options).run(); },
      pending[region.row->reductions.at(0)].get());
}

}  // namespace lazy::codegen
