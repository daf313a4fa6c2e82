#include "fuse/recomputed_operands.h"

#include <absl/container/inlined_vector.h>
#include <absl/strings/str_cat.h>

#include <algorithm>

#include "fuse/graph_builder.h"
#include "fuse/internal_error.h"

namespace lazy::fuse {

namespace {

using ir::Node;
using ir::Op;
using ir::OpKind;

constexpr std::int32_t kNone = -1;

// An operand recomputed for its late readers.
struct Recompute {
  std::uint32_t operand;
  std::uint32_t first_late;  // its first reader after the gap
  std::size_t late_readers = 0;
  int products_between = 0;
  std::vector<std::uint32_t> chain;  // the nodes copied, operand last (ascending)
  std::vector<std::uint32_t> views;  // views of the operand its readers read
};

class OperandRecomputer {
 public:
  explicit OperandRecomputer(const Graph& in)
      : in_(in), late_at_(in.size(), kNone), builder_(out_) {}

  // Finds the operands to recompute; false when there is none.
  bool find() {
    needed_ = in_.needed();
    readers_.assign(in_.size(), {});
    products_before_.assign(in_.size() + 1, 0);
    for (std::uint32_t i = 0; i < in_.size(); ++i) {
      const Node& node = *in_.nodes[i];
      const bool product = needed_[i] && node.op == Op::MatMul;
      products_before_[i + 1] = products_before_[i] + (product ? 1 : 0);
      if (!needed_[i]) continue;
      for (Node* input : node.inputs) {
        if (!input->is_pending()) continue;
        std::vector<std::uint32_t>& readers = readers_[input->trace_index];
        if (readers.empty() || readers.back() != i) readers.push_back(i);
      }
    }
    find_written();
    find_last_reads();
    for (std::uint32_t i = 0; i < in_.size(); ++i) {
      if (!needed_[i] || in_.live[i] || !feeds_product_[i]) continue;
      if (ir::op_kind(in_.nodes[i]->op) != OpKind::pointwise) continue;
      if (auto recompute = plan(i)) {
        late_at_[i] = std::int32_t(recomputes_.size());
        for (std::uint32_t view : recompute->views) late_at_[view] = late_at_[i];
        recomputes_.push_back(std::move(*recompute));
      }
    }
    return !recomputes_.empty();
  }

  // What LAZY_DEBUG=2 says about this pass's choices.
  const std::vector<std::string>& notes() const { return notes_; }

  Graph rewrite() {
    out_.notes = notes_;
    now_.assign(in_.size(), nullptr);
    late_.assign(in_.size(), nullptr);
    std::vector<std::vector<std::uint32_t>> due(in_.size());
    for (std::uint32_t r = 0; r < recomputes_.size(); ++r) {
      due[recomputes_[r].first_late].push_back(r);
    }
    for (std::uint32_t i = 0; i < in_.size(); ++i) {
      if (!needed_[i]) continue;
      for (std::uint32_t r : due[i]) copy_chain(recomputes_[r]);
      const Node& node = *in_.nodes[i];
      absl::InlinedVector<Node*, 3> inputs;
      for (Node* input : node.inputs) inputs.push_back(now(input, i));
      now_[i] = builder_.keep(in_.nodes[i].get(), in_.recorded[i], in_.live[i], inputs);
    }
    carry_earlier_passes(in_, now_, out_);
    return std::move(out_);
  }

 private:
  static bool inline_kind(OpKind kind) {
    return kind == OpKind::pointwise || kind == OpKind::view || kind == OpKind::generator ||
           kind == OpKind::leaf;
  }

  // Which nodes a product reads (through views: a transposed weight), and so are written.
  void find_written() {
    feeds_product_.assign(in_.size(), false);
    for (std::uint32_t i = in_.size(); i-- > 0;) {
      for (std::uint32_t r : readers_[i]) {
        const Node& reader = *in_.nodes[r];
        if (reader.op == Op::MatMul ||
            (ir::op_kind(reader.op) == OpKind::view && feeds_product_[r])) {
          feeds_product_[i] = true;
        }
      }
    }
  }

  bool written(std::uint32_t i) const {
    return !inline_kind(ir::op_kind(in_.nodes[i]->op)) || in_.live[i] || feeds_product_[i];
  }

  // last_read_[i]: the last node that reads i from memory, directly or through work inlined
  // into it, so i is held until then.
  void find_last_reads() {
    last_read_.assign(in_.size(), 0);
    for (std::uint32_t i = in_.size(); i-- > 0;) {
      for (std::uint32_t r : readers_[i]) {
        const std::uint32_t through = written(r) ? r : std::max(r, last_read_[r]);
        last_read_[i] = std::max(last_read_[i], through);
      }
    }
  }

  // The nodes that read `operand`, looking through views, and the views passed.
  void readers_through_views(std::uint32_t operand, std::vector<std::uint32_t>& readers,
                             std::vector<std::uint32_t>& views) const {
    std::vector<std::uint32_t> stack{operand};
    while (!stack.empty()) {
      const std::uint32_t n = stack.back();
      stack.pop_back();
      for (std::uint32_t r : readers_[n]) {
        if (ir::op_kind(in_.nodes[r]->op) == OpKind::view && !in_.live[r]) {
          views.push_back(r);
          stack.push_back(r);
        } else {
          readers.push_back(r);
        }
      }
    }
    std::sort(readers.begin(), readers.end());
    readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
  }

  // The operand's chain of ops back to values in memory, if its readers after a gap can take a
  // copy of it that holds nothing more across the gap than the graph holds already.
  std::optional<Recompute> plan(std::uint32_t operand) {
    Recompute recompute{operand, 0, 0, 0, {}, {}};
    std::vector<std::uint32_t> readers;
    readers_through_views(operand, readers, recompute.views);
    for (std::size_t k = 1; k < readers.size() && recompute.first_late == 0; ++k) {
      const int between = products_before_[readers[k]] - products_before_[readers[k - 1] + 1];
      if (between >= kProductsBetweenLateReads) {
        recompute.first_late = readers[k];
        recompute.late_readers = readers.size() - k;
        recompute.products_between = between;
      }
    }
    if (recompute.first_late == 0) return std::nullopt;
    const Node& value = *in_.nodes[operand];
    std::vector<std::uint32_t> stack{operand};
    std::vector<bool> seen(operand + 1, false);
    seen[operand] = true;
    std::vector<const Node*> full_reads;  // values in memory read at one element per element
    int ops = 0, costly_ops = 0;
    const auto reads = [&](const Node* leaf) {
      if (leaf->shape.numel() == value.shape.numel() &&
          std::find(full_reads.begin(), full_reads.end(), leaf) == full_reads.end()) {
        full_reads.push_back(leaf);
      }
    };
    while (!stack.empty()) {
      const std::uint32_t n = stack.back();
      stack.pop_back();
      recompute.chain.push_back(n);
      const Op op = in_.nodes[n]->op;
      if (ir::op_kind(op) == OpKind::pointwise) {
        ++ops;
        costly_ops += ir::op_info(op).cost != ir::Cost::simple;
      }
      for (Node* input : in_.nodes[n]->inputs) {
        if (!input->is_pending()) {
          reads(input);
          continue;
        }
        if (seen[input->trace_index]) continue;
        const std::uint32_t i = input->trace_index;
        seen[i] = true;
        const OpKind kind = ir::op_kind(input->op);
        if (kind == OpKind::leaf || kind == OpKind::generator) continue;  // computed anywhere
        if (!written(i)) {
          stack.push_back(i);
          continue;
        }
        if (last_read_[i] < recompute.first_late) {
          note(operand, absl::StrCat("%", i, " it is computed from is read last by %",
                                     last_read_[i], ", so it would be held longer instead"));
          return std::nullopt;
        }
        reads(input);
      }
    }
    std::int64_t bytes_read = 0;
    for (const Node* leaf : full_reads) bytes_read += itemsize(leaf->dtype);
    if (ops > kMaxOpsRecomputedPerOperand || costly_ops > kMaxCostlyOpsRecomputedPerOperand ||
        bytes_read > itemsize(value.dtype)) {
      note(operand, absl::StrCat("its copy would read ", bytes_read, " bytes per ",
                                 itemsize(value.dtype), " written, and compute ", ops, " ops (",
                                 costly_ops, " costly): more than one pass over it"));
      return std::nullopt;
    }
    std::sort(recompute.chain.begin(), recompute.chain.end());
    return recompute;
  }

  // Appends the copy of an operand's chain, before its first late reader.
  void copy_chain(const Recompute& recompute) {
    const Node& operand = *in_.nodes[recompute.operand];
    builder_.set_origin(operand);
    const std::uint32_t first = builder_.size();
    std::vector<std::pair<std::uint32_t, Node*>> copies;
    for (std::uint32_t n : recompute.chain) {
      absl::InlinedVector<Node*, 3> inputs;
      for (Node* input : in_.nodes[n]->inputs) {
        auto copy = std::find_if(copies.begin(), copies.end(), [&](const auto& c) {
          return input->is_pending() && c.first == input->trace_index;
        });
        inputs.push_back(copy != copies.end() ? copy->second : now(input, recompute.operand));
      }
      copies.emplace_back(n, builder_.keep(in_.nodes[n].get(), Graph::kAdded, false, inputs));
    }
    late_[recompute.operand] = copies.back().second;
    out_.rewrites.push_back(
        {std::uint32_t(in_.recorded[recompute.operand]), operand.op,
         absl::StrCat("computed again from values in memory for its ", recompute.late_readers,
                      " reader(s) after ", recompute.products_between,
                      " other products, instead of being held across them"),
         first, late_[recompute.operand]->trace_index});
  }

  // Input `input` of node `consumer` in the rewritten graph: for a reader after an operand's
  // gap, the operand's copy, or a copy of the view of it that it reads.
  Node* now(Node* input, std::uint32_t consumer) {
    if (!input->is_pending()) return input;
    const std::uint32_t i = input->trace_index;
    if (late_at_[i] != kNone && consumer >= recomputes_[late_at_[i]].first_late) return late(i);
    Node* version = now_[i];
    if (!version) {
      internal_error(*in_.nodes[consumer], "recompute_operands_read_late left out an input");
    }
    return version;
  }

  Node* late(std::uint32_t i) {
    if (!late_[i]) {  // a view recorded before the gap
      const Node& view = *in_.nodes[i];
      Node* input = late(view.inputs[0]->trace_index);
      late_[i] = builder_.keep(in_.nodes[i].get(), Graph::kAdded, false, {&input, 1});
    }
    return late_[i];
  }

  void note(std::uint32_t operand, const std::string& why) {
    const Node& n = *in_.nodes[operand];
    notes_.push_back(absl::StrCat("recompute: %", operand, " ", std::string(ir::op_name(n.op)),
                                  " from ", n.loc.file_name(), ":", std::uint32_t(n.loc.line()),
                                  " is held for its late readers: ", why));
  }

  const Graph& in_;
  std::vector<bool> needed_;
  std::vector<std::vector<std::uint32_t>> readers_;  // needed readers of each node, ascending
  std::vector<bool> feeds_product_;
  std::vector<int> products_before_;  // needed products before each index
  std::vector<std::uint32_t> last_read_;
  std::vector<Recompute> recomputes_;
  std::vector<std::int32_t> late_at_;  // for an operand recomputed and views of it: its Recompute
  std::vector<Node*> late_;            // their copies for the late readers
  std::vector<std::string> notes_;
  std::vector<Node*> now_;
  Graph out_;
  GraphBuilder builder_;
};

}  // namespace

Graph recompute_operands_read_late(Graph recorded) {
  if (!recorded.has(Op::MatMul)) return recorded;
  OperandRecomputer recomputer(recorded);
  if (recomputer.find()) return recomputer.rewrite();
  recorded.notes.insert(recorded.notes.end(), recomputer.notes().begin(), recomputer.notes().end());
  return recorded;
}

}  // namespace lazy::fuse
