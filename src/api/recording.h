// What every op does on the way into the graph: check its operands, build a node, append it to
// the calling thread's trace. Errors are thrown before anything is appended.
#pragma once

#include <charconv>
#include <memory>
#include <optional>
#include <source_location>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>

#include "ir/node.h"
#include "ir/trace.h"
#include "lazy/error.h"
#include "lazy/tensor.h"

namespace lazy::runtime {
struct Plan;
}

namespace lazy::api {

// A floating number as the user would write it back: the shortest digits that read as it
// (a stream's 6 digits made 2147483648.0 and 2147483647.5 one "2.14748e+09").
inline std::string number_text(double value) {
  char digits[32];
  const auto written = std::to_chars(digits, digits + sizeof digits, value);
  return std::string(digits, written.ptr);
}

template <class Part>
void put_part(std::ostringstream& message, const Part& part) {
  if constexpr (std::is_floating_point_v<Part>) {
    message << number_text(double(part));
  } else {
    message << part;
  }
}

// "lazy::<op>: <message parts>"; the error adds the caller's file:line.
template <class E, class... Parts>
[[noreturn]] void fail(std::source_location loc, std::string_view op, const Parts&... parts) {
  std::ostringstream message;
  message << "lazy::" << op << ": ";
  (put_part(message, parts), ...);
  throw E(message.str(), loc);
}

// Syncs the thread's trace when it has grown past ir::max_pending_ops(). Called once at the
// start of every public op, before it creates nodes, so no half-built op is cut in two. A
// lazy::Function capturing its body lets the trace grow instead.
void sync_full_trace();  // the sync, unless capturing
inline void sync_if_trace_full() {
  if (ir::Trace::current().full()) [[unlikely]]
    sync_full_trace();
}

// Computes the pending graph of `trace` and hands each held node its data. The trace is left
// intact if evaluation throws, so nothing the user recorded is lost. A bad index found by a
// finished kernel (this sync's or an earlier one's) is thrown once the results are kept.
// `plan_run`, when given, gets the plan the GPU ran (null on the host).
void sync_trace(ir::Trace& trace, std::shared_ptr<const runtime::Plan>* plan_run = nullptr);

// Marks the calling thread as capturing a lazy::Function's body, called at `call`, for its
// lifetime: a replay does not run the body, so the body may not read values on the host.
class CaptureScope {
 public:
  explicit CaptureScope(std::source_location call);
  CaptureScope(const CaptureScope&) = delete;
  CaptureScope& operator=(const CaptureScope&) = delete;
  ~CaptureScope();
};
bool capturing();
// Capturing or differentiating: a sync or host read would be refused.
bool syncs_refused();

// Marks the calling thread as differentiating a function (lazy::grad, lazy::vjp), called at
// `call`, for its lifetime: its forward and backward ops must stay recorded until the gradients
// are, so syncs and host reads are refused and a full trace grows instead. Nests.
class DifferentiationScope {
 public:
  // `op`: the call's name in errors ("grad" or "vjp").
  DifferentiationScope(std::source_location call, std::string_view op);
  DifferentiationScope(const DifferentiationScope&) = delete;
  DifferentiationScope& operator=(const DifferentiationScope&) = delete;
  ~DifferentiationScope();

 private:
  bool outermost_ = false;
};
bool differentiating();
// The outermost differentiating call's name ("grad" or "vjp"); "grad" when there is none.
std::string_view differentiation_op();
// Throws RuntimeError at the capturing (or differentiating) call's line when the thread is
// capturing: `what` (a sync or a read of values) would give the body a result its replays do not
// recompute, or cut the graph a gradient is traced through.
void refuse_while_capturing(std::string_view what,
                            std::optional<std::source_location> asked = std::nullopt);

// The node behind a handle; throws ValueError when the handle is undefined.
ir::Node* defined_node(const Tensor& t, std::string_view op, std::source_location loc);

// Throws for a handle node_of refuses: undefined, pending in another thread's trace, or never
// computed (its thread exited, or dropped its trace, first).
[[noreturn]] void refuse_node(const Tensor& t, std::string_view op, std::source_location loc);

// Whether this thread may use the node: computed, or pending in this thread's trace. Not
// Trace::current(): reading a computed tensor needs no trace (nor makes one).
inline bool usable_here(const ir::Node* node) {
  return node != nullptr && (node->trace == nullptr ? node->data != nullptr
                                                    : node->trace == ir::Trace::current_if_any());
}

// The node behind a handle, checked usable by this thread: defined, and pending in its trace or
// computed. Inline: every op checks each operand.
inline ir::Node* node_of(const Tensor& t, std::string_view op, std::source_location loc) {
  ir::Node* node = t.node();
  if (!usable_here(node)) [[unlikely]]
    refuse_node(t, op, loc);
  return node;
}

// Throws ShapeError for a negative size, or for more than kMaxElements elements in the sizes
// other than 0 (so that no stride overflows either). Every op whose result's shape is new
// (factories, reshape, expand, broadcasting) checks it; the others only shrink or reorder.
void check_shape(const Shape& shape, std::string_view op, std::source_location loc);

// Appends a node just made to the thread's trace and hands back a tensor holding it.
Tensor record(ir::NodePtr node);

// How an op takes a number, which decides what check_scalar_fits accepts and advises.
enum class NumberUse {
  exact,    // converted checked: it must fit the dtype
  rounded,  // compared or rounded first: too large for a floating dtype, it rounds to infinity
  bits,     // read as integer bits (bitwise ops, shifts), which refuse floating numbers
};

// Throws ValueError if the value does not fit `dtype` (as PyTorch refuses 2**40 for i32), or is
// an unsigned integer past INT64_MAX.
void check_scalar_fits(const Scalar& value, DType dtype, std::string_view op,
                       std::source_location loc, NumberUse use = NumberUse::exact);
// check_scalar_fits, and as PyTorch's checked conversion of a fill value (full, masked_fill,
// scatter's value): a finite number past a floating dtype's largest finite value is refused,
// though it would round to that value rather than to infinity.
void check_fill_fits(const Scalar& value, DType dtype, std::string_view op,
                     std::source_location loc);
// Records a Scalar leaf of `dtype`, owned by the trace; the value must have passed
// check_scalar_fits.
ir::Node* scalar_node(const Scalar& value, DType dtype, ir::ScalarRole role,
                      std::source_location loc);

// Normalizes a possibly negative axis of a tensor of `rank`, or throws AxisError.
int normalize_axis(int axis, int rank, std::string_view op, std::source_location loc);
// Throws ShapeError naming `op` where a tensor of `shape` cannot take one more axis.
void require_room_for_an_axis(const Shape& shape, std::string_view op, std::source_location loc);

}  // namespace lazy::api
