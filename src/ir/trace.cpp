#include "ir/trace.h"

#include "ir/settings.h"

namespace lazy::ir {

namespace {

constexpr std::uint64_t kExternalMarker = std::uint64_t(1) << 63;

// What a node is, without its inputs: op, dtypes, shape and attrs as words.
void push_descriptor(const Node& node, std::vector<std::uint64_t>& words) {
  const int rank = node.shape.rank(), count = node.attrs.count;
  words.push_back(std::uint64_t(node.op) | std::uint64_t(node.dtype) << 8 |
                  std::uint64_t(node.compute_dtype) << 16 | std::uint64_t(rank) << 24 |
                  std::uint64_t(count) << 32 | std::uint64_t(node.inputs.size()) << 40);
  for (int d = 0; d < rank; ++d) words.push_back(std::uint64_t(node.shape[d]));
  for (int i = 0; i < count; ++i) words.push_back(std::uint64_t(node.attrs[i]));
}

}  // namespace

std::int64_t max_pending_ops() {
  static const std::int64_t value = integer_setting(Setting::max_pending_ops);
  return value;
}

constinit thread_local Trace* Trace::current_ = nullptr;

Trace& Trace::make_current() {
  static thread_local Trace trace;
  current_ = &trace;
  return trace;
}

void Trace::push_external_ref(Node* node) {
  auto [it, inserted] = external_slots_.try_emplace(node, std::uint32_t(externals_.size()));
  program_.push_back(kExternalMarker | it->second);
  if (inserted) {
    // Slots are numbered in order of first use, so a first use is known from the words before it
    // and the dtype and shape that follow it cannot be read as anything else.
    externals_.emplace_back(node);
    program_.push_back(std::uint64_t(node->dtype) | std::uint64_t(node->shape.rank()) << 8);
    for (std::int64_t dim : node->shape) program_.push_back(std::uint64_t(dim));
  }
}

void Trace::append(NodePtr node) {
  // Where each input comes from (a pending index or an external slot) tells apart graphs whose
  // nodes are alike but wired differently, or that bind scalars differently.
  push_descriptor(*node, program_);
  for (Node* input : node->inputs) {
    if (input->trace == this)
      program_.push_back(input->trace_index);
    else
      push_external_ref(input);
  }
  node->trace = this;
  node->trace_index = std::uint32_t(nodes_.size());
  nodes_.push_back(std::move(node));
}

std::vector<bool> Trace::live() const {
  std::vector<bool> held(nodes_.size());
  for (std::size_t i = 0; i < nodes_.size(); ++i) held[i] = nodes_[i].use_count() > 1;
  return held;
}

Hash128 Trace::sync_key() const {
  return sync_key(live());
}

Hash128 Trace::sync_key(const std::vector<bool>& live) const {
  std::vector<std::uint64_t> words;  // after the program, hashed with it in place
  words.reserve(2 + nodes_.size() / 64);
  words.push_back(nodes_.size());
  // One bit per pending node: does a handle hold it.
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    bits |= std::uint64_t(live[i]) << (i % 64);
    if (i % 64 == 63) {
      words.push_back(bits);
      bits = 0;
    }
  }
  words.push_back(bits);
  return hash_words(program_, words);
}

void Trace::clear() {
  for (const NodePtr& node : nodes_) {
    node->trace = nullptr;
    if (node.use_count() > 1) node->inputs.clear();
  }
  nodes_.clear();
  externals_.clear();
  external_slots_.clear();
  program_.clear();
}

}  // namespace lazy::ir
