#include "fuse/matmul_epilogues.h"

#include <absl/container/inlined_vector.h>
#include <absl/strings/str_cat.h>

#include <algorithm>
#include <sstream>

#include "fuse/graph_builder.h"
#include "fuse/internal_error.h"

namespace lazy::fuse {

namespace {

using ir::MatmulActivation;
using ir::Node;
using ir::Op;

constexpr std::int32_t kNone = -1;

// A product and the consumers folded into it.
struct Fold {
  std::uint32_t product;
  std::uint32_t last;    // the last node folded: the new product stands for it
  Node* bias = nullptr;  // the [N] vector (under its broadcast)
  Node* residual = nullptr;
  Node* aux = nullptr;  // gelu_tanh_grad's x, read in the result's layout
  ir::MatmulEpilogue epilogue;
  std::string what;
};

// The [N] vector `x` broadcasts over the rows of a product of shape `shape`, if it is one.
Node* bias_under(Node* x, const Shape& shape, DType dtype) {
  if (!x->is_pending() || x->op != Op::Expand) return nullptr;
  Node* vector = x->inputs[0];
  const Shape& s = vector->shape;
  if (vector->dtype != dtype || s.rank() == 0 || s[s.rank() - 1] != shape[shape.rank() - 1])
    return nullptr;
  for (int a = 0; a + 1 < s.rank(); ++a)
    if (s[a] != 1) return nullptr;
  return vector;
}

class EpilogueFolder {
 public:
  explicit EpilogueFolder(const Graph& in) : in_(in), fold_at_(in.size(), kNone), builder_(out_) {}

  // Finds the folds; false when there is none.
  bool find() {
    needed_ = in_.needed();
    uses_.assign(in_.size(), 0);
    consumer_.assign(in_.size(), kNone);
    for (std::uint32_t i = 0; i < in_.size(); ++i) {
      if (!needed_[i]) continue;
      for (Node* input : in_.nodes[i]->inputs) {
        if (!input->is_pending()) continue;
        uses_[input->trace_index]++;
        consumer_[input->trace_index] = std::int32_t(i);
      }
    }
    for (std::uint32_t i = 0; i < in_.size(); ++i) {
      const Node& node = *in_.nodes[i];
      if (!needed_[i] || node.op != Op::MatMul || node.inputs.size() != 2) continue;
      Fold fold = grow(i);
      if (fold.last == i) continue;
      for (std::uint32_t n = i; n != fold.last; n = std::uint32_t(consumer_[n])) {
        fold_at_[n] = std::int32_t(folds_.size());
      }
      fold_at_[fold.last] = std::int32_t(folds_.size());
      folds_.push_back(std::move(fold));
    }
    return !folds_.empty();
  }

  // What LAZY_DEBUG=2 says about this pass's choices.
  const std::vector<std::string>& notes() const { return notes_; }

  Graph rewrite() {
    out_.notes = notes_;
    now_.assign(in_.size(), nullptr);
    for (std::uint32_t i = 0; i < in_.size(); ++i) {
      if (!needed_[i]) continue;
      const std::int32_t f = fold_at_[i];
      if (f != kNone && folds_[f].last != i) continue;  // replaced by the folded product
      const Node& node = *in_.nodes[i];
      if (f == kNone) {
        absl::InlinedVector<Node*, 3> inputs;
        for (Node* input : node.inputs) inputs.push_back(now(input, node));
        now_[i] = builder_.keep(in_.nodes[i].get(), in_.recorded[i], in_.live[i], inputs);
        continue;
      }
      const Fold& fold = folds_[f];
      const Node& product = *in_.nodes[fold.product];
      absl::InlinedVector<Node*, 4> inputs{now(product.inputs[0], product),
                                           now(product.inputs[1], product)};
      if (fold.bias) inputs.push_back(now(fold.bias, product));
      if (fold.residual) inputs.push_back(now(fold.residual, product));
      if (fold.aux) inputs.push_back(now(fold.aux, product));
      const std::uint32_t first = builder_.size();
      now_[i] = builder_.matmul(product, inputs, fold.epilogue);
      builder_.stands_for(in_.recorded[i], in_.live[i]);
      out_.rewrites.push_back(
          {std::uint32_t(in_.recorded[i]), node.op, fold.what, first, now_[i]->trace_index});
    }
    carry_earlier_passes(in_, now_, out_);
    return std::move(out_);
  }

 private:
  Node* now(Node* input, const Node& consumer) const {
    if (!input->is_pending()) return input;
    Node* version = now_[input->trace_index];
    if (!version) internal_error(consumer, "fold_matmul_epilogues left out an input of a node");
    return version;
  }

  // Folds consumers into product p while cuBLASLt can run them: a bias and a residual in either
  // order, then an activation.
  Fold grow(std::uint32_t p) {
    const Node& product = *in_.nodes[p];
    Fold fold{p, p, nullptr, nullptr, nullptr, ir::matmul_epilogue(product), ""};
    std::vector<std::string> parts;
    std::uint32_t at = p;
    while (true) {
      if (in_.live[at] || uses_[at] != 1) {
        if (uses_[at] > 0) {
          note(at, in_.live[at] ? "its value is held by a handle, so it is written"
                                : "its value is read by several nodes, so it is written");
        }
        break;
      }
      const auto next = std::uint32_t(consumer_[at]);
      // The sum of two products (a backward's input gradient through two layers) folds into the
      // first product's call, reading this one as its C: one fold per node.
      if (fold_at_[next] != kNone) {
        note(next, "it is folded into another product's call, which reads this one as its C");
        break;
      }
      const Node& consumer = *in_.nodes[next];
      const bool same_kind = consumer.dtype == product.dtype && consumer.shape == product.shape;
      if (consumer.op == Op::Add && same_kind && consumer.inputs[0] != consumer.inputs[1]) {
        Node* other = consumer.inputs[0]->trace_index == at && consumer.inputs[0]->is_pending()
                          ? consumer.inputs[1]
                          : consumer.inputs[0];
        if (Node* bias = bias_under(other, product.shape, product.dtype);
            bias && !fold.epilogue.bias) {
          fold.bias = bias;
          fold.epilogue.bias = true;
          parts.push_back("the bias");
        } else if (other->shape == product.shape && other->dtype == product.dtype &&
                   !fold.epilogue.residual) {
          fold.residual = other;
          fold.epilogue.residual = true;
          parts.push_back("the residual add (C, beta = 1)");
        } else {
          note(next, "an Add of neither an [N] bias nor a residual of the product's shape");
          break;
        }
        at = next;
        continue;
      }
      // The cotangent through gelu_tanh straight from a product (a backward's input gradient):
      // cuBLASLt's DGELU reads x beside it. Not after a bias or residual, which DGELU does not
      // add; not f32, whose gelu' cuBLASLt computes less exactly (as its gelu); rows of whole
      // 16-byte groups, which the aux operand's leading dimension needs.
      if (consumer.op == Op::GeluTanhGrad && same_kind && consumer.inputs[0]->is_pending() &&
          consumer.inputs[0]->trace_index == at && consumer.inputs[1] != consumer.inputs[0]) {
        const bool plain = !fold.epilogue.bias && !fold.epilogue.residual;
        const std::int64_t row = product.shape[product.shape.rank() - 1];
        if (plain && product.dtype != DType::f32 && row % 8 == 0 &&
            consumer.inputs[1]->shape == product.shape &&
            consumer.inputs[1]->dtype == product.dtype) {
          fold.aux = consumer.inputs[1];
          fold.epilogue.activation = MatmulActivation::gelu_tanh_grad;
          parts.push_back("gelu_tanh's gradient (DGELU, reading x)");
          at = next;
        } else {
          note(next, "cuBLASLt's DGELU takes a plain bf16 or f16 product with rows of 8");
        }
        break;
      }
      // relu stays out: cuBLASLt's RELU epilogue makes NaN 0, where torch.relu keeps NaN (found
      // by lazyfuse-fuzz --only-products seeds 7101-7106: relu of a product with a NaN bias).
      const MatmulActivation activation =
          consumer.op == Op::GeluTanh ? MatmulActivation::gelu_tanh : MatmulActivation::none;
      // cuBLASLt's gelu is about 4e-6 from the exact tanh form: far below an f16 or bf16 ulp,
      // but 30 f32 ulps, so f32 keeps gelu_tanh in a generated kernel.
      const bool accurate_enough =
          activation != MatmulActivation::gelu_tanh || product.dtype != DType::f32;
      if (activation != MatmulActivation::none && same_kind && !accurate_enough) {
        note(next, "cuBLASLt's gelu_tanh is about 4e-6 from the exact form: 30 f32 ulps");
        break;
      }
      if (activation != MatmulActivation::none && same_kind) {
        fold.epilogue.activation = activation;
        parts.push_back(std::string(ir::matmul_activation_name(activation)));
        at = next;
      } else {
        note(next, consumer.op == Op::Relu
                       ? "cuBLASLt's relu makes NaN 0, where torch.relu keeps NaN"
                       : "not a bias, a residual add or a gelu_tanh of the product's dtype");
      }
      break;
    }
    fold.last = at;
    if (at != p) {
      std::string list;
      for (const std::string& part : parts) list += (list.empty() ? "" : ", ") + part;
      fold.what = absl::StrCat("the product %", p, " with ", list,
                               " in its epilogue (no kernel, no trip through memory)");
    }
    return fold;
  }

  // Why the work reading a product was left to a generated kernel.
  void note(std::uint32_t node, std::string_view why) {
    const Node& n = *in_.nodes[node];
    std::ostringstream line;
    line << "epilogue: %" << node << " " << ir::op_name(n.op) << " from " << n.loc.file_name()
         << ":" << n.loc.line() << " runs in a generated kernel reading the product: " << why;
    notes_.push_back(line.str());
  }

  const Graph& in_;
  std::vector<bool> needed_;
  std::vector<int> uses_;               // needed nodes reading each node (an input twice: twice)
  std::vector<std::int32_t> consumer_;  // the last needed node reading each node
  std::vector<Fold> folds_;
  std::vector<std::int32_t> fold_at_;  // for each node folded: its fold
  std::vector<std::string> notes_;
  std::vector<Node*> now_;  // each node's version in the rewritten graph
  Graph out_;
  GraphBuilder builder_;
};

}  // namespace

Graph fold_matmul_epilogues(Graph recorded) {
  if (!recorded.has(Op::MatMul)) return recorded;
  EpilogueFolder folder(recorded);
  if (folder.find()) return folder.rewrite();
  recorded.notes.insert(recorded.notes.end(), folder.notes().begin(), folder.notes().end());
  return recorded;
}

}  // namespace lazy::fuse
