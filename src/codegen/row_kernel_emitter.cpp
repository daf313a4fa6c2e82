#include "codegen/row_kernel_emitter.h"

#include <algorithm>

#include <absl/strings/str_replace.h>

#include "codegen/kernel_name.h"
#include "codegen/op_expressions.h"
#include "codegen/reduction_folds.h"
#include "codegen/row_launch.h"
#include "codegen/templates.h"
#include "codegen/term_statements.h"
#include "codegen/text.h"
#include "ir/integer_math.h"

namespace lazy::codegen {

namespace {

using fuse::Term;
using ir::ceil_div;

constexpr std::int64_t kMaxGridBlocks = 2147483647;
// Registers a thread may hold in all (the row's loads and values, and the row-invariant loads,
// a norm's weight and bias) for row-invariant loads to be held across rows: the compiler keeps
// them converted to f32 across the row loop, and past this budget the occupancy lost costs more
// than the early load gains. On H100, layer_norm [16384, 4096] f32 (24 words with the row's x)
// held them: 0.8% faster; bf16 (40 words) 4% slower, so it loads them with each row instead.
constexpr int kMaxBlockHeldWords = 32;

// Where a term's value varies: the same everywhere, once per row, or per element.
enum class Level : std::uint8_t { uniform, per_row, element };

// A load's or generator's walk over the region as [rows, extent].
struct RowAccess {
  std::int64_t offset = 0;
  std::int64_t row_stride = 0;
  std::int64_t extent_stride = 0;
};

class RowKernelEmitter {
 public:
  RowKernelEmitter(const fuse::Region& region, std::span<const ir::NodePtr> pending,
                   std::span<const ir::NodePtr> externals, const CodegenOptions& options)
      : region_(region),
        row_(*region.row),
        pending_(pending),
        externals_(externals),
        options_(options) {}

  GeneratedKernel run() {
    classify_terms();
    vector_width_ = choose_vector_width();
    const std::int64_t groups = ceil_div(row_.extent, vector_width_);
    plan_phases();
    launch_ = choose_row_launch(groups, vector_width_, held_words_per_group(), math_heavy());
    if (launch_.items == 0) reused_.assign(reused_.size(), false);
    invariants_held_for_block_ = launch_.items > 0 && block_held_words() <= kMaxBlockHeldWords;
    declare_args();
    std::string body = fill_skeleton();
    GeneratedKernel kernel;
    kernel.name = name_of(body);
    kernel.source = absl::StrReplaceAll(body, {{"$NAME", kernel.name}});
    kernel.args = std::move(args_);
    kernel.numel = row_.rows * row_.extent;
    kernel.written = row_.rows;  // rows: each writes its per-row values even over no elements
    kernel.vector_width = vector_width_;
    const int rows_per_block = launch_.block / launch_.row_threads;
    kernel.blocks =
        std::min(std::max<std::int64_t>(ceil_div(row_.rows, rows_per_block), 1), kMaxGridBlocks);
    kernel.threads = launch_.block;
    if (options_.fast_math) kernel.nvrtc_options.push_back("--use_fast_math");
    return kernel;
  }

 private:
  DType term_dtype(const Term& t) const { return codegen::term_dtype(t, pending_, externals_); }
  DType output_dtype(std::size_t r) const { return pending_[region_.roots[r].node]->dtype; }
  bool is_access(const Term& t) const {
    return t.kind == Term::Kind::load || t.kind == Term::Kind::generator;
  }

  // Each term's level, and how many reductions must have folded before it can be computed.
  void classify_terms() {
    const std::size_t n = region_.terms.size();
    level_.assign(n, Level::uniform);
    phase_.assign(n, 0);
    access_.assign(n, RowAccess{});
    for (std::size_t t = 0; t < n; ++t) {
      const Term& term = region_.terms[t];
      if (is_access(term)) {
        access_[t] = row_access(term.layout);
        level_[t] = access_[t].extent_stride != 0 ? Level::element
                    : access_[t].row_stride != 0  ? Level::per_row
                                                  : Level::uniform;
      }
      if (term.kind == Term::Kind::reduced) {
        level_[t] = Level::per_row;
        phase_[t] = reduction_position(term.source) + 1;
      }
      for (int i = 0; i < term.n_operands; ++i) {
        level_[t] = std::max(level_[t], level_[term.operands[i]]);
        phase_[t] = std::max(phase_[t], phase_[term.operands[i]]);
      }
    }
  }

  RowAccess row_access(const ir::Layout& layout) const {
    RowAccess access;
    access.offset = layout.offset;
    if (layout.shape.rank() == 0 || row_.rows * row_.extent == 0) return access;
    // The partitioner checked that every access reshapes to [rows, extent].
    ir::Layout flat = *ir::reshape_layout(layout, Shape{row_.rows, row_.extent});
    access.offset = flat.offset;
    access.row_stride = row_.rows > 1 ? flat.strides[0] : 0;
    access.extent_stride = row_.extent > 1 ? flat.strides[1] : 0;
    return access;
  }

  int reduction_position(std::uint32_t node) const {
    auto it = std::find(row_.reductions.begin(), row_.reductions.end(), node);
    return int(it - row_.reductions.begin());
  }

  bool element_load(std::size_t t) const {
    return region_.terms[t].kind == Term::Kind::load && level_[t] == Level::element;
  }
  bool contiguous_load(std::size_t t) const {
    return element_load(t) && access_[t].extent_stride == 1;
  }
  // Loads that several phases read are held in registers with the row: memory is read once.
  // Loads that every row reads alike (a norm's weight) are held too: read before the reductions,
  // their latency hides behind the row's. Measured on H100: layer_norm f32 0.8% faster, add +
  // rms_norm 0.3%. Other loads are read where they are used.
  bool held_load(std::size_t t) const {
    return element_load(t) && launch_.items > 0 && !block_held_load(t) &&
           (phases_using_[t] > 1 || row_invariant_load(t));
  }
  bool row_invariant_load(std::size_t t) const {
    return element_load(t) && access_[t].row_stride == 0 && phases_using_[t] > 0;
  }
  // Row-invariant loads read once before the loop over rows, where registers allow: with
  // several rows, and only loads the reductions do not fold (a norm's weight). A reduction's own
  // input held there beside an epilogue's load (one row makes every load row-invariant) folded
  // only lane 0's elements on H100 with CUDA 13.0's compiler, though the source is right
  // (lazyfuse-fuzz seed 203; tests/test_fuzz_regressions.cpp).
  bool block_held_load(std::size_t t) const {
    return invariants_held_for_block_ && row_invariant_load(t) && row_.rows > 1 &&
           first_phase_[t] == int(row_.reductions.size());
  }
  // Registers a thread holds when row-invariant loads are kept across rows, those at 4 bytes an
  // element at least.
  int block_held_words() const {
    int words = held_words_per_group();
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      if (!row_invariant_load(t)) continue;
      const int size = itemsize(term_dtype(region_.terms[t]));
      words += vector_width_ * (std::max(4, size) - size) / 4;
    }
    return words * launch_.items;
  }

  // Bytes of the narrowest element the row loads or stores, of any dtype or only floating ones
  // (0 for none).
  int narrowest_itemsize(bool floating_only = false) const {
    int narrowest = 0;
    auto take = [&](DType dtype) {
      if (floating_only && !is_floating(dtype)) return;
      const int size = itemsize(dtype);
      narrowest = narrowest == 0 ? size : std::min(narrowest, size);
    };
    for (std::size_t t = 0; t < region_.terms.size(); ++t)
      if (element_load(t)) take(term_dtype(region_.terms[t]));
    for (std::size_t r = 0; r < region_.roots.size(); ++r)
      if (!region_.roots[r].per_row) take(output_dtype(r));
    return narrowest;
  }

  // 16 bytes of the narrowest element access per thread step, halved until every contiguous
  // access and the stores stay aligned and rows hold whole groups.
  int choose_vector_width() const {
    const int narrowest = narrowest_itemsize();
    if (narrowest == 0) return 1;
    int width = 16 / narrowest;
    auto aligned = [&](int w) {
      if (row_.extent % w != 0) return false;
      for (std::size_t t = 0; t < region_.terms.size(); ++t) {
        if (!contiguous_load(t)) continue;
        if (access_[t].offset % w != 0 || access_[t].row_stride % w != 0) return false;
      }
      return true;
    };
    while (width > 1 && !aligned(width)) width /= 2;
    return width;
  }

  // Costly math per element bounds a row kernel only over floating elements of 2 bytes or fewer
  // (a bool mask beside f32 data does not count): on H100, softmax bf16 [8192, 8192] is bounded by
  // its exp, softmax f32 by memory (2959 GB/s with two groups per thread against 2949 with four).
  bool math_heavy() const {
    if (narrowest_itemsize(true) > 2) return false;
    for (std::size_t t = 0; t < region_.terms.size(); ++t)
      if (level_[t] == Level::element && costly(t)) return true;
    return false;
  }

  // Registers a thread holds per group: the row's loads, and values kept for later phases.
  int held_words_per_group() const {
    int bytes = 0;
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      if (element_load(t) && (phases_using_[t] > 1 || row_invariant_load(t)))
        bytes += vector_width_ * itemsize(term_dtype(region_.terms[t]));
      if (reused_[t]) bytes += vector_width_ * std::max(4, itemsize(term_dtype(region_.terms[t])));
    }
    return (bytes + 3) / 4;
  }

  // What each phase computes: phase j folds reduction j, the last one writes the element roots.
  std::vector<std::int32_t> phase_targets(std::size_t phase) const {
    if (phase < row_.reductions.size()) return {row_.reduction_terms[phase]};
    std::vector<std::int32_t> roots;
    for (std::size_t r = 0; r < region_.roots.size(); ++r)
      if (!region_.roots[r].per_row) roots.push_back(region_.root_terms[r]);
    return roots;
  }

  // Element values one phase computes and a later one needs again (softmax's exp(x - max)):
  // held in registers with the row, they are computed once.
  void plan_phases() {
    const std::size_t n = region_.terms.size();
    first_phase_.assign(n, -1);
    phases_using_.assign(n, 0);
    reused_.assign(n, false);
    std::vector<bool> read_later(n, false);
    for (std::size_t p = 0; p <= row_.reductions.size(); ++p) {
      // Costly values an earlier phase computed count as held while this phase's needs are
      // found; cheap ones (casts, arithmetic) are computed again from the held loads.
      for (std::size_t t = 0; t < n; ++t) reused_[t] = first_phase_[t] >= 0 && costly(t);
      const std::vector<bool> needed = element_cone(phase_targets(p), int(p));
      for (std::size_t t = 0; t < n; ++t) {
        if (!needed[t]) continue;
        if (first_phase_[t] < 0) first_phase_[t] = int(p);
        if (held_from_earlier(t, int(p))) read_later[t] = true;
        phases_using_[t]++;
      }
    }
    reused_ = read_later;
  }

  void arg(std::string declaration, ArgSource source) {
    append(args_text_, "  ", declaration, ";\n");
    args_.push_back(source);
  }
  void constant(std::string name, std::uint64_t value) {
    arg(cat("long long ", name), {ArgSource::Kind::constant, value});
  }

  void declare_args() {
    constant("rows", std::uint64_t(row_.rows));
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      const Term& term = region_.terms[t];
      if (term.kind == Term::Kind::scalar) {
        const bool as_float = is_floating(term_dtype(term));
        arg(cat(as_float ? "unsigned long long" : "long long", " s", t),
            {as_float ? ArgSource::Kind::scalar_float : ArgSource::Kind::scalar_int, term.source});
        continue;
      }
      if (!is_access(term)) continue;
      if (term.kind == Term::Kind::load) {
        ArgSource::Kind kind = term.from_copy  ? ArgSource::Kind::copy_pointer
                               : term.external ? ArgSource::Kind::external_pointer
                                               : ArgSource::Kind::root_pointer;
        arg(cat("const ", storage_type(term_dtype(term)), "* p", t), {kind, term.source});
      }
      constant(cat("off", t), std::uint64_t(access_[t].offset));
      if (level_[t] != Level::uniform) constant(cat("sr", t), std::uint64_t(access_[t].row_stride));
      if (level_[t] == Level::element)
        constant(cat("se", t), std::uint64_t(access_[t].extent_stride));
    }
    for (std::size_t r = 0; r < region_.roots.size(); ++r)
      arg(cat(storage_type(output_dtype(r)), "* out", r),
          {ArgSource::Kind::root_pointer, region_.roots[r].node});
  }

  // The stored element a load reads: once (uniform), once per row, or at element g * V + e of
  // the row (from registers when held).
  std::string raw_element(std::size_t t) const {
    switch (level_[t]) {
      case Level::uniform:
        return cat("a.p", t, "[a.off", t, "]");
      case Level::per_row:
        return cat("a.p", t, "[b", t, "]");
      case Level::element:
        break;
    }
    if (held_load(t) || block_held_load(t)) return cat("H", t, "[k].v[e]");
    if (contiguous_load(t) && vector_width_ > 1) return cat("L", t, ".v[e]");
    return cat("a.p", t, "[", element_offset(t), "]");
  }

  std::string element_offset(std::size_t t) const {
    return cat("b", t, " + (Offset)(g * ", vector_width_, " + e) * a.se", t);
  }

  std::string generator_index(std::size_t t) const {
    switch (level_[t]) {
      case Level::uniform:
        return cat("a.off", t);
      case Level::per_row:
        return cat("b", t);
      case Level::element:
        break;
    }
    return element_offset(t);
  }

  // The statement computing term t's value v<t>.
  std::string term_statement(std::size_t t) const {
    const Term& term = region_.terms[t];
    const DType dtype = term_dtype(term);
    const std::string lhs = cat("const ", value_type(dtype), " v", t, " = ");
    switch (term.kind) {
      case Term::Kind::scalar:
        return scalar_statement(t, dtype);
      case Term::Kind::load:
        return cat(lhs, load_conversion(dtype, raw_element(t)), ";\n");
      case Term::Kind::reduced: {
        const int j = reduction_position(term.source);
        const ir::Node& node = *pending_[term.source];
        return cat(lhs, fold_result(node, fold_of(node), cat("acc", j), cat("at", j)), ";\n");
      }
      case Term::Kind::generator:
      case Term::Kind::op:
        break;
    }
    std::vector<DType> operand_dtypes;
    for (int i = 0; i < term.n_operands; ++i)
      operand_dtypes.push_back(term_dtype(region_.terms[term.operands[i]]));
    const std::string index = term.kind == Term::Kind::generator ? generator_index(t) : "";
    return computed_statement(term, t, *pending_[term.source], operand_dtypes, index,
                              options_.fast_math);
  }

  // The element terms phase `phase` needs for `targets`, in order; values held from an earlier
  // phase end the walk.
  std::vector<bool> element_cone(std::span<const std::int32_t> targets, int phase) const {
    std::vector<bool> needed(region_.terms.size(), false);
    for (std::int32_t target : targets) needed[target] = true;
    for (std::size_t t = region_.terms.size(); t-- > 0;) {
      if (!needed[t] || level_[t] != Level::element || held_from_earlier(t, phase)) continue;
      const Term& term = region_.terms[t];
      for (int i = 0; i < term.n_operands; ++i) needed[term.operands[i]] = true;
    }
    for (std::size_t t = 0; t < needed.size(); ++t)
      needed[t] = needed[t] && level_[t] == Level::element;
    return needed;
  }

  // Opens the loop over this thread's groups of the row (g: the group's index in the row), with
  // the group's loads of what phase `phase` reads from memory.
  std::string open_group_loop(std::span<const std::int32_t> targets, int phase,
                              std::string_view indent) const {
    std::string out =
        launch_.items > 0
            ? cat(indent, "#pragma unroll\n", indent, "for (int k = 0; k < ", launch_.items,
                  "; ++k) {\n", indent, "  const int g = lane + k * kRowThreads;\n", indent,
                  "  if (!active || g * ", vector_width_, " >= extent) continue;\n")
            : cat(indent, "for (int g = lane; active && g * ", vector_width_,
                  " < extent; g += kRowThreads) {\n");
    const std::vector<bool> needed = element_cone(targets, phase);
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      if (needed[t] && contiguous_load(t) && !held_load(t) && !block_held_load(t) &&
          vector_width_ > 1) {
        append(out, indent, "  const auto L", t, " = lz_load_vec<", vector_width_, ">(a.p", t,
               " + b", t, " + (Offset)g * ", vector_width_, ");\n");
      }
    }
    return out;
  }

  bool costly(std::size_t t) const {
    const Term& term = region_.terms[t];
    if (term.kind != Term::Kind::op && term.kind != Term::Kind::generator) return false;
    const ir::Op op = pending_[term.source]->op;
    return is_transcendental(op) || op == ir::Op::Div || op == ir::Op::Sqrt || op == ir::Op::Rsqrt;
  }

  bool held_from_earlier(std::size_t t, int phase) const {
    return !reused_.empty() && reused_[t] && first_phase_[t] < phase;
  }

  std::string element_statements(std::span<const std::int32_t> targets, int phase,
                                 std::string_view indent) const {
    const std::vector<bool> needed = element_cone(targets, phase);
    const std::string at = cat("[k * ", vector_width_, " + e]");
    std::string out;
    for (std::size_t t = 0; t < needed.size(); ++t) {
      if (!needed[t]) continue;
      if (held_from_earlier(t, phase)) {
        append(out, indent, "const ", value_type(term_dtype(region_.terms[t])), " v", t, " = X", t,
               at, ";\n");
        continue;
      }
      append(out, indent, term_statement(t));
      if (reused_[t]) append(out, indent, "X", t, at, " = v", t, ";\n");
    }
    return out;
  }

  std::string reused_declarations() const {
    std::string out;
    for (std::size_t t = 0; t < reused_.size(); ++t) {
      if (!reused_[t]) continue;
      append(out, "    ", value_type(term_dtype(region_.terms[t])), " X", t, "[",
             launch_.items * vector_width_, "];\n");
    }
    return out;
  }

  // Reads into registers the element accesses `which` selects (held rows only): the row's
  // (inside the row loop, from base b<t>) or the ones every row shares (before it, from a.off<t>).
  template <class Which>
  std::string held_loads(Which which, bool per_row) const {
    if (launch_.items == 0) return {};
    const int v = vector_width_;
    const std::string indent = per_row ? "    " : "  ";
    std::string out;
    // Vectors keep narrow elements packed: 8 bf16 take 4 registers, not 8.
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      if (!which(t)) continue;
      append(out, indent, "lz_vec<", v, ", ", storage_type(term_dtype(region_.terms[t])), "> H", t,
             "[", launch_.items, "];\n");
    }
    if (out.empty()) return out;
    append(out, "#pragma unroll\n", indent, "for (int k = 0; k < ", launch_.items, "; ++k) {\n",
           indent, "  const int g = lane + k * kRowThreads;\n", indent, "  if (",
           per_row ? "!active || " : "", "g * ", v, " >= extent) continue;\n");
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      if (!which(t)) continue;
      const std::string base = per_row ? cat("b", t) : cat("(Offset)a.off", t);
      if (contiguous_load(t) && v > 1) {
        append(out, indent, "  H", t, "[k] = lz_load_vec<", v, ">(a.p", t, " + ", base,
               " + (Offset)g * ", v, ");\n");
      } else {
        append(out, "#pragma unroll\n", indent, "  for (int e = 0; e < ", v, "; ++e) H", t,
               "[k].v[e] = a.p", t, "[", base, " + (Offset)(g * ", v, " + e) * a.se", t, "];\n");
      }
    }
    append(out, indent, "}\n");
    return out;
  }

  // Every thread of the row ends with the same bits: xor shuffles pair the same two values on
  // both sides, and the warps' partials combine in one order.
  std::string combine(int j, const Fold& fold) const {
    const bool positional = fold.positional;
    auto butterfly = [&](int from, std::string_view width) {
      std::string out =
          cat("    for (int o = ", from, "; o > 0; o /= 2) {\n", "      const ", fold.acc_type,
              " other = __shfl_xor_sync(0xffffffffu, acc", j, ", o", width, ");\n");
      append(out, "      const long long other_at = ",
             positional ? cat("__shfl_xor_sync(0xffffffffu, at", j, ", o", width, ")") : "-1",
             ";\n", "      ", fold.function, "(acc", j, ", at", j, ", other, other_at);\n    }\n");
      return out;
    };
    const int threads = launch_.row_threads;
    if (threads <= 32) return threads > 1 ? butterfly(threads / 2, cat(", ", threads)) : "";
    std::string out = butterfly(16, "");
    append(out, "    if ((threadIdx.x & 31) == 0) {\n      partial", j, "[threadIdx.x >> 5] = acc",
           j, ";\n");
    if (positional) append(out, "      partial_at", j, "[threadIdx.x >> 5] = at", j, ";\n");
    // Each slice of `warps` lanes folds every warp's partial, so every lane ends with the row's.
    const int warps = threads / 32;
    append(out, "    }\n    __syncthreads();\n", "    acc", j, " = partial", j, "[threadIdx.x % ",
           warps, "];\n");
    if (positional) append(out, "    at", j, " = partial_at", j, "[threadIdx.x % ", warps, "];\n");
    append(out, butterfly(warps / 2, cat(", ", warps)));
    // Each reduction has its own partials; the next row writes them again only after another
    // reduction's barrier, except in a kernel with one reduction.
    if (row_.reductions.size() == 1) append(out, "    __syncthreads();  // partials are reused\n");
    return out;
  }

  std::string shared_declarations() const {
    if (launch_.row_threads <= 32) return {};
    std::string out;
    for (std::size_t j = 0; j < row_.reductions.size(); ++j) {
      const Fold fold = fold_of(*pending_[row_.reductions[j]]);
      append(out, "  __shared__ ", fold.acc_type, " partial", j, "[32];\n");
      if (fold.positional) append(out, "  __shared__ long long partial_at", j, "[32];\n");
    }
    return out;
  }

  // Per-row terms computable once `phase` reductions have folded.
  std::string per_row_statements(int phase) const {
    std::string out;
    for (std::size_t t = 0; t < region_.terms.size(); ++t)
      if (level_[t] == Level::per_row && phase_[t] == phase) append(out, "    ", term_statement(t));
    return out;
  }

  std::string row_body() const {
    std::string out;
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      if (!is_access(region_.terms[t]) || level_[t] == Level::uniform || block_held_load(t))
        continue;
      append(out, "    const Offset b", t, " = (Offset)a.off", t, " + safe_row * (Offset)a.sr", t,
             ";\n");
    }
    append(out, per_row_statements(0),
           held_loads([&](std::size_t t) { return held_load(t); }, true), reused_declarations());
    const int v = vector_width_;
    for (std::size_t j = 0; j < row_.reductions.size(); ++j) {
      const ir::Node& node = *pending_[row_.reductions[j]];
      const Fold fold = fold_of(node);
      const std::int32_t input = row_.reduction_terms[j];
      append(out, "    // ", op_and_place(node), "\n", "    ", fold.acc_type, " acc", j, " = ",
             fold.identity, ";\n    long long at", j, " = -1;\n",
             open_group_loop(std::span(&input, 1), int(j), "    "),
             "#pragma unroll\n      for (int e = 0; e < ", v, "; ++e) {\n",
             element_statements(std::span(&input, 1), int(j), "        "), "        ",
             fold.function, "(acc", j, ", at", j, ", ",
             fold_input(node, fold, term_dtype(region_.terms[input]), cat("v", input)),
             ", (long long)(g * ", v, " + e));\n      }\n    }\n", combine(int(j), fold),
             per_row_statements(int(j) + 1));
    }
    std::vector<std::int32_t> element_roots;
    for (std::size_t r = 0; r < region_.roots.size(); ++r) {
      if (!region_.roots[r].per_row) {
        element_roots.push_back(region_.root_terms[r]);
        continue;
      }
      append(out, "    if (lane == 0 && active) a.out", r,
             "[row] = ", store_conversion(output_dtype(r), cat("v", region_.root_terms[r])), ";\n");
    }
    if (element_roots.empty()) return out;
    append(out, "    const Offset out_base = row * (Offset)extent;\n",
           open_group_loop(element_roots, int(row_.reductions.size()), "    "));
    for (std::size_t r = 0; r < region_.roots.size(); ++r)
      if (!region_.roots[r].per_row)
        append(out, "      lz_vec<", v, ", ", storage_type(output_dtype(r)), "> W", r, ";\n");
    append(out, "#pragma unroll\n      for (int e = 0; e < ", v, "; ++e) {\n",
           element_statements(element_roots, int(row_.reductions.size()), "        "));
    for (std::size_t r = 0; r < region_.roots.size(); ++r) {
      if (region_.roots[r].per_row) continue;
      append(out, "        W", r,
             ".v[e] = ", store_conversion(output_dtype(r), cat("v", region_.root_terms[r])), ";\n");
    }
    append(out, "      }\n");
    for (std::size_t r = 0; r < region_.roots.size(); ++r) {
      if (region_.roots[r].per_row) continue;
      if (v > 1) {
        append(out, "      lz_store_vec<", v, ">(a.out", r, " + out_base + (Offset)g * ", v, ", W",
               r, ");\n");
      } else {
        append(out, "      a.out", r, "[out_base + g] = W", r, ".v[0];\n");
      }
    }
    append(out, "    }\n");
    return out;
  }

  std::string uniform_statements() const {
    std::string out;
    for (std::size_t t = 0; t < region_.terms.size(); ++t)
      if (level_[t] == Level::uniform) append(out, "  ", term_statement(t));
    return out;
  }

  std::string fill_skeleton() const {
    std::string header = cat(
        "// lazyfuse: ", row_.reductions.size(), " reduction(s) over rows of ",
        region_.shape.to_string(), ", ", launch_.row_threads, " thread(s) per row, ",
        launch_.items > 0 ? cat(launch_.items, " group(s) of ", vector_width_, " held per thread")
                          : cat("looping over groups of ", vector_width_),
        "\n");
    return header + absl::StrReplaceAll(
                        std::string(template_text("row_skeleton.cuh")),
                        {{"$ARGS", args_text_},
                         {"$BLOCK", std::to_string(launch_.block)},
                         {"$ROW_THREADS", std::to_string(launch_.row_threads)},
                         {"$SHARED", shared_declarations()},
                         {"$UNIFORM_LOADS",
                          uniform_statements() +
                              held_loads([&](std::size_t t) { return block_held_load(t); }, false)},
                         {"$EXTENT", std::to_string(row_.extent)},
                         {"$ROW_BODY", row_body()}});
  }

  std::string name_of(const std::string& body) const {
    std::vector<std::string> leading;
    for (std::uint32_t reduction : row_.reductions)
      leading.push_back(lower(ir::op_name(pending_[reduction]->op)));
    return kernel_name("lz_row_", std::move(leading), region_, pending_, output_dtype(0), body);
  }

  const fuse::Region& region_;
  const fuse::RowInfo& row_;
  std::span<const ir::NodePtr> pending_;
  std::span<const ir::NodePtr> externals_;
  CodegenOptions options_;
  std::vector<Level> level_;
  std::vector<int> phase_;
  std::vector<RowAccess> access_;
  std::vector<int> first_phase_;  // the first phase that computes each element term
  std::vector<int> phases_using_;
  std::vector<bool> reused_;  // element values held for later phases
  bool invariants_held_for_block_ = false;
  int vector_width_ = 1;
  RowLaunch launch_{};
  std::string args_text_;
  std::vector<ArgSource> args_;
};

}  // namespace

GeneratedKernel generate_row_kernel(const fuse::Region& region,
                                    std::span<const ir::NodePtr> pending,
                                    std::span<const ir::NodePtr> externals,
                                    const CodegenOptions& options) {
  return RowKernelEmitter(region, pending, externals, options).run();
}

}  // namespace lazy::codegen
