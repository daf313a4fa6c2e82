// What both kernel emitters (kernel_emitter.cpp, row_kernel_emitter.cpp) write the same way: the
// kernel's arguments, the statement declaring each term's value (an op's commented with the
// user's file:line), and the finished GeneratedKernel with its name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <absl/functional/function_ref.h>

#include "codegen/kernel_emitter.h"
#include "codegen/kernel_sources.h"
#include "codegen/text.h"
#include "fuse/partition.h"

namespace lazy::codegen {

// A 1-d grid's limit on blocks; kernels loop over the work past it.
inline constexpr std::int64_t kMaxGridBlocks = 2147483647;

// Blocks for `units` of work (threads, rows) at `per_block` each: at least one, at most the limit.
std::int64_t grid_blocks(std::int64_t units, std::int64_t per_block);

// An op name in lower case, as kernel names and comments in generated code spell it.
std::string lower(std::string_view name);

// The dtype of a term's value: an external input's for a load of one, else its node's.
DType term_dtype(const fuse::Term& term, std::span<const ir::NodePtr> pending,
                 std::span<const ir::NodePtr> externals);

// Ops a region's kernel computes on the special-function unit, per element.
int transcendentals(const fuse::Region& region, std::span<const ir::NodePtr> pending);

// "exp (model.cpp:42)": the op and where the user recorded it, for comments in generated code.
std::string op_and_place(const ir::Node& node);
// `source` with every "// exp (model.cpp:42)" comment taken out (the line stays, so line numbers
// do not move): the text a kernel's name and its shipped copy (jit/shipped_kernels.h) go by, the
// same wherever the user recorded its ops.
std::string without_op_places(std::string_view source);
// The same text as pieces of `source`, in order: what the name hashes, without a copy.
std::vector<std::string_view> pieces_without_op_places(std::string_view source);

// The kernel argument a scalar term reads (KernelBuilder::scalar_argument): the Scalar node's
// value in its dtype (ir::scalar_as_float / scalar_as_int, as the reference holds it), floats as
// f32 bits.
std::uint64_t scalar_argument(const ir::Node& scalar);

class KernelBuilder {
 public:
  KernelBuilder(const fuse::Region& region, std::span<const ir::NodePtr> pending,
                std::span<const ir::NodePtr> externals, const CodegenOptions& options);

  DType term_dtype(std::size_t t) const;
  // What output r stores: its node's dtype (the input's, for a dense copy of an input).
  DType output_dtype(std::size_t r) const;

  // Kernel arguments: the fields of the kernel's `Args a`, in the order declared, each with where
  // its value comes from at launch.
  void constant(std::string_view name, std::uint64_t value, std::string_view type = "long long");
  // From now on a constant is compiled in: a static member of `Args`, still read as a.<name>, so
  // the compiler folds its arithmetic (a period's modulo, a part's offset).
  void compile_constants() { constants_compiled_ = true; }
  // From now on the loads of one tensor share its pointer argument, as names in a union, so the
  // compiler knows they read one tensor (a roll's parts then pick an offset, not a pointer). Only
  // for kernels whose text is not cached by structure (kernel_sources.h): the sharing is not in
  // its key.
  void share_input_pointers() { pointers_shared_ = true; }
  // a.<name>: `bytes` of device memory (8-byte words) for the kernel's launches alone; null when 0.
  void scratch(std::string_view name, std::uint64_t bytes);
  // a.<name>: which of the kernel's launches is running, from 0.
  void launch_index(std::string_view name);
  void scalar_argument(std::size_t t);  // a.s<t>: scalar term t
  void input_pointer(std::size_t t);    // the tensor load term t reads
  void output_pointer(std::size_t r);   // the memory output r is written to
  // A gather load's arguments (its source's stride and extent along the picked axis, where it
  // reports a bad index), after input_pointer(t).
  void gather_arguments(std::size_t t);
  // a.<name>: the number of where node `node` (a gather, a scatter) checks its index, and
  // a.faults, where a bad one is reported (ir/index_faults.h).
  void index_site(std::string_view name, std::uint32_t node);
  const std::string& args_text() const { return args_text_; }

  // Statements declaring term t's value (generated_names.h names it): from its argument (a
  // scalar), from the stored element `raw` (a load), from `value` (any term), or an op or
  // generator over its operands' values (`index`: a generator's linear index), commented with the
  // op and the user's file:line.
  std::string scalar_statement(std::size_t t) const;
  std::string load_statement(std::size_t t, const std::string& raw) const;
  // A gather load's value at element offset `base` (a long long expression) of its walked axes,
  // after checking its index: an index out of range is reported and reads 0.
  std::string gather_statement(std::size_t t, const std::string& base) const;
  // A gather load's `width` consecutive elements from `base` (an lz_vec), its index checked once.
  std::string gather_vector(std::size_t t, int width, const std::string& base) const;
  std::string value_statement(std::size_t t, const std::string& value) const;
  // A concatenation's value (term t) where the element lies in part `part`: that part's value.
  std::string concat_statement(std::size_t t, int part) const;
  // The same, as a variable declared first and set in each part's branch (select_statements).
  std::string concat_declaration(std::size_t t) const;
  std::string concat_assignment(std::size_t t, int part) const;
  // ... set to the stored element `raw` of its dtype.
  std::string concat_loaded_assignment(std::size_t t, const std::string& raw) const;
  std::string computed_statement(std::size_t t, const std::string& index) const;

  // A division (term t) whose divisor many elements share, a row's sum, takes the divisor's
  // reciprocal computed once (reciprocal_statement, where the divisor is known) and rounds as the
  // division does (lz_div_by).
  std::string reciprocal_statement(std::size_t t) const;
  std::string division_statement(std::size_t t) const;

  // What an output of dtype `stored` holds from term t's value, rounded once.
  std::string stored_value(std::size_t t, DType stored) const;
  // Every output's element i, one at a time.
  std::string scalar_stores() const;

  // The kernel whose source is `body`, named from `prefix` and `leading` words (kernel_name.h)
  // with its arguments; the caller fills in its launch shape.
  GeneratedKernel finish(const std::string& body, std::string_view prefix,
                         std::vector<std::string> leading);
  // The kernel of a known text (kernel_sources.h) with the arguments `declare_args` declares,
  // kept without their declarations' text (writing it was a sixth of a plan miss's host time).
  // The caller fills in its launch shape.
  GeneratedKernel finish_with_text(KernelText text, absl::FunctionRef<void()> declare_args);

 private:
  // Keeps an argument, and unless left out, its field's declaration: the parts of "type name".
  template <class... Parts>
  void add_arg(ArgSource source, const Parts&... declaration) {
    if (args_text_wanted_) append(args_text_, "  ", declaration..., ";\n");
    args_.push_back(source);
  }
  // Operand i of term t as the op reads it.
  std::string operand_value(std::size_t t, int i) const;
  // Declares term t's value from an expression of its op, commented with the op and its place.
  std::string op_statement(std::size_t t, const std::string& value) const;

  const fuse::Region& region_;
  std::span<const ir::NodePtr> pending_;
  std::span<const ir::NodePtr> externals_;
  CodegenOptions options_;
  std::string args_text_;
  std::vector<ArgSource> args_;
  bool args_text_wanted_ = true;
  bool constants_compiled_ = false;
  bool pointers_shared_ = false;
  bool reports_faults_ = false;  // the `faults` argument is declared
};

}  // namespace lazy::codegen
