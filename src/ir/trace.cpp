#include "ir/trace.h"

#include <cstdlib>

#include <absl/strings/numbers.h>

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

}  // namespace

std::int64_t max_pending_ops() {
  static const std::int64_t value = [] {
    std::int64_t parsed = 0;
    const char* env = std::getenv("LAZY_MAX_PENDING_OPS");
    if (env != nullptr && absl::SimpleAtoi(env, &parsed) && parsed > 0) return parsed;
    return kDefaultMaxPendingOps;
  }();
  return value;
}

Trace& Trace::current() {
  static thread_local Trace trace;
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
  node->node_hash = compute_node_hash(*node);

  // dag: this node's hash, then each input's DAG hash. running: the previous running hash, this
  // DAG hash, then where each input comes from (a pending index or an external slot), which
  // tells apart graphs whose nodes hash alike but are wired differently.
  std::array<std::uint64_t, 2 + 2 * 3> dag_words;
  std::array<std::uint64_t, 4 + 3> running_words;
  std::size_t dag_n = 0;
  std::size_t running_n = 4;
  dag_words[dag_n++] = node->node_hash.lo;
  dag_words[dag_n++] = node->node_hash.hi;
  for (const NodePtr& input : node->inputs) {
    Hash128 input_dag;
    if (input->trace == this) {
      input_dag = input->dag_hash;
      running_words[running_n++] = input->trace_index;
    } else {
      const External& ext = external(input);
      input_dag = ext.dag_hash;
      running_words[running_n++] = kExternalMarker | ext.slot;
    }
    dag_words[dag_n++] = input_dag.lo;
    dag_words[dag_n++] = input_dag.hi;
  }
  node->dag_hash = hash_words({dag_words.data(), dag_n});
  running_words[0] = running_hash_.lo;
  running_words[1] = running_hash_.hi;
  running_words[2] = node->dag_hash.lo;
  running_words[3] = node->dag_hash.hi;
  running_hash_ = hash_words({running_words.data(), running_n});

  node->trace = this;
  node->trace_index = std::uint32_t(nodes_.size());
  nodes_.push_back(node);
}

Hash128 Trace::sync_key() const {
  std::vector<std::uint64_t> words;
  words.reserve(3 + nodes_.size() / 8);
  words.push_back(running_hash_.lo);
  words.push_back(running_hash_.hi);
  words.push_back(nodes_.size());
  // One bit per pending node: does a handle hold it.
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i]->handles.load(std::memory_order_relaxed) > 0) bits |= std::uint64_t(1) << (i % 64);
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
  running_hash_ = {};
}

}  // namespace lazy::ir
