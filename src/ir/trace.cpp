#include "ir/trace.h"

#include "ir/settings.h"

namespace lazy::ir {

namespace {

constexpr std::uint64_t kExternalMarker = std::uint64_t(1) << 63;

Hash128 compute_node_hash(const Node& node) {
  std::array<std::uint64_t, 2 + 2 * kMaxRank> words;
  std::size_t n = 0;
  words[n++] = std::uint64_t(node.op) | std::uint64_t(node.dtype) << 8 |
               std::uint64_t(node.compute_dtype) << 16 | std::uint64_t(node.shape.rank()) << 24 |
               std::uint64_t(node.attrs.count) << 32 | std::uint64_t(node.inputs.size()) << 40;
  for (std::int64_t dim : node.shape) words[n++] = std::uint64_t(dim);
  for (int i = 0; i < node.attrs.count; ++i) words[n++] = std::uint64_t(node.attrs[i]);
  return hash_words({words.data(), n});
}

// Scalars hash by dtype and role alone; the table saves hashing the commonest leaf every time.
Hash128 scalar_node_hash(const Node& node) {
  static const auto table = [] {
    std::array<std::array<Hash128, 2>, 6> hashes;
    for (int d = 0; d < 6; ++d) {
      for (int role = 0; role < 2; ++role) {
        Node prototype;
        prototype.op = Op::Scalar;
        prototype.dtype = prototype.compute_dtype = DType(d);
        prototype.attrs.push(role);
        hashes[d][role] = compute_node_hash(prototype);
      }
    }
    return hashes;
  }();
  return table[int(node.dtype)][node.attrs[0]];
}

}  // namespace

void hash_node(Node& node) {
  node.node_hash = compute_node_hash(node);
  // Up to 4 inputs: a MatMul with a bias and a residual folded in (fuse/matmul_epilogues.h).
  std::array<std::uint64_t, 2 + 2 * 4> words;
  std::size_t n = 0;
  words[n++] = node.node_hash.lo;
  words[n++] = node.node_hash.hi;
  for (const NodePtr& input : node.inputs) {
    words[n++] = input->dag_hash.lo;
    words[n++] = input->dag_hash.hi;
  }
  node.dag_hash = node.inputs.empty() ? node.node_hash : hash_words({words.data(), n});
}

std::int64_t max_pending_ops() {
  static const std::int64_t value = integer_setting(Setting::max_pending_ops);
  return value;
}

Trace& Trace::current() {
  // initial-exec: the library is linked, not dlopen'ed, so its TLS is reached without a call.
  [[gnu::tls_model("initial-exec")]] static thread_local Trace trace;
  return trace;
}

const Trace::External& Trace::external(const NodePtr& node) {
  auto [it, inserted] = external_index_.try_emplace(node.get());
  if (inserted) {
    auto slot = std::uint32_t(externals_.size());
    externals_.push_back(node);
    std::array<std::uint64_t, 2 + kMaxRank> words;
    std::size_t n = 0;
    words[n++] = kExternalMarker | std::uint64_t(slot);
    words[n++] = std::uint64_t(node->dtype) | std::uint64_t(node->shape.rank()) << 8;
    for (std::int64_t dim : node->shape) words[n++] = std::uint64_t(dim);
    it->second = External{slot, hash_words({words.data(), n})};
  }
  return it->second;
}

void Trace::append(const NodePtr& node) {
  // The DAG hash folds in the inputs' DAG hashes; the program words add where each input comes
  // from, which tells apart graphs whose nodes hash alike but are wired differently.
  std::array<std::uint64_t, 3> input_refs;
  std::size_t n_inputs = 0;
  if (node->inputs.empty()) {
    // A leaf's expression is itself. Scalars are the commonest leaf and hash by dtype alone.
    node->node_hash = node->op == Op::Scalar ? scalar_node_hash(*node) : compute_node_hash(*node);
    node->dag_hash = node->node_hash;
  } else {
    node->node_hash = compute_node_hash(*node);
    std::array<std::uint64_t, 2 + 2 * 3> dag_words;
    std::size_t dag_n = 0;
    dag_words[dag_n++] = node->node_hash.lo;
    dag_words[dag_n++] = node->node_hash.hi;
    for (const NodePtr& input : node->inputs) {
      Hash128 input_dag;
      if (input->trace == this) {
        input_dag = input->dag_hash;
        input_refs[n_inputs++] = input->trace_index;
      } else {
        const External& ext = external(input);
        input_dag = ext.dag_hash;
        input_refs[n_inputs++] = kExternalMarker | ext.slot;
      }
      dag_words[dag_n++] = input_dag.lo;
      dag_words[dag_n++] = input_dag.hi;
    }
    node->dag_hash = hash_words({dag_words.data(), dag_n});
  }
  program_.push_back(node->dag_hash.lo);
  program_.push_back(node->dag_hash.hi);
  program_.insert(program_.end(), input_refs.begin(), input_refs.begin() + n_inputs);

  node->trace = this;
  node->trace_index = std::uint32_t(nodes_.size());
  nodes_.push_back(node);
}

Hash128 Trace::sync_key() const {
  std::vector<bool> live(nodes_.size());
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    live[i] = nodes_[i]->handles.load(std::memory_order_relaxed) > 0;
  return sync_key(live);
}

Hash128 Trace::sync_key(const std::vector<bool>& live) const {
  std::vector<std::uint64_t> words;
  words.reserve(program_.size() + 2 + nodes_.size() / 64);
  words = program_;
  words.push_back(nodes_.size());
  // One bit per pending node: does a handle hold it.
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (live[i]) bits |= std::uint64_t(1) << (i % 64);
    if (i % 64 == 63) {
      words.push_back(bits);
      bits = 0;
    }
  }
  words.push_back(bits);
  return hash_words(words);
}

void Trace::clear() {
  for (const NodePtr& node : nodes_) node->trace = nullptr;
  nodes_.clear();
  externals_.clear();
  external_index_.clear();
  program_.clear();
}

}  // namespace lazy::ir
